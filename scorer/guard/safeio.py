"""Reads and locks on the guard's path that always return in time.

The job can write under `.git/` and wherever its agent keeps transcripts, so any file the
guard opens there may be a FIFO, a device, an endless file or a lock the job holds itself.
A guard that waits is a guard that allows (an agent runs the tool when its hook times out),
so every open here is non-blocking, only regular files are read, reads are bounded, and a
lock is waited for until a deadline, then the call is denied with the reason.
"""

from __future__ import annotations

import os
import stat
import time

from ..errors import ScoreDiffError

LOCK_DEADLINE_S = 2.0  # well inside every agent's hook timeout (docs/guard.md)


class GuardTimeout(ScoreDiffError):
    """Something on the guard's path did not answer in time; the call is denied."""

    code = "guard-timeout"


def read_regular(path: str, limit: int, tail: bool = False) -> bytes | None:
    """At most `limit` bytes of `path` (its last ones with `tail`); None unless it is a regular file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None  # a FIFO, a device or a directory never blocks the guard
        if tail and info.st_size > limit:
            os.lseek(fd, info.st_size - limit, os.SEEK_SET)
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def locked(path: str, what: str, deadline_s: float | None = None) -> Lock:
    """An exclusive lock on `path` for a `with` block, waited for at most `deadline_s`
    (LOCK_DEADLINE_S); GuardTimeout after that."""
    return Lock(path, what, LOCK_DEADLINE_S if deadline_s is None else deadline_s)


class Lock:
    """`locked`'s `with` block. A class, not contextlib.contextmanager: importing contextlib costs
    every tool call about 3M instructions (issue 29)."""

    def __init__(self, path: str, what: str, deadline_s: float) -> None:
        self.path, self.what, self.deadline_s = path, what, deadline_s
        self.fd = -1

    def __enter__(self) -> None:
        path, what = self.path, self.what
        flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise GuardTimeout(f"{what} lock {path} cannot be opened ({exc.strerror})") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise GuardTimeout(f"{what} lock {path} is not a regular file")
            _flock(fd, path, what, self.deadline_s)
        except BaseException:  # the deadline's alarm too: the descriptor is never left open
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc_info: object) -> None:
        os.close(self.fd)


def _flock(fd: int, path: str, what: str, deadline_s: float) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: no advisory lock; the rename that follows is still atomic
        return
    give_up = time.monotonic() + deadline_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= give_up:
                raise GuardTimeout(
                    f"{what} lock {path} is held by another process and was not released within {deadline_s:g} s"
                ) from None
            time.sleep(0.01)


def write_replacing(path: str, data: bytes) -> None:
    """Write `data` to `path` through a fresh temporary file and an atomic rename (never opens a FIFO)."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:  # noqa: SIM105 - not contextlib.suppress: contextlib is no import of a tool call's (issue 29)
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(tmp, path)
