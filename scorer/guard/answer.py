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
- Gemini CLI (https://geminicli.com/docs/hooks/reference, "Global hook mechanics",
  "BeforeTool"): exit 2 blocks the tool with stderr as the reason and "the turn continues";
  other non-zero codes are warnings; on exit 0 stdout is JSON with `decision: "deny"` and
  `reason` "sent to the agent as a tool error". Deny sends both (the JSON on stdout, the
  reason on stderr, exit 2). Allow and ask are the only other answers and BeforeTool has no
  ask, so ask is a deny; allow prints nothing (no `decision`, so the normal confirmation runs).
- GitHub Copilot (https://docs.github.com/en/copilot/reference/hooks-reference,
  "`preToolUse` decision control", "Exit codes for command hooks"): only stdout JSON
  `permissionDecision: "deny"` with `permissionDecisionReason` blocks, on exit 0; exit 2 is
  "treated as a warning" for preToolUse and every other code fails open. `"ask"` is a deny
  under the cloud agent and, in the older configuration page, "only deny is currently
  processed", so ask is a deny. Allow prints nothing ("Empty output uses default behavior").
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from .decide import ALLOW, ASK, DENY, Decision
from .payload import CLAUDE, CODEX, COPILOT, GEMINI

BLOCKING_EXIT = {CLAUDE: 2, CODEX: 2, GEMINI: 2, COPILOT: 0}
_NAMES = {CODEX: "Codex", GEMINI: "Gemini CLI", COPILOT: "Copilot"}


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
        name = _NAMES.get(agent, "this agent's")
        action = DENY
        reason = (
            f"This call needs a person's confirmation, which {name} hooks cannot ask for, so it is blocked. {reason}"
        )
    if action == ALLOW:
        return Answer("", "", 0, {})
    if agent == GEMINI:
        return _with_json({"decision": DENY, "reason": reason}, reason, BLOCKING_EXIT[GEMINI])
    if agent == COPILOT:
        return _with_json({"permissionDecision": DENY, "permissionDecisionReason": reason}, reason, 0)
    body = _pre_tool_use(action, reason, event if event == "PreToolUse" else "PreToolUse")
    if action == ASK:  # Claude only: a person confirms
        return Answer(json.dumps(body) + "\n", "", 0, body)
    if agent == CLAUDE:
        return _with_json(body, reason, BLOCKING_EXIT[CLAUDE])
    return Answer("", reason + "\n", BLOCKING_EXIT.get(agent, 2), body)


def _with_json(body: dict[str, Any], reason: str, code: int) -> Answer:
    return Answer(json.dumps(body) + "\n", reason + "\n", code, body)
