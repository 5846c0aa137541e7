"""OpenAI Codex CLI: its hook payload and its answer.

Payload (openai/codex, codex-rs/hooks/src/events/pre_tool_use.rs and
schema/generated/pre-tool-use.command.input.schema.json): Claude Code's common fields plus
`turn_id`; `tool_name` is `Bash` for shell calls and `apply_patch` for file edits, and
`tool_input.command` holds the shell command (a string, or an argv list) or the raw patch.

Answer (pre_tool_use.rs): exit 2 blocks with the stderr text as the reason (empty stderr
does not block); JSON `permissionDecision: "deny"` blocks; `"ask"` and `additionalContext`
are unsupported and fail open, so ask is answered as deny and no other field is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..answer import ALLOWED, Answer, ask_as_deny, pre_tool_use
from ..decide import ALLOW, Decision
from ..payload import CODEX, OTHER, SHELL, PayloadError, ToolCall, patch_targets, read, req, writes
from .claude import ENVELOPE as CLAUDE_ENVELOPE

NAME = "Codex"
BLOCKING_EXIT = 2
ENVELOPE = CLAUDE_ENVELOPE._replace(turn="turn_id")


def normalise(data: Mapping[str, Any]) -> ToolCall:
    return read(CODEX, ENVELOPE, data, tools)


def tools(call: ToolCall, ti: Mapping[str, Any]) -> ToolCall:
    if call.tool == "apply_patch":
        from .. import patch

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


def answer(decision: Decision, event: str) -> Answer:
    decision = ask_as_deny(decision, NAME)
    if decision.action == ALLOW:
        return ALLOWED
    return Answer("", decision.reason + "\n", BLOCKING_EXIT, pre_tool_use(decision.action, decision.reason))
