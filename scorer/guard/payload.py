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
- Gemini CLI and GitHub Copilot: their envelopes are below (ENVELOPES) and their tools in
  gemini.py and copilot.py, each with the page that documents it. Cursor is not read: its
  payload fields could not be confirmed in Cursor's own documentation (docs/guard.md).

Anything else about a write tool is refused (PayloadError), never guessed at.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

CLAUDE, CODEX, GEMINI, COPILOT = "claude", "codex", "gemini", "copilot"
AGENTS = (CLAUDE, CODEX, GEMINI, COPILOT)

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


class Envelope(NamedTuple):
    """Where an agent's payload keeps the fields every call has (None: the agent sends none)."""

    tool_events: frozenset[str]  # hook events that are a tool call about to run
    prompt_events: frozenset[str]  # hook events that start a new turn
    session: str
    turn: str | None
    transcript: str | None  # only where the transcript's format is documented (transcript.py)
    tool: str
    tool_input: str


_CLAUDE_LIKE = Envelope(
    frozenset({"PreToolUse"}),
    frozenset({"UserPromptSubmit"}),
    "session_id",
    "prompt_id",
    "transcript_path",
    "tool_name",
    "tool_input",
)
ENVELOPES: Mapping[str, Envelope] = {
    CLAUDE: _CLAUDE_LIKE,
    CODEX: _CLAUDE_LIKE._replace(turn="turn_id"),
    # https://geminicli.com/docs/hooks/reference ("Base input schema": session_id,
    # transcript_path, cwd, hook_event_name; "BeforeTool": tool_name, tool_input;
    # "BeforeAgent": fires after the user submits a prompt). No turn id is sent, and the
    # transcript's format is not documented, so it is not read.
    GEMINI: Envelope(
        frozenset({"BeforeTool"}), frozenset({"BeforeAgent"}), "session_id", None, None, "tool_name", "tool_input"
    ),
    # https://docs.github.com/en/copilot/reference/hooks-reference ("Hook event input
    # payloads", the VS Code compatible form selected by the PascalCase event name); the
    # camelCase form is read by copilot.envelope.
    COPILOT: Envelope(
        frozenset({"PreToolUse"}), frozenset({"UserPromptSubmit"}), "session_id", None, None, "tool_name", "tool_input"
    ),
}


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
    workdir: str | None = None  # where a SHELL command runs, when the call names a directory of its own
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


def text(obj: Mapping[str, Any], key: str, where: str, required: bool = True) -> str | None:
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
    env = ENVELOPES[agent]
    if agent == COPILOT and "hook_event_name" not in data:
        from . import copilot

        env, data = copilot.camel_case(data)
    event = text(data, "hook_event_name", "payload", required=False) or (
        min(env.tool_events) if env.tool in data else ""
    )
    if not event:
        raise PayloadError(f"payload has neither hook_event_name nor {env.tool}")
    cwd = text(data, "cwd", "payload")
    assert cwd is not None
    if not absolute(cwd):
        raise PayloadError(f"payload.cwd {cwd[:200]!r} is not an absolute path")
    base = ToolCall(
        agent=agent,
        event=event,
        tool="",
        cwd=cwd,
        session=text(data, env.session, "payload", required=False) or "",
        turn=(text(data, env.turn, "payload", required=False) or None) if env.turn else None,
        transcript=(text(data, env.transcript, "payload", required=False) or None) if env.transcript else None,
        kind=PROMPT if event in env.prompt_events else EVENT,
    )
    if event not in env.tool_events:
        return base
    tool = text(data, env.tool, "payload")
    assert tool is not None
    tool_input = data.get(env.tool_input)
    if not isinstance(tool_input, dict):
        raise PayloadError(f"payload.{env.tool_input} is {type(tool_input).__name__}, not an object")
    return _tools(agent)(base._replace(tool=tool), tool_input)


def absolute(path: str) -> bool:
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


def _claude(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
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
    return call._replace(kind=READ if tool in READ_ONLY_TOOLS[CLAUDE] else OTHER)


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


def _codex(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    if call.tool == "apply_patch":
        from . import patch

        raw = req(ti, "command", "apply_patch")
        try:
            files = patch.parse_patch(raw)
        except patch.PatchError as exc:
            raise PayloadError(f"apply_patch: {exc}") from exc
        return writes(call, patch_targets(files, None))
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


def req(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = text(obj, key, where)
    assert value is not None
    return value


def writes(call: ToolCall, targets: list[Target]) -> ToolCall:
    return call._replace(kind=WRITE, targets=tuple(targets))


def _tools(agent: str) -> Callable[[ToolCall, Mapping[str, Any]], ToolCall]:
    if agent == GEMINI:
        from .gemini import tools as gemini

        return gemini
    if agent == COPILOT:
        from .copilot import tools as copilot

        return copilot
    return _claude if agent == CLAUDE else _codex
