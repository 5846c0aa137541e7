"""Did the agent's latest message justify the sensitive write it is retrying?

The transcript is JSON lines (Claude Code: `{"type": "assistant", "message": {"content":
[{"type": "text", "text": ...}]}}`; Codex: `{"payload": {"type": "message", "role":
"assistant", "content": [{"type": "output_text", "text": ...}]}}`). The assistant text
since the last user message is read in either form, and the justification is checked with
the commit gate's own rules (justify.parse_trailers, justify.resolve_evidence): a
`file:line` that resolves in the working tree, a reason, and a rollback.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any

MAX_TAIL_BYTES = 2 * 1024 * 1024  # only the end of a long transcript is read
_GUARD_FORM = re.compile(r"^\W*(?:\d+\s*[.)]\s*)?(justification|rollback)\s*:\s*(.+?)\s*$", re.I | re.M)


# Where each agent keeps its transcripts: Claude Code `~/.claude/projects/<project>/<session>.jsonl`,
# Codex `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (docs/guard.md cites both).
TRANSCRIPT_ROOTS = {"claude": (".claude", "projects"), "codex": (".codex", "sessions")}


def transcript_root(agent: str, home: str | None) -> str | None:
    """The directory `agent`'s transcripts live under, or None: the guard reads none."""
    parts = TRANSCRIPT_ROOTS.get(agent)
    return os.path.realpath(os.path.join(home, *parts)) if parts and home else None


def latest_assistant_text(transcript: str, root: str | None = None) -> str | None:
    """Assistant text after the last user message; None if the transcript cannot be read.

    Only a regular file under `root` is read (never a FIFO, a device or an endless file: the
    payload names the path, and the job can make it anything), and only its last bytes."""
    from .safeio import read_regular

    real = os.path.realpath(transcript)
    if root is None or os.path.commonpath([real, root]) != root:
        return None
    data = read_regular(real, MAX_TAIL_BYTES, tail=True)
    if data is None:
        return None
    raw = data.decode("utf-8", "replace")
    texts: list[str] = []
    for line in raw.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        role = _role(item)
        if role == "user" and not _is_tool_result(item):
            texts = []
        elif role == "assistant":
            texts += list(_texts(item))
    return "\n".join(texts)


def _message(item: Any) -> Any:
    if isinstance(item, dict):
        for key in ("message", "payload"):
            inner = item.get(key)
            if isinstance(inner, dict) and ("role" in inner or "content" in inner):
                return inner
    return item


def _role(item: Any) -> str | None:
    msg = _message(item)
    if isinstance(msg, dict) and isinstance(msg.get("role"), str):
        return str(msg["role"])
    return item.get("type") if isinstance(item, dict) and item.get("type") in ("user", "assistant") else None


def _is_tool_result(item: Any) -> bool:
    content = _message(item).get("content") if isinstance(_message(item), dict) else None
    return isinstance(content, list) and any(isinstance(c, dict) and c.get("type") == "tool_result" for c in content)


def _texts(item: Any) -> Iterator[str]:
    content = _message(item).get("content") if isinstance(_message(item), dict) else None
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]


def check(text: str | None, path: str, line_count: Callable[[str], int | None]) -> str | None:
    """None when `text` justifies `path` with resolving evidence and a rollback; else what is missing."""
    from ..checks.justify import parse_trailers, resolve_evidence

    if text is None:
        return "your transcript could not be read to find the justification"
    evidence, reason, rollback = _guard_form(text)
    claim = next((c for c in parse_trailers([text]) if c.path == path), None)
    if claim is not None and claim.evidence:
        evidence, reason, rollback = claim.evidence, claim.reason, claim.rollback or rollback
    if not evidence:
        return f"no 'JUSTIFICATION: <file>:<line> <why>' line for {path} was found in your latest message"
    problem = resolve_evidence(evidence, line_count)
    if problem is not None:
        return problem
    if not reason:
        return f"the justification {evidence!r} gives no reason after the file:line"
    if not rollback:
        return f"no 'ROLLBACK: <command>' line for {path} was found in your latest message"
    return None


def _guard_form(text: str) -> tuple[str | None, str, str]:
    evidence, reason, rollback = None, "", ""
    for key, value in _GUARD_FORM.findall(text):
        if key.lower() == "rollback":
            rollback = value
            continue
        first, _, rest = value.strip("`").partition(" ")
        if ":" in first:
            evidence, reason = first.strip("`'\""), rest.strip()
    return evidence, reason, rollback
