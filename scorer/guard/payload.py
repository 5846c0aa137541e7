"""Hook payloads, normalised: the guard's neutral envelope (`ToolCall`), whatever the agent.

Each agent's own payload and answer live in a module of its own under `agents/`
(claude, codex, gemini, copilot, cursor), looked up by name (`agents.lookup`); this module
imports none of them. It holds what they share: the `ToolCall` and `Target` records, the
`Envelope` that says where an agent keeps the fields every call has, `read` (the envelope
read into a ToolCall, the tool's own fields left to the agent's module) and the strict
field readers. Only fields confirmed in each agent's documentation are read (each
module cites its pages); anything else about a write tool is refused (PayloadError),
never guessed at.
"""

from __future__ import annotations

from .. import jsontext
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

CLAUDE, CODEX, GEMINI, COPILOT, CURSOR = "claude", "codex", "gemini", "copilot", "cursor"
AGENTS = (CLAUDE, CODEX, GEMINI, COPILOT, CURSOR)

# What a call is, for the decision.
WRITE, SHELL, READ, OTHER, PROMPT, EVENT, OPAQUE = "write", "shell", "read", "other", "prompt", "event", "opaque"

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
        data = jsontext.loads(raw.decode("utf-8"))
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


if TYPE_CHECKING:  # a name for annotations only: Any is not imported at run time
    ToolReader = Callable[[ToolCall, Mapping[str, Any]], ToolCall]


def read(agent: str, env: Envelope, data: Mapping[str, Any], tools: ToolReader) -> ToolCall:
    """The envelope of one payload as a ToolCall, its tool's fields read by `tools`; PayloadError
    when a field the decision needs is missing or mistyped."""
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
    return tools(base._replace(tool=tool), tool_input)


def absolute(path: str) -> bool:
    return path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "\\/")


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
