"""Reading Python source as a syntax tree, for the checks that judge what code does (protected
tests, source written to fool the tests).

The standard library's tree helpers (`ast.dump`, `ast.unparse`, `copy.deepcopy`, node
visitors) recurse once or more per level of the tree, and CPython compiles expressions
nested about 3,000 levels deep (a long `a + b + ...` chain nests one level per term).
Below that depth the readers get the room they need; a tree deeper than they can read is
never skipped, which would let padding hide the code beside it: it stops the scoring
(exit 2) with the file named.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import sys
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..errors import ScoreDiffError
from ..model import Hunk

_ROOM = 8000  # frames: a few per level of the deepest tree CPython compiles


_TREES: dict[bytes, ast.Module | None] = {}  # by blob id: every check reads a blob's one tree
_MAX_TREES = 1024  # a server scoring push after push keeps the newest this many


def parse(source: bytes | None) -> ast.Module | None:
    """The module's tree; None when it is absent or is not Python that CPython would compile.

    Parsed once per blob (keyed by its git blob id) for every check that reads it; the trees are
    shared, so a reader that rewrites one works on a copy (assertions.py deep-copies first)."""
    if source is None:
        return None
    key = hashlib.sha1(b"blob %d\0" % len(source) + source, usedforsecurity=False).digest()
    if key in _TREES:
        return _TREES[key]
    try:
        tree: ast.Module | None = ast.parse(source.decode("utf-8", "replace"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # Python could not import it either
        tree = None
    if len(_TREES) >= _MAX_TREES:
        del _TREES[next(iter(_TREES))]
    _TREES[key] = tree
    return tree


class Unit(NamedTuple):
    """One top-level statement of a module: a function, a class, or any other statement."""

    name: str  # the function's or class's name; "" for any other statement (its scope is the module's)
    node: ast.stmt
    first: int  # its first line, decorators included
    last: int


def units(tree: ast.Module) -> list[Unit]:
    found = []
    for node in tree.body:
        name, first = "", node.lineno
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name, first = node.name, min([node.lineno, *(d.lineno for d in node.decorator_list)])
        found.append(Unit(name, node, first, node.end_lineno or node.lineno))
    return found


def touched(found: list[Unit], spans: Sequence[tuple[int, int]] | None) -> list[Unit]:
    """The units whose lines meet a span of changed lines (first, last); every unit for None."""
    if spans is None:
        return found
    ordered = sorted(spans)
    return [u for u in found if any(a <= u.last and u.first <= b for a, b in ordered)]


def changed_spans(hunks: Sequence[Hunk]) -> list[tuple[int, int]]:
    """The new-side lines each hunk changed; a deletion marks the lines on either side of it."""
    return [
        (h.new_start, h.new_start + h.new_lines - 1) if h.new_lines else (h.new_start, h.new_start + 1) for h in hunks
    ]


@contextlib.contextmanager
def deep(path: str) -> Iterator[None]:
    """Room to read a deep tree of `path`; a tree deeper still is an error, never a silent pass."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _ROOM))
    try:
        yield
    except RecursionError as exc:
        raise ScoreDiffError(
            f"{path} nests its code deeper than score-diff can read as a syntax tree; "
            "split the expression (a long chain of + or and) into smaller ones"
        ) from exc
    finally:
        sys.setrecursionlimit(limit)
