"""Hook payloads, normalised: one `ToolCall` per payload, whatever the agent.

Only fields confirmed in each agent's documentation are read (docs/guard.md cites them):

- Claude Code (https://code.claude.com/docs/en/hooks, "Common input fields", "PreToolUse
  input"): `session_id`, `prompt_id` (v2.1.196+), `transcript_path`, `cwd`,
  `hook_event_name`, `tool_name`, `tool_input`; `Write {file_path, content}`,
  `Edit {file_path, old_string, new_string, replace_all}`, `Bash {command}`,
  `PowerShell {command}`; the older `MultiEdit {file_path, edits[{old_string, new_string}]}`
  and `NotebookEdit {notebook_path, new_source, cell_id, cell_type, edit_mode}`.
- Codex (openai/codex, codex-rs/hooks/src/events/pre_tool_use.rs and
  schema/generated/pre-tool-use.command.input.schema.json): the same common fields plus
  `turn_id`; `tool_name` is `Bash` for shell calls and `apply_patch` for file edits, and
  `tool_input.command` holds the shell command or the raw patch.

Anything else about a write tool is refused (PayloadError), never guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

CLAUDE, CODEX = "claude", "codex"
AGENTS = (CLAUDE, CODEX)

# What a call is, for the decision.
WRITE, SHELL, READ, OTHER, PROMPT, EVENT, OPAQUE = "write", "shell", "read", "other", "prompt", "event", "opaque"

# Tools that write nothing a hook could see, by agent (docs/guard.md has the table).
READ_ONLY_TOOLS: Mapping[str, frozenset[str]] = {
    CLAUDE: frozenset(
        {
            "Read",
            "Glob",
            "Grep",
            "LS",
            "WebFetch",
            "WebSearch",
            "Agent",
            "Task",
            "TodoWrite",
            "AskUserQuestion",
            "ExitPlanMode",
            "NotebookRead",
            "BashOutput",
            "KillShell",
            "KillBash",
        }
    ),
    CODEX: frozenset(),
}
MAX_PAYLOAD_BYTES = 32 * 1024 * 1024  # a payload larger than this is refused, not parsed


class PayloadError(ValueError):
    """A payload the guard cannot read with certainty; the call is denied."""


class Target(NamedTuple):
    """One path a call would write, as the call names it.

    `op` is write, edit, delete, move-from, move-to, mode or link; `content` is the text the
    call adds to the path (None when the call adds nothing the guard can see); `cwd` is the
    directory a relative path is resolved against, when not the call's own.
    """

    path: str
    op: str
    content: str | None = None
    cwd: str | None = None
    link_target: str | None = None


class ToolCall(NamedTuple):
    agent: str
    event: str
    tool: str
    session: str
    turn: str | None  # the agent's own prompt/turn id, where it sends one
    cwd: str
    transcript: str | None
    kind: str
    targets: tuple[Target, ...] = ()
    command: str | None = None  # the shell command, for SHELL calls
    note: str = ""  # for OPAQUE calls: why nothing can be established


def parse_json(raw: bytes) -> dict[str, Any]:
    """The payload object; PayloadError for anything that is not one JSON object."""
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"payload of {len(raw)} bytes is larger than {MAX_PAYLOAD_BYTES}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nesting too deep
        raise PayloadError(f"payload is not valid JSON ({str(exc)[:120]})") from exc
    if not isinstance(data, dict):
        raise PayloadError("payload is not a JSON object")
    return data


def _text(obj: Mapping[str, Any], key: str, where: str, required: bool = True) -> str | None:
    value = obj.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise PayloadError(f"{where}.{key} is {type(value).__name__}, not a string")
    return value


def normalise(agent: str, data: Mapping[str, Any]) -> ToolCall:
    """One payload as a ToolCall; PayloadError when a field the decision needs is missing or mistyped."""
    if agent not in AGENTS:
        raise PayloadError(f"unknown agent {agent!r}; known: {', '.join(AGENTS)}")
    event = _text(data, "hook_event_name", "payload", required=False) or ("PreToolUse" if "tool_name" in data else "")
    if not event:
        raise PayloadError("payload has neither hook_event_name nor tool_name")
    cwd = _text(data, "cwd", "payload")
    assert cwd is not None
    if not _absolute(cwd):
        raise PayloadError(f"payload.cwd {cwd[:200]!r} is not an absolute path")
    turn_key = "prompt_id" if agent == CLAUDE else "turn_id"
    base = ToolCall(
        agent=agent,
        event=event,
        tool="",
        cwd=cwd,
        session=_text(data, "session_id", "payload", required=False) or "",
        turn=_text(data, turn_key, "payload", required=False) or None,
        transcript=_text(data, "transcript_path", "payload", required=False) or None,
        kind=PROMPT if event == "UserPromptSubmit" else EVENT,
    )
    if event != "PreToolUse":
        return base
    tool = _text(data, "tool_name", "payload")
    assert tool is not None
    tool_input = data.get("tool_input")
    if not isinstance(tool_input, dict):
        raise PayloadError(f"payload.tool_input is {type(tool_input).__name__}, not an object")
    return _TOOLS[agent](base._replace(tool=tool), tool_input)


def _absolute(path: str) -> bool:
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


def _claude(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    tool = call.tool
    if tool == "Write":
        return _writes(call, [Target(_req(ti, "file_path", tool), "write", _req(ti, "content", tool))])
    if tool == "Edit":
        _req(ti, "old_string", tool)
        return _writes(call, [Target(_req(ti, "file_path", tool), "edit", _req(ti, "new_string", tool))])
    if tool == "MultiEdit":
        return _writes(call, [Target(_req(ti, "file_path", tool), "edit", _multi_edit(ti))])
    if tool == "NotebookEdit":
        mode = _text(ti, "edit_mode", tool, required=False) or "replace"
        source = _text(ti, "new_source", tool, required=mode != "delete") or ""
        if mode not in ("replace", "insert", "delete"):
            raise PayloadError(f"{tool}.edit_mode {mode[:40]!r} is not replace, insert or delete")
        return _writes(call, [Target(_req(ti, "notebook_path", tool), "edit", source)])
    if tool == "Bash":
        return call._replace(kind=SHELL, command=_req(ti, "command", tool))
    if tool == "PowerShell":
        return call._replace(kind=OPAQUE, note="PowerShell commands cannot be read by the guard's shell parser")
    return call._replace(kind=READ if tool in READ_ONLY_TOOLS[CLAUDE] else OTHER)


def _multi_edit(ti: Mapping[str, Any]) -> str:
    edits = ti.get("edits")
    if not isinstance(edits, list) or not edits:
        raise PayloadError("MultiEdit.edits is not a non-empty list")
    added = []
    for i, edit in enumerate(edits):
        if not isinstance(edit, dict):
            raise PayloadError(f"MultiEdit.edits[{i}] is not an object")
        added.append(_req(edit, "new_string", f"MultiEdit.edits[{i}]"))
    return "\n".join(added)


def _codex(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    if call.tool == "apply_patch":
        from . import patch

        text = _req(ti, "command", "apply_patch")
        try:
            files = patch.parse_patch(text)
        except patch.PatchError as exc:
            raise PayloadError(f"apply_patch: {exc}") from exc
        return _writes(call, patch_targets(files, None))
    if call.tool == "Bash":
        command = ti.get("command")
        if isinstance(command, list) and all(isinstance(a, str) for a in command):
            import shlex

            command = shlex.join(command)
        if not isinstance(command, str):
            raise PayloadError(f"Bash.command is {type(command).__name__}, not a string")
        return call._replace(kind=SHELL, command=command)
    return call._replace(kind=OTHER)


def patch_targets(files: list[Any], cwd: str | None) -> list[Target]:
    """Both sides of a move, deletions and the added lines of every file section."""
    from .patch import ADD, DELETE

    found = []
    for f in files:
        if f.op == DELETE:
            found.append(Target(f.path, "delete", None, cwd))
        elif f.move_to:
            found += [Target(f.path, "move-from", None, cwd), Target(f.move_to, "move-to", f.added, cwd)]
        else:
            found.append(Target(f.path, "write" if f.op == ADD else "edit", f.added, cwd))
    return found


def _req(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = _text(obj, key, where)
    assert value is not None
    return value


def _writes(call: ToolCall, targets: list[Target]) -> ToolCall:
    return call._replace(kind=WRITE, targets=tuple(targets))


_TOOLS = {CLAUDE: _claude, CODEX: _codex}
