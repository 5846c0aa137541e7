"""A pytest plugin score-diff loads into every pytest run of the required test (`-p`, from a
directory of score-diff's own outside the checkout): each test's outcome leaves the process as
it happens, as one JSON line on the file descriptor $SCORE_DIFF_REPORT_FD names, then pytest's
exit status when the session ends, and, once configured, which configuration file pytest took
(`config.inipath`). The descriptor is taken, and the variable removed, when
pytest loads the plugin: before any conftest.py, test module or code under test is imported.

With $SCORE_DIFF_ONLY (a JSON list of node ids) it runs only those tests, in reverse order: one
of the two stability runs of the tests that flipped (docs/required-test.md); with $SCORE_DIFF_TWICE
(the first of them) each twice in the one process.

With $SCORE_DIFF_COMPARE as well (the first stability run, and the flipped tests' run on the base
tree) a profile hook watches each test's call and, once the call ends, says which classes decided
a comparison in the test file's own frames: a comparison or truthiness dunder written in Python
called from a test-file frame, or a value returned to a test-file frame whose class (not a builtin)
carries such a dunder that is not a Python function; which of those `==` / `!=` said equal to a
builtin value and still did with each of its elements changed in turn (loose: it ignores the
values); and which classes the test module names (`scorer/testrun/comparisons.py` judges them,
docs/required-test.md#comparison-types).
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import sys
import threading
import types
from typing import Any

import pytest

_FD = int(os.environ.pop("SCORE_DIFF_REPORT_FD", "-1") or "-1")
_ONLY = os.environ.pop("SCORE_DIFF_ONLY", "")
_COMPARE = os.environ.pop("SCORE_DIFF_COMPARE", "")
_TWICE = os.environ.pop("SCORE_DIFF_TWICE", "")
if _FD >= 0:
    os.set_inheritable(_FD, False)  # the tests' own subprocesses never hold the channel
_DUNDERS = frozenset(
    ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__contains__", "__hash__")
)
# taken before any code under test is imported: a call of one of them while the hook runs could
# switch the hook off, so it marks the test's record
_SWITCHES = (sys.setprofile, threading.setprofile, getattr(threading, "setprofile_all_threads", sys.setprofile))
_SWITCH_IDS = frozenset(id(s) for s in _SWITCHES)  # by identity: a C callable's == is never the job's
# by id, too: `cls in a_set` would call the job's metaclass __hash__ and __eq__
_BUILTIN_IDS = frozenset(id(v) for v in vars(builtins).values() if isinstance(v, type))
_setprofile, _getprofile, _realpath, _isfile = sys.setprofile, sys.getprofile, os.path.realpath, os.path.isfile


def _say(**record: Any) -> None:
    if _FD < 0:
        return
    line = json.dumps(record) + "\n"
    with contextlib.suppress(OSError):  # a line that never arrives is a disagreement there
        os.write(_FD, line.encode("utf-8"))


def _outcome(report: Any) -> str:
    if report.skipped:
        return "xfailed" if hasattr(report, "wasxfail") else "skipped"
    if report.failed:
        return "failed" if report.when == "call" else "error"
    return "passed"


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    if not _ONLY:
        return
    wanted = json.loads(_ONLY)
    chosen = [i for i in items if i.nodeid in wanted]
    config.hook.pytest_deselected(items=[i for i in items if i.nodeid not in wanted])
    items[:] = list(reversed(chosen))  # once: score-diff starts the run twice (an item cannot run twice)


def pytest_configure(config: Any) -> None:
    """Which configuration file pytest took, and where it started (configfile.py checks the spec
    pass's against the fence's prediction)."""
    inipath = config.inipath
    _say(config=str(inipath) if inipath else "", cwd=str(config.invocation_params.dir))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:
    """With $SCORE_DIFF_TWICE, each test runs twice in this one process, every fixture torn down
    between (nextitem None: a rerun that keeps the item's own setup loses its parametrized
    arguments): an answer right only on the first call of each input fails the second."""
    if not _TWICE:
        return None
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    runtestprotocol(item, nextitem=None, log=True)
    runtestprotocol(item, nextitem=nextitem, log=True)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def pytest_runtest_logreport(report: Any) -> None:
    _say(id=report.nodeid, when=report.when, outcome=_outcome(report))


def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    _say(exit=int(exitstatus))


class _Probe:
    """The profile hook for one test's call: what decided comparisons in the test file's frames."""

    def __init__(self, test_file: str, root: str) -> None:
        self.test_file, self.root = test_file, _realpath(root)
        self.seen: dict[tuple[str, str], set[str]] = {}
        self.loose: set[tuple[str, str]] = set()  # (class, dunder) that said equal whatever it was given
        self.tampered = False
        self._classes: dict[int, type] = {}  # returned classes already looked at, by id (a metaclass owns ==)
        self._asked: dict[int, tuple[Any, Any, Any]] = {}  # frame id -> (self, other, code) of an == or != call

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            if id(arg) in _SWITCH_IDS:
                self.tampered = True
            return
        if event != "call" and event != "return":
            return  # c_return, c_exception
        try:
            back = frame.f_back
            if back is None or back.f_code.co_filename != self.test_file:
                return
            code = frame.f_code
            if event == "call" and code.co_name in _DUNDERS and code.co_argcount:
                self._called(type(frame.f_locals.get(code.co_varnames[0])), code)
                if code.co_name in _EQUALITY and code.co_argcount == 2:
                    local = frame.f_locals
                    self._asked[id(frame)] = (local.get(code.co_varnames[0]), local.get(code.co_varnames[1]), code)
            elif event == "return" and code.co_filename != self.test_file:
                asked = self._asked.pop(id(frame), None)
                if asked is not None:
                    self._answered(*asked, arg)
                self._returned(type(arg))
        except BaseException:  # a hook that cannot look is a record that cannot be trusted
            self.tampered = True

    def _called(self, cls: type, code: Any) -> None:
        self._note(cls, code.co_name, self._where(code.co_filename))

    def _answered(self, me: Any, other: Any, code: Any, said: Any) -> None:
        """An `==` (`!=`) that said equal, asked again with each element of `other` changed in turn
        (a builtin `other` only): equal every time is a comparison that ignores the values, whatever
        the class (docs/required-test.md#comparison-types). Inside the profile hook, so the calls
        it makes are not profiled; a call that raises or answers otherwise is not loose."""
        equal = _equal(code.co_name, said)
        if not equal:
            return
        method = _method(type(me), code)
        variants = _variants(other)
        if method is None or not variants:
            return
        for variant in variants:
            try:
                if not _equal(code.co_name, method(me, variant)):
                    return
            except Exception:
                return
        cls = type(me)
        self.loose.add((_name(cls), code.co_name))
        self._note(cls, code.co_name, self._where(code.co_filename))

    def _returned(self, cls: type) -> None:
        if id(cls) in self._classes or id(cls) in _BUILTIN_IDS:
            return
        self._classes[id(cls)] = cls  # held, so the id stays this class's
        for klass in _type_attr(cls, "__mro__"):
            if id(klass) in _BUILTIN_IDS:
                continue
            for name, value in _type_attr(klass, "__dict__").items():
                if name in _DUNDERS and value is not None and not _plain_method(name, value):
                    self._note(klass, name)

    def _note(self, cls: type, dunder: str, *where: str) -> None:
        module = sys.modules.get(str(_type_attr(cls, "__module__")))
        wheres = self.seen.setdefault((_name(cls), dunder), set())
        wheres.update((*where, self._where(getattr(module, "__file__", None))))

    def _where(self, path: Any) -> str:
        """A file of the checkout (relative), one outside it, or <unknown> (exec'd code, no file)."""
        if not isinstance(path, str) or not _isfile(path):
            return "<unknown>"
        real = _realpath(path)
        if os.path.commonpath([self.root, real]) != self.root:
            return "<outside>"
        return os.path.relpath(real, self.root).replace(os.sep, "/")


_EQUALITY = ("__eq__", "__ne__")
_VARIANTS = 8  # at most this many elements changed, one at a time


def _equal(dunder: str, said: Any) -> bool:
    """Whether an `__eq__` / `__ne__` result says "equal"; only a bool or an int is read."""
    if type(said) not in (bool, int):
        return False
    return bool(said) if dunder == "__eq__" else not said


def _method(cls: type, code: Any) -> Any:
    """The function of `cls`'s MRO whose code is `code` (the dunder that ran), None if none is."""
    for klass in _type_attr(cls, "__mro__"):
        value = _type_attr(klass, "__dict__").get(code.co_name)
        if isinstance(value, types.FunctionType) and value.__code__ is code:
            return value
    return None


def _variants(value: Any) -> list[Any]:
    """Copies of a builtin `value`, each with one element changed to a fresh object equal to nothing
    else (a str or bytes: one character more; a number: another number); [] for any other type."""
    kind = type(value)
    if kind is str:
        return [value + "\x00"]
    if kind is bytes:
        return [value + b"\x00"]
    if kind is bool:
        return [not value]
    if kind is int or kind is float:
        return [value + 1 + abs(value)] if value == value and abs(value) != float("inf") else []
    if kind is dict:
        keys = list(value)[:_VARIANTS] or ["\x00"]
        return [{**value, key: object()} for key in keys]
    if kind is list or kind is tuple:
        if not value:
            return [kind([object()])]
        return [kind([*value[:i], object(), *value[i + 1 :]]) for i in range(min(len(value), _VARIANTS))]
    if kind is set or kind is frozenset:
        return [kind([*value, object()])]
    return []


def _plain_method(name: str, value: Any) -> bool:
    """A Python function defined under the dunder's own name: its calls are call events the hook
    sees by name. Anything else (a builtin, a lambda, a function made under another name or by
    exec) runs without a call event named like the dunder."""
    return isinstance(value, types.FunctionType) and value.__code__.co_name == name and value.__code__.co_argcount > 0


def _name(cls: type) -> str:
    return f"{_type_attr(cls, '__module__')}:{_type_attr(cls, '__qualname__')}"


def _type_attr(cls: type, name: str) -> Any:
    """`type`'s own descriptor, read directly: a metaclass can define `__dict__` or `__mro__` to lie."""
    return type.__dict__[name].__get__(cls, type)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    if not _COMPARE:
        yield
        return
    probe = _Probe(str(item.path), str(item.config.rootpath))
    module = getattr(item, "module", None)
    named = sorted(_name(v) for v in vars(module).values() if isinstance(v, type)) if module else []
    _setprofile(probe)
    try:
        yield
    finally:
        tampered = probe.tampered or _getprofile() is not probe
        _setprofile(None)
        seen = [
            {"cls": c, "dunder": d, "where": sorted(w), "loose": (c, d) in probe.loose}
            for (c, d), w in sorted(probe.seen.items())
        ]
        _say(cmp=item.nodeid, seen=seen, named=named, tampered=tampered)
