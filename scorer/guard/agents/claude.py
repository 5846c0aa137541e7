"""Claude Code: its hook payload and its answer.

Payload (https://code.claude.com/docs/en/hooks, "Common input fields", "PreToolUse
input"): `session_id`, `prompt_id` (v2.1.196+), `transcript_path`, `cwd`,
`hook_event_name`, `tool_name`, `tool_input`; `Write {file_path, content}`,
`Edit {file_path, old_string, new_string, replace_all}`, `Bash {command}`,
`PowerShell {command}`; the older `MultiEdit {file_path, edits[{old_string, new_string}]}`
and `NotebookEdit {notebook_path, new_source, cell_id, cell_type, edit_mode}`.

Answer ("Exit code 2", "PreToolUse decision control", "HTTP response handling"): exit 2
blocks whatever stdout says and Claude reads the JSON `permissionDecisionReason`, else
stderr; exit 1 or a crash does not block. Deny is `hookSpecificOutput.permissionDecision =
"deny"` plus exit 2; ask is the same with `"ask"` and exit 0; allow prints nothing (the
normal permission flow decides), and an HTTP hook gets `{}`.
"""

from __future__ import annotations

from ..answer import ALLOWED, Answer, pre_tool_use, with_json
from ..decide import ALLOW, ASK, Decision
from ..payload import (
    CLAUDE,
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
    text,
    writes,
)

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

NAME = "Claude Code"
BLOCKING_EXIT = 2
ENVELOPE = Envelope(
    frozenset({"PreToolUse"}),
    frozenset({"UserPromptSubmit"}),
    "session_id",
    "prompt_id",
    "transcript_path",
    "tool_name",
    "tool_input",
)
# Tools that write nothing a hook could see (docs/guard.md has the table).
READ_ONLY = frozenset(
    {
        "Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "Agent", "Task", "TodoWrite",
        "AskUserQuestion", "ExitPlanMode", "NotebookRead", "BashOutput", "KillShell", "KillBash",
    }
)  # fmt: skip


def normalise(data: Mapping[str, Any]) -> ToolCall:
    return read(CLAUDE, ENVELOPE, data, tools)


def tools(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    tool = call.tool
    if tool == "Write":
        return writes(call, [Target(req(ti, "file_path", tool), "write", req(ti, "content", tool))])
    if tool == "Edit":
        req(ti, "old_string", tool)
        return writes(call, [Target(req(ti, "file_path", tool), "edit", req(ti, "new_string", tool))])
    if tool == "MultiEdit":
        return writes(call, [Target(req(ti, "file_path", tool), "edit", _multi_edit(ti))])
    if tool == "NotebookEdit":
        mode = text(ti, "edit_mode", tool, required=False) or "replace"
        source = text(ti, "new_source", tool, required=mode != "delete") or ""
        if mode not in ("replace", "insert", "delete"):
            raise PayloadError(f"{tool}.edit_mode {mode[:40]!r} is not replace, insert or delete")
        return writes(call, [Target(req(ti, "notebook_path", tool), "edit", source)])
    if tool == "Bash":
        return call._replace(kind=SHELL, command=req(ti, "command", tool))
    if tool == "PowerShell":
        return call._replace(kind=OPAQUE, note="PowerShell commands cannot be read by the guard's shell parser")
    return call._replace(kind=READ if tool in READ_ONLY else OTHER)


def _multi_edit(ti: Mapping[str, Any]) -> str:
    edits = ti.get("edits")
    if not isinstance(edits, list) or not edits:
        raise PayloadError("MultiEdit.edits is not a non-empty list")
    added = []
    for i, edit in enumerate(edits):
        if not isinstance(edit, dict):
            raise PayloadError(f"MultiEdit.edits[{i}] is not an object")
        added.append(req(edit, "new_string", f"MultiEdit.edits[{i}]"))
    return "\n".join(added)


# PreToolUse decision control: `"permissionDecision": "allow"` with `updatedInput` "modifies the
# tool's input parameters before execution" (https://code.claude.com/docs/en/hooks, "PreToolUse
# decision control"; anthropics/claude-code#9185): an unknown Bash command runs in the job's jail.
REWRITES_SHELL = True


def answer(decision: Decision, event: str) -> Answer:
    if decision.action == ALLOW and decision.rewrite is not None:
        body = pre_tool_use(ALLOW, decision.reason)
        body["hookSpecificOutput"]["updatedInput"] = {"command": decision.rewrite}
        return Answer(json_line(body), "", 0, body)
    if decision.action == ALLOW:
        return ALLOWED
    body = pre_tool_use(decision.action, decision.reason)
    if decision.action == ASK:  # a person confirms
        return Answer(json_line(body), "", 0, body)
    return with_json(body, decision.reason, BLOCKING_EXIT)


def json_line(body: dict[str, Any]) -> str:
    from ... import jsontext

    return jsontext.dumps(body) + "\n"
