"""Run one program to its end and keep its output, without importing subprocess (issue 29).

`import subprocess` is 23M instructions on its own (threading, selectors, signal's enums,
contextlib, locale and its pattern): at HEAD the command hook's one `git ls-tree` paid more for
the import than for git. This starts the program with `os.posix_spawn`, reads stdout and stderr
through one `select.poll`, and answers as `subprocess.run(argv, cwd=, env=, input=,
capture_output=True)` does: the program found on the PATH of the environment it is given, the
exit code (or minus the signal that ended it), the bytes of both streams. A program that is not
found is FileNotFoundError, a timeout is TimeoutError; on any error or interruption (the hook's
deadline alarm) the program is killed and reaped before the exception goes on.
Descriptors above 2 that are not close-on-exec are closed in the program, as subprocess's
close_fds closes them.
tests/guard/test_spawn.py holds each answer to subprocess's, side by side.

`posix_spawn` has no working directory of its own before Python 3.13, so the directory is
changed around the spawn and changed back: this is only for a process with one thread (the
command hook), and refuses to run anywhere else (`Busy`, so the caller uses subprocess).
"""

from __future__ import annotations

import os
import sys

from ..records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

_CHUNK = 1 << 16


class Busy(RuntimeError):
    """More than one thread is running: changing the directory around a spawn would race them."""


class Finished(NamedTuple):
    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes


def exec_path(environ: Mapping[str, str]) -> list[str]:
    """`os.get_exec_path(environ)` for an environment of str keys and values, without the
    `warnings` module it imports on every call (a module load of each git call at HEAD, issue 29):
    PATH split on os.pathsep, os.defpath where PATH is unset (an empty PATH is one empty entry)."""
    path = environ.get("PATH")
    return (os.defpath if path is None else path).split(os.pathsep)


def find(name: str, environ: Mapping[str, str]) -> str | None:
    """The file `name` runs as, the way subprocess's exec loop finds it: a name with a slash as
    given, else the first executable regular file in the environment's PATH (os.get_exec_path)."""
    if os.sep in name:
        return name
    for folder in exec_path(environ):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def run(
    argv: Sequence[str],
    cwd: str,
    environ: Mapping[str, str],
    stdin: bytes | None = None,
    timeout_s: float | None = None,
) -> Finished:
    """`subprocess.run(argv, cwd=cwd, env=environ, input=stdin, capture_output=True, timeout=timeout_s)`,
    stdin from /dev/null when there is no input."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        raise Busy("another thread is running")
    ends: list[int] = []
    pid = 0
    try:
        out_r, out_w = _pipe(ends)
        err_r, err_w = _pipe(ends)
        in_r, in_w = _pipe(ends) if stdin is not None else (-1, -1)
        if in_w != -1:
            os.set_blocking(in_w, False)  # a full pipe must not stop the reading of the program's output
        actions: list[tuple[Any, ...]] = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
        if stdin is None:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        else:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited()]
        pid = _spawn(argv, cwd, environ, actions)
        for fd in (out_w, err_w, in_r):
            if fd != -1:
                _close(ends, fd)
        out, err = _collect(out_r, err_r, in_w, stdin or b"", ends, timeout_s)
        status = os.waitpid(pid, 0)[1]
        pid = 0
        return Finished(tuple(argv), os.waitstatus_to_exitcode(status), out, err)
    finally:
        if pid:  # an error, a timeout or the deadline's alarm: the program does not outlive the answer
            _kill(pid)
        for fd in list(ends):
            _close(ends, fd)


def _inherited() -> list[int]:
    """The descriptors above 2 the program would inherit (not close-on-exec), to be closed in it as
    subprocess's close_fds closes them: one the agent gave the hook must not outlive it in git's
    children. Python's own are close-on-exec (PEP 446); a listing that cannot be read is an error."""
    here = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
    found = []
    for name in os.listdir(here):
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                found.append(fd)
        except OSError:  # the listing's own descriptor, closed since
            continue
    return found


def _pipe(ends: list[int]) -> tuple[int, int]:
    read, write = os.pipe()  # both close-on-exec: the child gets only what the file actions give it
    ends.extend((read, write))
    if min(read, write) < 3:  # a closed standard stream: DUP2 onto itself would keep close-on-exec
        read, write = _renumber(ends, read), _renumber(ends, write)
    return read, write


def _renumber(ends: list[int], fd: int) -> int:
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    ends.append(moved)
    _close(ends, fd)
    return moved


def _spawn(argv: Sequence[str], cwd: str, environ: Mapping[str, str], actions: list[tuple[Any, ...]]) -> int:
    """posix_spawn in `cwd`, the program found there as subprocess's child finds it (after its chdir)."""
    import _signal

    # As subprocess's restore_signals: the program gets SIGPIPE and SIGXFSZ at their defaults.
    defaults = [getattr(_signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(_signal, name)]
    here = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.chdir(cwd)
        program = find(argv[0], environ)
        if program is None:
            raise FileNotFoundError(2, "No such file or directory", argv[0])
        return os.posix_spawn(program, list(argv), dict(environ), file_actions=actions, setsigdef=defaults)
    finally:
        os.fchdir(here)
        os.close(here)


def _collect(
    out_r: int, err_r: int, in_w: int, data: bytes, ends: list[int], timeout_s: float | None
) -> tuple[bytes, bytes]:
    """Both streams to their end (and the input written as the program reads it), by one poll."""
    import select
    import time

    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    poll = select.poll()
    for fd in chunks:
        poll.register(fd, select.POLLIN)
    if in_w != -1:
        poll.register(in_w, select.POLLOUT)
    until = None if timeout_s is None else time.monotonic() + timeout_s
    open_fds = set(chunks) | ({in_w} if in_w != -1 else set())
    while open_fds:
        left = None if until is None else max(0.0, until - time.monotonic())
        ready = poll.poll(None if left is None else left * 1000)
        if not ready and until is not None and time.monotonic() >= until:
            raise TimeoutError(f"no end within {timeout_s:g} s")
        for fd, _ in ready:
            if fd == in_w:
                data = _write(fd, data)
                if not data:
                    poll.unregister(fd)
                    open_fds.discard(fd)
                    _close(ends, fd)
                continue
            chunk = os.read(fd, _CHUNK)
            if chunk:
                chunks[fd].append(chunk)
            else:
                poll.unregister(fd)
                open_fds.discard(fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _write(fd: int, data: bytes) -> bytes:
    try:
        return data[os.write(fd, data[:_CHUNK]) :]
    except BlockingIOError:  # full after all: the next POLLOUT
        return data
    except BrokenPipeError:  # the program stopped reading: as communicate, the rest is dropped
        return b""


def _kill(pid: int) -> None:
    import _signal

    os.kill(pid, _signal.SIGKILL)  # not reaped yet, so it is there to be killed (a zombie, at worst)
    os.waitpid(pid, 0)


def _close(ends: list[int], fd: int) -> None:
    if fd in ends:
        ends.remove(fd)
        os.close(fd)
