"""Renderers: turn one Result into a report. They format; they never decide.

Formats are looked up by name; each format's module is imported only when asked for,
so the hook path pays for the text report alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..model import Result

FORMATS: dict[str, str] = {
    "text": "text",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit",
    "markdown": "markdown",
}


def render(fmt: str, result: Result) -> str:
    """`result` in format `fmt` (a key of FORMATS)."""
    module = importlib.import_module(f"{__name__}.{FORMATS[fmt]}")
    func: Callable[[Result], str] = module.render
    return func(result)
