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
import sys
from collections.abc import Iterator

from ..errors import ScoreDiffError

_ROOM = 8000  # frames: a few per level of the deepest tree CPython compiles


def parse(source: bytes | None) -> ast.Module | None:
    """The module's tree; None when it is absent or is not Python that CPython would compile."""
    if source is None:
        return None
    try:
        return ast.parse(source.decode("utf-8", "replace"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # Python could not import it either
        return None


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
