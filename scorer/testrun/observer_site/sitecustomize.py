"""score-diff's observer, installed in every Python the required test starts (docs/required-test.md#the-observer).

score-diff puts this directory first on the test's PYTHONPATH, so `site` imports this module
before the test's own code runs. It adds an audit hook (PEP 578, `sys.addaudithook`) that
reports each attempt outside the envelope, whether or not the jail also stopped it: a write
beneath no write root, a connect to a host other than loopback when the network is off, a
program not on test_programs, a read of another process's environment. Reports go as
datagrams to score-diff's socket, through `os.write` on a connected socket, which raises no
audit event of its own. Then the project's own sitecustomize, if there is one, runs as usual.

It is a tripwire behind the jail, not the jail: code that never enters Python's audited
calls (a C extension, ctypes, a program in another language) is not seen here.
Standard library only; nothing of score-diff is imported.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sys
from typing import Any

_CONFIG_ENV = "SCORE_DIFF_OBSERVER"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_PATH_EVENTS = {  # event: indexes of its arguments that are paths it changes
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.symlink": (1,),
    "os.link": (1,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.mkfifo": (0,),
    "os.mknod": (0,),
    "shutil.rmtree": (0,),
}
_ENVIRON = re.compile(r"/proc/(\d+|self|thread-self)(/task/\d+)?/environ")
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/stdout", "/dev/stderr")
_MAX_REPORTS = 50  # per process: a loop that retries for ever cannot flood score-diff


class _Observer:
    def __init__(self, config: dict[str, Any]) -> None:
        self.roots = [os.path.realpath(r) for r in config.get("roots", [])]
        self.network = bool(config.get("network", True))
        programs = config.get("programs")
        self.programs = None if programs is None else set(programs)
        self.sent = 0
        self.busy = False
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.connect(config["socket"])

    # -- reporting --------------------------------------------------------------------------
    def report(self, what: str) -> None:
        if self.sent >= _MAX_REPORTS:
            return
        self.sent += 1
        data = json.dumps({"pid": os.getpid(), "attempt": what}).encode("utf-8", "replace")[:2000]
        try:  # noqa: SIM105 - contextlib would be one more import in every Python the test starts
            os.write(self.sock.fileno(), data)
        except OSError:
            pass  # score-diff no longer listens: nothing to tell

    # -- judging ----------------------------------------------------------------------------
    def outside(self, path: Any) -> str | None:
        """The real path of `path` when it lies beneath no write root, else None."""
        if isinstance(path, int):
            return None  # an open descriptor: its path was judged when it was opened
        try:
            text = os.fsdecode(path)
        except (TypeError, ValueError):
            return None
        full = os.path.realpath(os.path.join(os.getcwd(), text))
        if full in _DEVICES or full.startswith(("/dev/pts/", "/dev/shm/", "/proc/self/fd/")):  # noqa: S108
            return None
        for root in self.roots:
            if full == root or full.startswith(root.rstrip(os.sep) + os.sep):
                return None
        return full

    def on_open(self, path: Any, flags: Any) -> None:
        if isinstance(path, (str, bytes)):
            text = os.fsdecode(path)
            match = _ENVIRON.fullmatch(text)
            if match and match.group(1) not in ("self", "thread-self", str(os.getpid())):
                self.report(f"read the environment of process {match.group(1)} ({text})")
        if isinstance(flags, int) and flags & _WRITE_FLAGS:
            where = self.outside(path)
            if where is not None:
                self.report(f"wrote {where}")

    def on_connect(self, sock: Any, address: Any) -> None:
        family = getattr(sock, "family", None)
        if family == socket.AF_UNIX:
            if isinstance(address, (str, bytes)) and address[:1] not in ("\0", b"\0"):
                where = self.outside(address)
                if where is not None:
                    self.report(f"connected to the unix socket {where}")
            return
        if self.network or family not in (socket.AF_INET, socket.AF_INET6):
            return
        if isinstance(address, tuple) and address and not _loopback(address[0]):
            self.report(f"connected to {address[0]}:{address[1] if len(address) > 1 else '?'}")

    def on_program(self, program: Any) -> None:
        if self.programs is None or program is None:
            return
        try:
            text = os.fsdecode(program)
        except (TypeError, ValueError):
            return
        if text in self.programs or os.path.basename(text) in self.programs:
            return
        if sys.executable and os.path.realpath(text) == os.path.realpath(sys.executable):
            return  # the interpreter starting itself again (multiprocessing, pytest-xdist)
        self.report(f"started the program {text} (not on test_programs)")

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if self.busy:
            return
        self.busy = True
        try:
            self.dispatch(event, args)
        except Exception:  # noqa: S110 - an observer that breaks the test would be a bug of its own
            pass
        finally:
            self.busy = False

    def dispatch(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and len(args) >= 3:
            self.on_open(args[0], args[2])
        elif event in _PATH_EVENTS:
            for i in _PATH_EVENTS[event]:
                if i < len(args) and (where := self.outside(args[i])) is not None:
                    if event == "os.mkdir" and os.path.isdir(where):
                        continue  # makedirs(exist_ok=True) on a directory that is there changes nothing
                    self.report(f"wrote {where} ({event})")
        elif event in ("socket.connect", "socket.sendto") and len(args) >= 2:
            self.on_connect(args[0], args[1])
        elif event in ("subprocess.Popen", "os.exec", "os.posix_spawn") and args:
            self.on_program(args[0])
        elif event == "os.spawn" and len(args) >= 2:
            self.on_program(args[1])
        elif event == "os.system":
            self.on_program("sh")


def _loopback(host: Any) -> bool:
    if not isinstance(host, str):
        return False
    return host in ("localhost", "::1", "0.0.0.0", "::") or host.startswith(("127.", "::ffff:127."))  # noqa: S104


def _install() -> None:
    raw = os.environ.get(_CONFIG_ENV)
    if not raw:
        return
    try:
        observer = _Observer(json.loads(raw))
    except (OSError, ValueError, KeyError):
        return  # score-diff sees that no process checked in, and says so
    observer.report("")  # checking in: score-diff counts the Pythons it observed
    sys.addaudithook(observer.hook)


def _chain() -> None:
    """Run the sitecustomize this module shadows (a distribution's, a virtualenv's), as `site` would."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["_score_diff_next_sitecustomize"] = module
    spec.loader.exec_module(module)


_install()
_chain()
