"""The decision log's journal: each row appended with one `write(2)` before SQLite ever sees it.

A row is one JSON line in `<log>.rows`, opened with O_APPEND so concurrent writers never
interleave inside a line (POSIX: each append lands at the end of the file, atomically with
respect to other appends on a local file system). Folding moves the journal aside
(`<log>.rows.folding`) under a lock, waits for any writer that already holds the old file,
inserts its rows in one transaction keyed by each row's `row_uid`, and only then removes it:
a row the database refuses (locked, corrupt, disk full) stays in the journal, and a fold that
dies after its commit inserts nothing twice.

Standard library only, and no sqlite3: the guard's hook appends a row without importing it.
"""

from __future__ import annotations

import os
import stat

from . import jsontext

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, BinaryIO

# pathlib only where a Path is made: a guard row is appended through journal_name and os (issue 29).

_OPEN_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_OPEN_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
MAX_JOURNAL_BYTES = 64 << 20  # a journal past this is read no further (a log, not a disk filler)


class JournalError(OSError):
    """The journal is not a regular file this process may use."""


def _failure(kind: type[OSError], name: str, message: str, path: str) -> OSError:
    """`kind(errno.NAME, message, path)`; errno is loaded only on a failure, not on every tool call (issue 29)."""
    import errno

    return kind(getattr(errno, name), message, path)


def journal_name(db_path: str | os.PathLike[str]) -> str:
    return f"{os.fspath(db_path)}.rows"


def journal_path(db_path: Path) -> Path:
    from pathlib import Path

    return Path(journal_name(db_path))


def folding_path(journal: Path) -> Path:
    from pathlib import Path

    return Path(f"{journal}.folding")


def spare_journal(db_path: Path, state_home: str | None) -> Path | None:
    """Where a row goes when the log's own directory refuses it (a read-only `.git`): one file per
    log under the user's state directory, named by the log's absolute path."""
    if not state_home:
        return None
    import hashlib
    from pathlib import Path

    name = hashlib.sha256(os.fsencode(os.path.abspath(db_path))).hexdigest()[:24]
    return Path(state_home, "score-diff", f"decisions-{name}.rows")


def encode(row: dict[str, Any]) -> bytes:
    # Framed by a newline on both sides: a write cut short by a full disk leaves one bad line,
    # which the reader skips, and the next row still starts on a line of its own.
    return b"\n" + jsontext.dumps(row, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def append(path: str | os.PathLike[str], data: bytes) -> None:
    """Append `data` with one write; raise OSError if it did not all land."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    for _ in range(5):
        fd = os.open(path, _OPEN_APPEND, 0o600)
        try:
            held = os.fstat(fd)
            if not stat.S_ISREG(held.st_mode):
                raise _failure(JournalError, "EINVAL", "not a regular file", str(path))
            _flock(fd, shared=True)
            if not _still_named(path, held):
                continue  # a fold moved it aside between our open and our lock: open the new one
            written = os.write(fd, data)
            if written != len(data):
                raise _failure(OSError, "ENOSPC", f"short write ({written} of {len(data)} bytes)", str(path))
            return
        finally:
            os.close(fd)
    raise _failure(JournalError, "EAGAIN", "the journal kept being moved aside", str(path))


def _still_named(path: str | os.PathLike[str], held: os.stat_result) -> bool:
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _flock(fd: int, shared: bool = False, wait: bool = True) -> bool:
    import fcntl

    flags = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB)
    try:
        fcntl.flock(fd, flags)
    except BlockingIOError:
        return False
    return True


def _read_upto(fh: BinaryIO, limit: int) -> bytes:
    """At most `limit` bytes, in chunks: `read(limit)` allocates all of `limit` up front (CPython's
    buffered read), 64 MB for a small journal, which was the peak of every scoring."""
    data = bytearray()
    while len(data) < limit:
        chunk = fh.read(min(1 << 20, limit - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def rows(path: Path) -> list[dict[str, Any]]:
    """The rows of one journal file, oldest first; a line that is not a whole row is skipped."""
    try:
        fd = os.open(path, _OPEN_READ)
    except FileNotFoundError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _failure(JournalError, "EINVAL", "not a regular file", str(path))
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = _read_upto(fh, MAX_JOURNAL_BYTES)
    finally:
        os.close(fd)
    found = []
    for line in data.split(b"\n"):
        try:
            row = jsontext.loads(line) if line.strip() else None
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("row_uid"), str):
            found.append(row)
    return found


def pending(journals: list[Path]) -> list[dict[str, Any]]:
    """Every row still waiting to be folded from these journals, oldest first, each once."""
    seen: set[str] = set()
    out = []
    for path in (p for journal in journals for p in (folding_path(journal), journal)):
        for row in rows(path):
            if row["row_uid"] not in seen:
                seen.add(row["row_uid"])
                out.append(row)
    return out


def folding(journal: Path) -> Folding:
    """For a `with` block: the file of `journal`'s rows to fold now, under the one folder's lock;
    None when there is nothing to fold or another process is folding (the rows are then its to
    fold). The caller removes the file once its rows are committed."""
    return Folding(journal)


class Folding:
    """`folding`'s `with` block: the lock is held until the block ends. A class, not
    contextlib.contextmanager, so a guard row's append imports no contextlib (issue 29)."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.fd = -1

    def __enter__(self) -> Path | None:
        journal = self.journal
        if not journal.exists() and not folding_path(journal).exists():
            return None
        lock_path = f"{journal}.lock"
        self.fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(self.fd).st_mode):
                raise _failure(JournalError, "EINVAL", "not a regular file", str(lock_path))
            return _set_aside(journal) if _flock(self.fd, wait=False) else None
        except BaseException:  # the lock is not left held when the block never starts
            self._close()
            raise

    def __exit__(self, *exc_info: object) -> None:
        self._close()

    def _close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _set_aside(journal: Path) -> Path | None:
    """The folding file, made from the journal if no earlier fold left one behind."""
    aside = folding_path(journal)
    if not aside.exists():
        try:
            os.rename(journal, aside)
        except FileNotFoundError:
            return None
        _drain(aside)
    return aside


def _drain(path: Path) -> None:
    """Wait for writers that locked the file before it was moved: each holds a shared lock for
    its one write, and any writer that locks it later sees the new name and writes there."""
    fd = os.open(path, _OPEN_READ)
    try:
        _flock(fd)
    finally:
        os.close(fd)
