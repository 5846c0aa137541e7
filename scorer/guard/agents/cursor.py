"""Cursor: its hook payload and its answer.

Every field is taken from three sources that agree: Cursor's hooks page
(https://cursor.com/docs/hooks, as far as it could be read: events, JSON over stdio),
Cupcake's Cursor harness reference (eqtylab/cupcake docs/docs/reference/harnesses/cursor.md)
and the `cursor-hooks` npm type definitions (johnlindquist/cursor-hooks src/types.ts).

- Common input: `hook_event_name`, `conversation_id` (the session), `generation_id` (the
  turn), `workspace_roots` (a list of absolute paths).
- `beforeShellExecution`: `command`, `cwd`. `beforeMCPExecution`: `tool_name`,
  `tool_input` (an object, or a JSON string in Cupcake's example), `url` or `command`.
- Answer for both: `{"permission": "allow" | "deny" | "ask", "user_message", "agent_message"}`
  (snake_case, Cupcake: "not camelCase"); exit 2 denies as well, and any other failure fails
  open (cdot65/prisma-airs-cursor-hooks "Cursor Hooks API", "Exit Codes"). Deny sends the
  JSON with exit 2 and the reason on stderr; ask is the JSON on exit 0 (Cursor asks the user).

`afterFileEdit` is fire-and-forget (Cupcake: "Can Block: No"), so the writes of Cursor's own
edit tool cannot be refused at tool time and are left to the commit gate. `preToolUse` and
`sessionStart` are not installed: their payload fields for the edit tools and their answer
could not be confirmed, and `sessionStart` is reported rejected by Cursor's validator
(forum.cursor.com/t/149566, cited by mksglu/context-mode). Any other event is allowed, and
deciding nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..answer import Answer
from ..decide import ALLOW, Decision
from ..payload import CURSOR, EVENT, OTHER, SHELL, PayloadError, ToolCall, absolute, text

NAME = "Cursor"
BLOCKING_EXIT = 2
SHELL_EVENT, MCP_EVENT = "beforeShellExecution", "beforeMCPExecution"


def normalise(data: Mapping[str, Any]) -> ToolCall:
    event = text(data, "hook_event_name", "payload")
    assert event is not None
    base = ToolCall(
        agent=CURSOR,
        event=event,
        tool="",
        session=text(data, "conversation_id", "payload", required=False) or "",
        turn=text(data, "generation_id", "payload", required=False) or None,
        cwd="",
        transcript=None,
        kind=EVENT,
    )
    if event == SHELL_EVENT:
        command = text(data, "command", "payload")
        cwd = text(data, "cwd", "payload", required=False) or ""
        return base._replace(tool="Shell", kind=SHELL, command=command, cwd=cwd if cwd else _root(data))
    if event == MCP_EVENT:
        tool = text(data, "tool_name", "payload")
        return base._replace(tool=f"MCP:{tool}", kind=OTHER, cwd=_root(data))
    roots = data.get("workspace_roots")
    single = roots[0] if isinstance(roots, list) and len(roots) == 1 and isinstance(roots[0], str) else None
    return base._replace(cwd=single if single and absolute(single) else "/")


def _root(data: Mapping[str, Any]) -> str:
    """The one workspace root: where a call without a `cwd` of its own runs."""
    roots = data.get("workspace_roots")
    if not isinstance(roots, list) or len(roots) != 1 or not isinstance(roots[0], str):
        raise PayloadError("payload.workspace_roots does not name exactly one workspace, so its repository is unknown")
    if not absolute(roots[0]):
        raise PayloadError(f"payload.workspace_roots[0] {roots[0][:200]!r} is not an absolute path")
    return str(roots[0])


def answer(decision: Decision, event: str) -> Answer:
    if decision.action == ALLOW:
        body: dict[str, Any] = {"permission": "allow"}
        return Answer(json.dumps(body) + "\n", "", 0, body)
    body = {"permission": decision.action, "user_message": decision.reason, "agent_message": decision.reason}
    if decision.action == "ask":
        return Answer(json.dumps(body) + "\n", "", 0, body)
    return Answer(json.dumps(body) + "\n", decision.reason + "\n", BLOCKING_EXIT, body)
