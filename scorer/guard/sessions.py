"""The fence pinned to the session: the repository a session started in, recorded on its first call.

Every later call of the session is judged by that repository's manifest, wherever the call's
own `cwd` is: a call from another repository is judged by the session's fence (its writes
are outside it), and a nested repository the job makes inside the fence (`cd src/x && git
init`, with a manifest of its own) judges nothing. The record lives beside the per-turn state
but per user (`$XDG_STATE_HOME/score-diff/guard-sessions.json`, else ~/.local/state/...),
because the call that must be judged by it may come from another repository's directory.
It is bounded, read only when it is a regular file, and rewritten atomically under a lock
(safeio.py). A session with no id (an agent that sends none) is not pinned.
"""

from __future__ import annotations

import os
import time

from .. import jsontext
from ..records import NamedTuple

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_SESSIONS = 256
MAX_BYTES = 1024 * 1024


class Pinned(NamedTuple):
    root: str
    git_dir: str


def state_path(environ: Mapping[str, str]) -> str | None:
    base = environ.get("XDG_STATE_HOME") or (
        os.path.join(environ["HOME"], ".local", "state") if environ.get("HOME") else None
    )
    return os.path.join(base, "score-diff", "guard-sessions.json") if base else None


def _load(path: str) -> dict[str, object]:
    from .safeio import read_regular

    raw = read_regular(path, MAX_BYTES)
    try:
        data = jsontext.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def pinned(session: str, environ: Mapping[str, str]) -> Pinned | None:
    """The repository this session started in, if it was recorded."""
    path = state_path(environ)
    if not session or path is None:
        return None
    entry = _load(path).get(session)
    if isinstance(entry, dict) and isinstance(entry.get("root"), str) and isinstance(entry.get("git_dir"), str):
        return Pinned(entry["root"], entry["git_dir"])
    return None


def pin(session: str, found: Pinned, environ: Mapping[str, str]) -> None:
    """Record the session's repository on its first call (a record already there wins)."""
    from .safeio import locked, write_replacing

    path = state_path(environ)
    if not session or path is None:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with locked(path + ".lock", "the guard's session record"):
        data = _load(path)
        if session in data:
            return
        data[session] = {"root": found.root, "git_dir": found.git_dir, "at": time.time()}
        if len(data) > MAX_SESSIONS:
            for key in sorted(data, key=lambda k: _at(data[k]))[: len(data) - MAX_SESSIONS]:
                del data[key]
        write_replacing(path, jsontext.dumps(data, sort_keys=True).encode("utf-8"))


def _at(entry: object) -> float:
    value = entry.get("at", 0) if isinstance(entry, dict) else 0
    return float(value) if isinstance(value, (int, float)) else 0.0


def nested_repository(cwd: str, root: str) -> str | None:
    """The directory of a repository nested inside `root` that holds `cwd` (a `.git` below the root), if any."""
    real, top = os.path.realpath(cwd), os.path.realpath(root)
    if real == top or not real.startswith(top.rstrip(os.sep) + os.sep):
        return None
    probe = real
    while probe != top and probe.startswith(top):
        if os.path.lexists(os.path.join(probe, ".git")):
            return probe
        probe = os.path.dirname(probe)
    return None
