"""A cache under the git directory: JSON values stored by key, each entry checked before it is used.

`Store(git_dir, kind).get(key)` returns the value `put(key, value)` stored, or None: an entry
that is missing, unreadable, not a regular file, owned by another user or writable by anyone
else (the file or its directory), whose content digest does not hold, or that was stored for
another key is ignored, never trusted and never an error. A key is a flat mapping of strings
(the base tree, the configuration digest, the runner version, the environment digest, ...);
the entry's file is named by the key's digest, and the full key is stored and compared too.

What the cache holds is as trustworthy as `.git/` itself: the job's user can write there, and
can skip the hooks altogether; CI, which starts from a clean clone with an empty cache, is the
backstop. The verdict record (verdict_record.py) uses the same reading and writing rules.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from .. import jsontext  # json's own C scanner and encoder, without json's import (~1.5 ms)

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
MAX_ENTRY_BYTES = 16 << 20


class Store:
    """One kind of cached value (e.g. "base-tests") under `<git dir>/score-diff/cache/<kind>/`."""

    def __init__(self, git_dir: str, kind: str) -> None:
        self.directory = Path(git_dir, "score-diff", "cache", kind)

    def path(self, key: Mapping[str, str]) -> Path:
        return self.directory / f"{digest(dict(key))}.json"

    def get(self, key: Mapping[str, str]) -> Any | None:
        return read_entry(self.path(key), dict(key))

    def put(self, key: Mapping[str, str], value: Any) -> bool:
        return write_entry(self.path(key), dict(key), value)


def digest(value: Any) -> str:
    """sha256 of `value` as canonical JSON."""
    return hashlib.sha256(jsontext.dumps(value, sort_keys=True, ensure_ascii=True).encode("ascii")).hexdigest()


def write_entry(path: Path, key: dict[str, Any], value: Any) -> bool:
    """Store `value` for `key` at `path` (a temporary file renamed over it); False if it could not be."""
    body = {"format": FORMAT, "key": key, "value": value}
    try:
        data = jsontext.dumps({**body, "sha256": digest(body)}, ensure_ascii=True).encode("ascii")
    except (TypeError, ValueError):
        return False
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True


def read_entry(path: Path, key: dict[str, Any]) -> Any | None:
    """The value stored at `path` for exactly `key`, if the entry is ours and whole; else None."""
    try:
        if not ours(os.lstat(path.parent)):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
        try:
            st = os.fstat(fd)
            if not (stat.S_ISREG(st.st_mode) and ours(st)) or st.st_size > MAX_ENTRY_BYTES:
                return None
            with os.fdopen(os.dup(fd), "rb") as fh:
                doc = jsontext.loads(fh.read())
        finally:
            os.close(fd)
        body = {name: doc[name] for name in ("format", "key", "value")}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if doc.get("sha256") != digest(body) or body["format"] != FORMAT or body["key"] != key:
        return None
    return body["value"]


def ours(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else: anything else is foreign."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
