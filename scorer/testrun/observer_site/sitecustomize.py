"""score-diff's observer, installed in every Python the required test starts (docs/required-test.md#the-observer).

score-diff puts this directory first on the test's PYTHONPATH, so `site` imports this module
before the test's own code runs. It adds an audit hook (PEP 578, `sys.addaudithook`) that
refuses, with PermissionError, and reports each attempt outside the envelope, whether or not
the jail also stops it: a write or metadata change beneath no write root, a connect off
loopback when the network is off, a program not on test_programs, a read of another
process's environment, a Python started so that it would not load this module. Reports go as
datagrams to score-diff's socket, through `os.write` on a connected socket, which raises no
audit event of its own; the report is sent before the refusal is raised, so a test that
catches the PermissionError still fails. Then the project's own sitecustomize, if there is
one, runs as usual.

It is a tripwire behind the jail, not the jail: code that never enters Python's audited
calls (a C extension, ctypes, a program in another language) is not seen here.
Standard library only; nothing of score-diff is imported. The judging is in _rules.py.
"""

from __future__ import annotations

import _thread
import json
import os
import socket
import sys
from typing import Any

_CONFIG_ENV = "SCORE_DIFF_OBSERVER"
_HERE = os.path.dirname(os.path.abspath(__file__))
_MAX_REPORTS = 50  # per process: a loop that retries for ever cannot flood score-diff


class Refused(Exception):
    """An attempt outside the envelope: what it was, as the report says it."""


def _load_rules() -> Any:
    """_paths.py, _programs.py and _rules.py beside this file, loaded by path under names of their
    own: no module on sys.path can stand in for them."""
    import importlib.util

    module = None
    for name in ("paths", "programs", "rules"):
        where = os.path.join(_HERE, f"_{name}.py")
        spec = importlib.util.spec_from_file_location(f"_score_diff_observer_{name}", where)
        if spec is None or spec.loader is None:
            raise ImportError(f"the observer's {name} are missing")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


class _Observer:
    def __init__(self, raw: str, rules: Any) -> None:
        config = json.loads(raw)
        self.judge = rules.Judge(config, raw, _HERE, Refused)
        self.sent = 0
        self.inside: set[int] = set()  # threads now in the hook: another thread's event is still judged
        self.path = config["socket"]
        self.connect()

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.connect(self.path)
        self.fd = self.sock.fileno()
        self.identity = _identity(self.fd)

    def report(self, what: str) -> None:
        if self.sent >= _MAX_REPORTS:
            return
        self.sent += 1
        data = json.dumps({"pid": os.getpid(), "attempt": what}).encode("utf-8", "replace")[:2000]
        try:
            if _identity(self.fd) != self.identity:  # the test closed it, or put another file there
                self.sock.detach()  # that descriptor is the test's now: not ours to close
                self.connect()
            os.write(self.fd, data)
        except OSError:
            pass  # score-diff no longer listens: nothing to tell, and the refusal still stands

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        me = _thread.get_ident()
        if me in self.inside:
            return  # an event the judging itself raised (a readlink, a getaddrinfo of localhost)
        self.inside.add(me)
        try:
            self.judge.event(event, args)
        except Refused as refused:
            what = str(refused)
        except Exception as exc:  # fail closed: what cannot be judged is refused
            what = f"did what the observer could not judge ({event}: {type(exc).__name__})"
        else:
            return
        finally:
            self.inside.discard(me)
        self.report(what)
        raise PermissionError(f"score-diff's observer refused this: the required test {what} (outside its envelope)")


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _install() -> None:
    raw = os.environ.get(_CONFIG_ENV)
    if not raw:
        return
    try:
        observer = _Observer(raw, _load_rules())
    except Exception as exc:  # any failure: this Python must not run unobserved
        sys.stderr.write(f"score-diff's observer could not start in this Python ({type(exc).__name__}); it stops\n")
        sys.stderr.flush()
        os._exit(125)
    observer.report("")  # checking in: score-diff counts the Pythons it observed
    sys.addaudithook(observer.hook)


def _chain() -> None:
    """Run the sitecustomize this module shadows (a distribution's, a virtualenv's), as `site` would."""
    import importlib.machinery
    import importlib.util

    rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["_score_diff_next_sitecustomize"] = module
    spec.loader.exec_module(module)


_install()
_chain()
