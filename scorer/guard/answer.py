"""A decision in the agent's own words: stdout, stderr and exit code for a command hook, and the
JSON body the sidecar returns (always HTTP 200, so a body-only reader still blocks).

Each agent's module under `agents/` renders its own answer (and cites the page that says how
its hooks read one); this module holds the `Answer` record, what they share, and `render`,
which looks the agent up by name. An unknown agent gets the strictest answer (Codex's: exit
2, the reason on stderr).
"""

from __future__ import annotations

from .. import jsontext
from ..records import NamedTuple
from .decide import ASK, DENY, Decision

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from typing import Any


class Answer(NamedTuple):
    stdout: str
    stderr: str
    exit_code: int
    body: dict[str, Any]  # what the sidecar returns


ALLOWED = Answer("", "", 0, {})


def render(decision: Decision, agent: str, event: str = "PreToolUse") -> Answer:
    """The answer for `agent`, by its own module."""
    from .agents import lookup
    from .payload import AGENTS, CODEX

    return lookup(agent if agent in AGENTS else CODEX).answer(decision, event)


def ask_as_deny(decision: Decision, name: str) -> Decision:
    """For an agent whose hooks cannot ask a person: the ask becomes a deny that says so."""
    if decision.action != ASK:
        return decision
    reason = f"This call needs a person's confirmation, which {name} hooks cannot ask for, so it is blocked. "
    return decision._replace(action=DENY, reason=reason + decision.reason)


def pre_tool_use(decision: str, reason: str) -> dict[str, Any]:
    """Claude Code's (and Codex's) PreToolUse decision body."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def with_json(body: dict[str, Any], reason: str, code: int) -> Answer:
    """The body on stdout and the reason on stderr, with `code`."""
    return Answer(jsontext.dumps(body) + "\n", reason + "\n", code, body)
