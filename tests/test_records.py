"""scorer.records.NamedTuple side by side with typing.NamedTuple: every difference is a bug.

Each class is written twice, once on each base, and the same operations must give the same
result or raise the same kind of error (the messages may differ).
"""

from __future__ import annotations

import copy
import pickle
import typing
from collections.abc import Callable
from typing import Any

import pytest

from scorer import records


def _make_pair(base: Any) -> tuple[Any, Any]:
    class Point(base):
        """A point."""

        x: int
        y: str | None = None
        z: frozenset[str] = frozenset()

        @property
        def label(self) -> str:
            return f"{self.x}:{self.y}"

        def moved(self, dx: int) -> Any:
            return self._replace(x=self.x + dx)

    class Bare(base):
        only: int

    return Point, Bare


OURS = _make_pair(records.NamedTuple)
THEIRS = _make_pair(typing.NamedTuple)

CASES: list[tuple[str, Callable[[Any, Any], object]]] = [
    ("positional", lambda P, B: P(1, "a", frozenset({"k"}))),
    ("defaults", lambda P, B: P(1)),
    ("keywords", lambda P, B: P(y="b", x=2)),
    ("mixed", lambda P, B: P(3, z=frozenset({"q"}))),
    ("too many", lambda P, B: P(1, 2, 3, 4)),
    ("missing", lambda P, B: P()),
    ("missing keyword", lambda P, B: P(y="a")),
    ("unknown keyword", lambda P, B: P(1, w=2)),
    ("repeated", lambda P, B: P(1, x=2)),
    ("fields", lambda P, B: (P._fields, B._fields)),
    ("field defaults", lambda P, B: P._field_defaults),
    ("match args", lambda P, B: P.__match_args__),
    ("annotations", lambda P, B: list(P.__annotations__)),
    ("accessors", lambda P, B: (P(1, "a").x, P(1, "a").y, P(1, "a").z, P(1, "a")[1])),
    ("property", lambda P, B: P(1, "a").label),
    ("method", lambda P, B: tuple(P(1).moved(2))),
    ("replace", lambda P, B: tuple(P(1, "a")._replace(y="b"))),
    ("replace unknown", lambda P, B: P(1)._replace(w=1)),
    ("asdict", lambda P, B: P(1, "a")._asdict()),
    ("make", lambda P, B: tuple(P._make([1, "a", frozenset()]))),
    ("make short", lambda P, B: P._make([1])),
    ("repr", lambda P, B: (repr(P(1, "a")), repr(B(2)))),
    ("doc", lambda P, B: P.__doc__),
    ("name", lambda P, B: (P.__name__, P.__module__, B.__qualname__.rsplit(".", 1)[1])),
    ("equal to a tuple", lambda P, B: (P(1) == (1, None, frozenset()), hash(P(1)) == hash((1, None, frozenset())))),
    ("is a tuple", lambda P, B: (isinstance(P(1), tuple), len(P(1)), list(B(5)))),
    ("unpacking", lambda P, B: (lambda x, y, z: (x, y, z))(*P(1, "u"))),
    ("immutable", lambda P, B: setattr(P(1), "x", 2)),
    ("no dict", lambda P, B: setattr(P(1), "w", 2)),
    ("copy", lambda P, B: (tuple(copy.copy(P(1, "c"))), type(copy.deepcopy(P(1))).__name__)),
    ("pickle protocol 2", lambda P, B: tuple(pickle.loads(pickle.dumps(B(7), protocol=2)))),
    ("subclass", lambda P, B: repr(type("Sub", (B,), {"__slots__": ()})(1))),
    ("match", lambda P, B: _match(P(4, "m"))),
]


def _match(p: Any) -> object:
    match p:
        case (x, y, _):
            return (x, y)
    return None  # pragma: no cover


def _outcome(case: Callable[[Any, Any], object], pair: tuple[Any, Any]) -> object:
    try:
        return ("ok", case(*pair))
    except Exception as exc:
        return ("raised", type(exc).__name__)


@pytest.mark.parametrize(("name", "case"), CASES, ids=[c[0] for c in CASES])
def test_a_record_behaves_as_a_typing_namedtuple(name: str, case: Callable[[Any, Any], object]) -> None:
    assert _outcome(case, OURS) == _outcome(case, THEIRS)


@pytest.mark.parametrize(
    "body",
    [
        {"__annotations__": {"a": "int", "b": "int"}, "a": 1},  # a field without a default after one with
        {"__annotations__": {"_a": "int"}},  # a field named like namedtuple's own
    ],
)
def test_a_class_typing_refuses_is_refused(body: dict[str, object]) -> None:
    with pytest.raises((TypeError, ValueError)):
        type("Theirs", (typing.NamedTuple,), dict(body))
    with pytest.raises((TypeError, ValueError)):
        type("Ours", (records.NamedTuple,), dict(body))


def test_a_record_compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the module: no `compile` or `eval` per class (typing.NamedTuple makes several)."""
    import builtins

    calls: list[str] = []

    def counted(name: str) -> Callable[..., object]:
        real = getattr(builtins, name)

        def call(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return real(*args, **kwargs)

        return call

    for name in ("compile", "eval", "exec"):
        monkeypatch.setattr(builtins, name, counted(name))
    _make_pair(records.NamedTuple)
    assert calls == []
    _make_pair(typing.NamedTuple)
    assert calls  # the comparison above is measuring something


def test_a_record_works_without_cpythons_field_accessor() -> None:
    """Where `_collections._tuplegetter` is missing (not CPython), fields are read by itemgetter."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['_collections'] = None\n"
        "from scorer.records import NamedTuple\n"
        "class P(NamedTuple):\n    x: int\n    y: int = 2\n"
        "p = P(1)\nassert (p.x, p.y, p._replace(y=3).y, P._fields) == (1, 2, 3, ('x', 'y')), p\n"
        "assert type(P.__dict__['x']) is property\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
