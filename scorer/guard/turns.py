"""Per-session, per-turn state for the once-per-path sensitive prompt, kept in the git directory.

A turn is the agent's own prompt id (Claude Code `prompt_id`, Codex `turn_id`) where the
payload has one; otherwise it ends at the next UserPromptSubmit for the session, which
bumps a counter. State from an earlier turn is never read as this turn's: when the turn
changes, the session's paths start empty. The file is bounded (sessions, paths per
session) and rewritten atomically under a lock, since hooks for parallel tool calls run
at the same time. The job can write the git directory, so the lock is waited for only
until a deadline and the file is read only when it is a regular file (safeio.py).
"""

from __future__ import annotations

import os
import time

from .. import jsontext
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from typing import Any

    from .safeio import Lock

MAX_SESSIONS = 64
MAX_PATHS = 256
MAX_STATE_BYTES = 4 * 1024 * 1024  # a larger state file is not read (grants nothing)


class Turn(NamedTuple):
    session: str
    turn: str
    prompted: frozenset[str] = frozenset()
    granted: frozenset[str] = frozenset()


def state_path(git_dir: str) -> str:
    return os.path.join(git_dir, "score-diff", "guard-turns.json")  # os.path: pathlib is no import of the hook's


def _locked(path: str) -> Lock:
    """The state's lock, waited for until safeio's deadline: the job can hold it itself."""
    from .safeio import locked

    os.makedirs(os.path.dirname(path), exist_ok=True)
    return locked(path + ".lock", "the guard's turn-state")


def _load(path: str) -> dict[str, Any]:
    from .safeio import read_regular

    raw = read_regular(path, MAX_STATE_BYTES)
    try:
        data = jsontext.loads(raw.decode("utf-8")) if raw is not None else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}  # no state (or a damaged one) grants nothing: every sensitive path prompts again
    return data if isinstance(data, dict) else {}


def _save(path: str, data: dict[str, Any]) -> None:
    from .safeio import write_replacing

    if len(data) > MAX_SESSIONS:
        for key in sorted(data, key=lambda k: data[k].get("at", 0))[: len(data) - MAX_SESSIONS]:
            del data[key]
    write_replacing(path, jsontext.dumps(data, sort_keys=True).encode("utf-8"))


def _entry(data: dict[str, Any], session: str) -> dict[str, Any]:
    entry = data.get(session)
    if not isinstance(entry, dict):
        entry = {"count": 0, "turn": "", "prompted": [], "granted": []}
    return entry


def _turn_id(entry: dict[str, Any], given: str | None) -> str:
    return f"id:{given}" if given else f"n:{int(entry.get('count', 0))}"


def current(git_dir: str, session: str, given: str | None) -> Turn:
    """This session's turn as stored; empty when the stored turn is another one."""
    entry = _entry(_load(state_path(git_dir)), session)
    turn = _turn_id(entry, given)
    if entry.get("turn") != turn:
        return Turn(session, turn)
    return Turn(session, turn, frozenset(_strings(entry.get("prompted"))), frozenset(_strings(entry.get("granted"))))


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def new_turn(git_dir: str, session: str) -> None:
    """UserPromptSubmit: the session's next turn starts with nothing prompted or granted."""
    path = state_path(git_dir)
    with _locked(path):
        data = _load(path)
        entry = _entry(data, session)
        data[session] = {
            "count": int(entry.get("count", 0)) + 1,
            "turn": "",
            "prompted": [],
            "granted": [],
            "at": time.time(),
        }
        _save(path, data)


def record(git_dir: str, turn: Turn, prompted: tuple[str, ...], granted: tuple[str, ...]) -> None:
    """Add paths to this turn's state (a turn change since `current` starts it over)."""
    if not prompted and not granted:
        return
    path = state_path(git_dir)
    with _locked(path):
        data = _load(path)
        entry = _entry(data, turn.session)
        same = entry.get("turn") == turn.turn
        old_p = _strings(entry.get("prompted")) if same else []
        old_g = _strings(entry.get("granted")) if same else []
        data[turn.session] = {
            "count": int(entry.get("count", 0)),
            "turn": turn.turn,
            "at": time.time(),
            "prompted": list(dict.fromkeys(old_p + list(prompted)))[-MAX_PATHS:],
            "granted": list(dict.fromkeys(old_g + list(granted)))[-MAX_PATHS:],
        }
        _save(path, data)
