"""A decision in each agent's own words: stdout, stderr and exit code for a command hook,
and the JSON body the sidecar returns (always HTTP 200, so a body-only reader still blocks).

- Claude Code (https://code.claude.com/docs/en/hooks, "Exit code 2", "PreToolUse decision
  control", "HTTP response handling"): exit 2 blocks whatever stdout says and Claude reads
  the JSON `permissionDecisionReason`, else stderr; exit 1 or a crash does not block. Deny
  is `hookSpecificOutput.permissionDecision = "deny"` plus exit 2; ask is the same with
  `"ask"` and exit 0; allow prints nothing (the normal permission flow decides), and an
  HTTP hook gets `{}`.
- Codex (codex-rs/hooks/src/events/pre_tool_use.rs): exit 2 blocks with the stderr text as
  the reason (empty stderr does not block); JSON `permissionDecision: "deny"` blocks;
  `"ask"` and `additionalContext` are unsupported and fail open, so ask is answered as deny
  and no other field is sent.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .decide import ALLOW, ASK, DENY, Decision
from .payload import CLAUDE, CODEX

BLOCKING_EXIT = {CLAUDE: 2, CODEX: 2}
_CODEX_ASK = "This call needs a person's confirmation, which Codex hooks cannot ask for, so it is blocked. "


class Answer(NamedTuple):
    stdout: str
    stderr: str
    exit_code: int
    body: dict[str, Any]  # what the sidecar returns


def _pre_tool_use(decision: str, reason: str, event: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": event or "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def render(decision: Decision, agent: str, event: str = "PreToolUse") -> Answer:
    """The answer for `agent`; an unknown agent gets the strictest one (Codex's)."""
    action, reason = decision.action, decision.reason
    if agent != CLAUDE and action == ASK:
        action, reason = DENY, _CODEX_ASK + reason
    if action == ALLOW:
        return Answer("", "", 0, {})
    body = _pre_tool_use(action, reason, event if event == "PreToolUse" else "PreToolUse")
    if action == ASK:  # Claude only: a person confirms
        return Answer(json.dumps(body) + "\n", "", 0, body)
    if agent == CLAUDE:
        return Answer(json.dumps(body) + "\n", reason + "\n", BLOCKING_EXIT[CLAUDE], body)
    return Answer("", reason + "\n", BLOCKING_EXIT.get(agent, 2), body)
