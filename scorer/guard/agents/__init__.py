"""One module per agent: its hook payload read into the guard's neutral `ToolCall`, and the
guard's decision written back as that agent's answer. Looked up by name, as report/
renderers are; the neutral code (payload.py, decide.py) imports none of them.

Every module has `normalise(data) -> ToolCall` and `answer(decision, event) -> Answer`.
"""

from __future__ import annotations

import sys
from types import ModuleType

from ..payload import AGENTS, PayloadError


def lookup(agent: str) -> ModuleType:
    """The module for `agent`; PayloadError for a name the guard does not know."""
    if agent not in AGENTS:
        raise PayloadError(f"unknown agent {agent!r}; known: {', '.join(AGENTS)}")
    name = f"{__name__}.{agent}"
    __import__(name)  # not importlib.import_module: `python -X importtime` sees this one
    return sys.modules[name]
