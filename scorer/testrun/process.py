"""Run the test's process to its end or its deadline, whatever it leaves behind.

Output is read by a thread and waited for only a bounded time: a grandchild that left
the test's process group can hold the pipe open for ever, and `communicate()` would
wait for it.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import IO

DRAIN_S = 2.0  # once the test has ended (or was killed): how long its output may still arrive
OUTPUT_CAP = 1 << 20  # bytes of output kept; the report shows only a tail of it


class Output:
    """The process's output, pumped by a daemon thread so that nothing can block the caller on it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._data = bytearray()
        self._lock = threading.Lock()
        self._done = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            with self._stream:
                while chunk := self._stream.read1(1 << 16):  # type: ignore[attr-defined]
                    with self._lock:
                        self._data += chunk
                        if len(self._data) > 2 * OUTPUT_CAP:
                            del self._data[:-OUTPUT_CAP]
        except (OSError, ValueError):
            pass
        finally:
            self._done.set()

    def drain(self, seconds: float) -> bool:
        """True once every writer has closed the pipe; False if one still holds it after `seconds`."""
        return self._done.wait(seconds)

    def text(self) -> str:
        with self._lock:
            return self._data[-OUTPUT_CAP:].decode("utf-8", "replace")


def start(argv: list[str], cwd: str, env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
    """The process in a session of its own (POSIX), so its whole group can be killed at the end."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=os.name == "posix",
        pass_fds=pass_fds,
    )


def wait(
    proc: subprocess.Popen[bytes],
    start_s: float,
    timeout_s: float,
    clock: Callable[[], float],
    progress: Callable[[float], None] | None,
) -> int | None:
    """The exit status, or None if the deadline came first; `progress` ticks each second."""
    ended = _ended_fd(proc)
    try:
        while True:
            remaining = timeout_s - (clock() - start_s)
            if remaining <= 0:
                return proc.poll()
            if _waited(proc, ended, min(1.0, remaining) if progress is not None else remaining):
                return proc.returncode
            if progress is not None and clock() - start_s < timeout_s:
                progress(clock() - start_s)
    finally:
        if ended is not None:
            os.close(ended)


def _ended_fd(proc: subprocess.Popen[bytes]) -> int | None:
    """A descriptor that turns readable when the process ends (Linux's pidfd_open(2)); None elsewhere.

    Popen.wait(timeout) polls with sleeps of up to 50 ms, so the end of a test was seen 25 ms late
    on average; the descriptor wakes the wait the moment the process exits. The process is our
    child and not yet reaped, so its pid names no other process."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return int(opener(proc.pid))
    except OSError:
        return None


def _waited(proc: subprocess.Popen[bytes], ended: int | None, seconds: float) -> bool:
    """Whether the process ended, and was reaped, within `seconds`."""
    if ended is None:
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True
    poller = select.poll()
    poller.register(ended, select.POLLIN)
    if not poller.poll(math.ceil(seconds * 1000)):
        return False
    proc.wait()  # it has ended: this reaps it at once
    return True


def kill_group(proc: subprocess.Popen[bytes], launcher: bool = False) -> None:
    """Kill the test's whole process group: what the test started and left running goes with it.

    With the launcher (launcher.py), it is asked first: it ends the whole tree, orphans that left
    the group included, which a SIGKILL to the group would leave to init."""
    if launcher and proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=DRAIN_S)
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        elif proc.returncode is None:
            proc.kill()
    except OSError:
        pass  # the group is already gone


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Collect a killed process, waiting a bounded time (a process stuck in the kernel may not die)."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=DRAIN_S)
