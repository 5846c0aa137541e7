"""score-diff's end of the observer: a datagram socket the test's Pythons report to.

observer_site/sitecustomize.py runs inside every Python the required test starts and sends
one datagram per attempt outside the envelope; this module receives them on a thread (a
sender blocks when the socket's queue is full, so it must be read while the test runs) and
hands them to envelope.finish, which redacts them into the report's observer log.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from pathlib import Path

SITE_DIR = str(Path(__file__).with_name("observer_site"))
CONFIG_ENV = "SCORE_DIFF_OBSERVER"
MAX_ATTEMPTS = 200  # a run's log keeps this many; the rest are counted
MAX_PATH = 100  # sun_path holds 108 bytes


class Listener:
    """Receives the observer's datagrams until `stop`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.attempts: list[str] = []
        self.checked_in: set[int] = set()
        self.dropped = 0
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(path)
        self._thread = threading.Thread(target=self._pump, daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        while True:
            try:
                data = self._sock.recv(4096)
            except OSError:
                return
            if data == b"":
                return
            self._take(data)

    def _take(self, data: bytes) -> None:
        try:
            record = json.loads(data.decode("utf-8", "replace"))
            pid, attempt = int(record["pid"]), str(record["attempt"])
        except (ValueError, KeyError, TypeError):
            attempt, pid = "sent the observer something it cannot read", -1
        if not attempt:
            self.checked_in.add(pid)
        elif len(self.attempts) < MAX_ATTEMPTS:
            self.attempts.append(attempt)
        else:
            self.dropped += 1

    def stop(self) -> list[str]:
        """Every attempt received, after what is still queued has been read."""
        self._sock.setblocking(False)
        while True:
            try:
                data = self._sock.recv(4096)
            except OSError:
                break
            self._take(data)
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(timeout=1.0)
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        return list(self.attempts) + ([f"... and {self.dropped} more"] if self.dropped else [])


def start(directory: str) -> Listener | None:
    """A listener on a socket in `directory`, or None where the platform has no unix sockets or the
    path is too long for one."""
    path = os.path.join(directory, "observer.sock")
    if not hasattr(socket, "AF_UNIX") or len(os.fsencode(path)) > MAX_PATH:
        return None
    return Listener(path)


def environment(
    env: dict[str, str], listener: Listener, roots: tuple[str, ...], network: bool, programs: tuple[str, ...] | None
) -> dict[str, str]:
    """The test's environment with the observer first on PYTHONPATH and its configuration."""
    config = {
        "socket": listener.path,
        "roots": list(roots),
        "network": network,
        "programs": None if programs is None else list(programs),
    }
    rest = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
    return {**env, CONFIG_ENV: json.dumps(config), "PYTHONPATH": os.pathsep.join([SITE_DIR, *rest])}
