"""GitHub Copilot (CLI and cloud agent): its hook payload and its answer.

Every field read here is documented by GitHub:

- https://docs.github.com/en/copilot/reference/hooks-reference, "Hook event input payloads":
  the camelCase `preToolUse {sessionId, timestamp, cwd, toolName, toolArgs}` and
  `userPromptSubmitted {sessionId, timestamp, cwd, prompt}`, the form selected by the
  camelCase event names `score-diff guard install` writes; the VS Code compatible
  `PreToolUse {hook_event_name, session_id, cwd, tool_name, tool_input}` when the event is
  configured in PascalCase. "Tool names for hook matching": `bash`, `powershell`, `create`,
  `edit`, `view`, `glob`, `grep`, `web_fetch`, `ask_user`, `task`.
- https://docs.github.com/en/copilot/reference/hooks-configuration, "Pre-tool use hook":
  `toolArgs` is a "JSON string containing the tool's arguments" (the newer reference types
  it `unknown`, "parsed from JSON string when possible", so both are read); `bash` has
  `command` (and `description`); `edit` names its file in `path`.

What the documentation does not give is where `edit` keeps the text it adds, or any
argument of `create`. So for `edit` every string argument but `path` is checked as content
it might add, and `create`, whose target is not documented, is treated as an unknown tool:
denied unless the manifest lists it in `guard_allowed_tools` (docs/guard.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..answer import ALLOWED, Answer, ask_as_deny, with_json
from ..decide import ALLOW, DENY, Decision
from ..payload import (
    COPILOT,
    OPAQUE,
    OTHER,
    READ,
    SHELL,
    Envelope,
    PayloadError,
    Target,
    ToolCall,
    read,
    req,
    writes,
)

NAME = "Copilot"
BLOCKING_EXIT = 0  # only the JSON deny blocks, on exit 0
# https://docs.github.com/en/copilot/reference/hooks-reference ("Hook event input payloads"):
# the VS Code compatible form, selected by the PascalCase event name; the camelCase form below.
ENVELOPE = Envelope(
    frozenset({"PreToolUse"}), frozenset({"UserPromptSubmit"}), "session_id", None, None, "tool_name", "tool_input"
)


def normalise(data: Mapping[str, Any]) -> ToolCall:
    if "hook_event_name" not in data:
        env, found = camel_case(data)
        return read(COPILOT, env, found, tools)
    return read(COPILOT, ENVELOPE, data, tools)


def answer(decision: Decision, event: str) -> Answer:
    """("`preToolUse` decision control", "Exit codes for command hooks"): only stdout JSON
    `permissionDecision: "deny"` with `permissionDecisionReason` blocks, on exit 0; exit 2 is
    "treated as a warning" and every other code fails open. `"ask"` is a deny under the
    cloud agent ("only deny is currently processed" in the older page), so ask is a deny.
    Allow prints nothing ("Empty output uses default behavior")."""
    decision = ask_as_deny(decision, NAME)
    if decision.action == ALLOW:
        return ALLOWED
    body = {"permissionDecision": DENY, "permissionDecisionReason": decision.reason}
    return with_json(body, decision.reason, BLOCKING_EXIT)


CAMEL_CASE = Envelope(
    frozenset({"preToolUse"}), frozenset({"userPromptSubmitted"}), "sessionId", None, None, "toolName", "toolArgs"
)

# https://docs.github.com/en/copilot/reference/hooks-reference ("Tool names for hook matching")
READ_ONLY = frozenset({"view", "glob", "grep", "web_fetch", "ask_user"})


def camel_case(data: Mapping[str, Any]) -> tuple[Envelope, dict[str, Any]]:
    """The camelCase payload, which names no event: a tool call has `toolName`, a prompt `prompt`."""
    found = dict(data)
    if "toolName" in found:
        found["hook_event_name"] = "preToolUse"
        args = found.get("toolArgs")
        if isinstance(args, str):
            try:
                found["toolArgs"] = json.loads(args)
            except (ValueError, RecursionError) as exc:
                raise PayloadError(f"payload.toolArgs is not valid JSON ({str(exc)[:120]})") from exc
    elif "prompt" in found:
        found["hook_event_name"] = "userPromptSubmitted"
    else:  # the guard is installed for those two events only
        raise PayloadError("payload has neither toolName nor prompt")
    return CAMEL_CASE, found


def tools(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    tool = call.tool
    if tool == "bash":
        return call._replace(kind=SHELL, command=req(ti, "command", tool))
    if tool == "edit":
        path = req(ti, "path", tool)
        if path.startswith("~") or "\0" in path:  # how Copilot reads these is not documented
            return call._replace(kind=OPAQUE, note=f"edit names {path[:200]!r}; give path as an absolute path")
        return writes(call, [Target(path, "edit", _added(ti))])
    if tool == "create":  # no argument documented: an unknown tool, allowed only if the manifest lists it
        return call._replace(kind=OTHER)
    if tool == "powershell":
        return call._replace(kind=OPAQUE, note="PowerShell commands cannot be read by the guard's shell parser")
    return call._replace(kind=READ if tool in READ_ONLY else OTHER)


def _added(ti: Mapping[str, Any]) -> str:
    """Every string argument but the path: the text the edit adds is one of them."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    walk({k: v for k, v in ti.items() if k != "path"})
    return "\n".join(found)
