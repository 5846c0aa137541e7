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
import gc
import hashlib
import operator
import re
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial

from ..errors import ScoreDiffError
from ..model import Hunk
from ..records import NamedTuple

_ROOM = 8000  # frames: a few per level of the deepest tree CPython compiles


TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import TypeVar

    _K = TypeVar("_K")
    _V = TypeVar("_V")
_TREES: dict[bytes, ast.Module] = {}  # by blob id: every check reads a blob's one tree
_MAX_TREES = 1024  # a scoring of more modules keeps the newest this many (one_scoring lets all go)
# Blobs that are not Python, kept apart with a far higher bound: a blob id costs ~90 bytes here, and
# on a change of 2,000 such files each check after the first would otherwise compile each one again.
# (Outside one_scoring, as after the test run in a long-lived server, the bound keeps it small.)
_NOT_PYTHON: set[bytes] = set()
_MAX_NOT_PYTHON = 1 << 16


_IDS: dict[int, tuple[bytes, bytes]] = {}  # id(source) -> (source, its blob id); source held, so id() stays its
# Within one_scoring every source is held by the checks' ReadOnce anyway, so remembering each costs
# a dict entry: past 1,024 modules each check would otherwise hash every one again (large: 2,374).
_SCORING_IDS = 1 << 16
_ids_bound = [_MAX_TREES]


def blob_id(source: bytes) -> bytes:
    """The git blob id (SHA-1) of `source`: the key of every per-blob cache of the checks.

    Each check asks it of the same bytes (checks/reads.py hands every check the one object read),
    about six times per changed module: hashed once, remembered by the object itself."""
    known = _IDS.get(id(source))
    if known is not None and known[0] is source:
        return known[1]
    key = hashlib.sha1(b"blob %d\0" % len(source) + source, usedforsecurity=False).digest()
    _remember(_IDS, id(source), (source, key), _ids_bound[0])
    return key


def as_named(source: bytes) -> bytes:
    """`source` as Python reads its names, for a quick look for a name before the walk: Python folds
    every identifier to NFKC (PEP 3131), so `sys.\uff41rgv` is `sys.argv` and a look at the raw bytes
    would miss it. ASCII source is returned as it is."""
    if source.isascii():
        return source
    import unicodedata

    return unicodedata.normalize("NFKC", source.decode("utf-8", "replace")).encode("utf-8", "surrogatepass")


def parse(source: bytes | None) -> ast.Module | None:
    """The module's tree; None when it is absent or is not Python that CPython would compile.

    Parsed once per blob (keyed by its git blob id) for every check that reads it; the trees are
    shared, so a reader that rewrites one works on a copy (assertions.py deep-copies first)."""
    if source is None:
        return None
    key = blob_id(source)
    if key in _TREES:
        return _TREES[key]
    if key in _NOT_PYTHON:
        return None
    try:
        tree = ast.parse(source.decode("utf-8", "replace"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # Python could not import it either
        if len(_NOT_PYTHON) >= _MAX_NOT_PYTHON:
            _NOT_PYTHON.clear()  # forgetting costs a compile again, never a verdict
        _NOT_PYTHON.add(key)
        return None
    _remember(_TREES, key, tree)
    return tree


def _remember(cache: dict[_K, _V], key: _K, value: _V, bound: int = _MAX_TREES) -> None:
    if len(cache) >= bound:
        del cache[next(iter(cache))]
    cache[key] = value


@contextlib.contextmanager
def one_scoring() -> Iterator[None]:
    """The checks of one scoring: the cyclic garbage collector off while they run, and the trees
    and walks they shared let go when they end (while it is still off).

    A syntax tree holds no reference cycle, so reference counting frees it whole; but each of its
    nodes (and each node's attribute dict) is an object the collector tracks, and each of the
    collector's full passes, during the checks and at the interpreter's exit, walks every tree
    still alive. On a change of 200 modules those passes cost about as much CPU as all the checks
    together (docs/development.md, "What scoring costs")."""
    was = gc.isenabled()
    gc.disable()
    _ids_bound[0] = _SCORING_IDS
    try:
        yield
    finally:
        _ids_bound[0] = _MAX_TREES
        _TREES.clear()
        _FLATS.clear()
        _NOT_PYTHON.clear()
        _IDS.clear()
        if was:
            gc.enable()


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


Scoped = tuple[str, ast.AST]  # a node with the qualified name of the function or class around it


class Flat(NamedTuple):
    """Every node of a module in one walk: source order (depth first, as the code reads), each with
    the qualified name of the function or class around it (its own, for a def). The nodes of each
    top-level statement are one run of the list, so the nodes of the units a diff touches are a
    few slices of it, never a second walk."""

    tree: ast.Module  # the tree walked: the statements `of` takes are its own
    nodes: list[Scoped]
    spans: dict[int, tuple[int, int]]  # id() of each top-level statement of `tree` -> its run in `nodes`

    def of(self, statements: Iterable[ast.stmt]) -> list[Scoped]:
        """The nodes of `statements` (top-level statements of `tree`), in their order."""
        found: list[Scoped] = []
        for stmt in statements:
            start, end = self.spans[id(stmt)]
            found += self.nodes[start:end]
        return found


_FLATS: dict[bytes, Flat] = {}


def flat(tree: ast.Module, source: bytes) -> Flat:
    """The nodes of `tree`, the tree of `source` (`Flat`): walked once per blob for every check."""
    key = blob_id(source)
    found = _FLATS.get(key)
    if found is None or found.tree is not tree:  # a tree parsed again after the cache let it go
        nodes: list[Scoped] = []
        spans: dict[int, tuple[int, int]] = {}
        for stmt in tree.body:
            start = len(nodes)
            nodes += scoped([stmt])
            spans[id(stmt)] = (start, len(nodes))
        found = Flat(tree, nodes, spans)
        _remember(_FLATS, key, found)
    return found


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Fields that never hold a node the checks read: names, strings, numbers and constants, and the
# one-word nodes (Load, Add, Eq, And, ...) that no shape is made of.
_LEAF_KINDS = frozenset(
    {"identifier", "string", "constant", "int", "expr_context", "boolop", "operator", "unaryop", "cmpop"}
)
_WORDS = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SIGNATURE = re.compile(r"\w+\((.*)\)")  # CPython's docstring of a node class: its ASDL line
Children = Callable[[ast.AST], Sequence[object]]
_CHILDREN: dict[type, Children | None] = {}


def _children_of(cls: type) -> Children | None:
    """How to read the fields of a node class that may hold child nodes, last first (None: it has
    none), from the class's ASDL signature (`FunctionDef(identifier name, arguments args, stmt* body,
    ...)`). A class whose signature does not read that way has its every field read, and kept where
    it holds a node, as `ast.iter_child_nodes` reads them."""
    every: tuple[str, ...] = getattr(cls, "_fields", ())
    found = _SIGNATURE.fullmatch((cls.__doc__ or "").strip().split("\n", 1)[0])
    kinds = [part.split() for part in found.group(1).split(",")] if found and found.group(1) else []
    if found and [k[1] for k in kinds if len(k) == 2] == list(every) and len(kinds) == len(every):
        fields = [name for kind, name in reversed(kinds) if kind.rstrip("*?") not in _LEAF_KINDS]
        read: Children | None = _getter(fields) if fields else None
    else:
        read = partial(_every_child, every[::-1]) if every else None
    _CHILDREN[cls] = read
    return read


def _getter(fields: Sequence[str]) -> Children:
    if len(fields) > 1:
        return operator.attrgetter(*fields)
    one = operator.attrgetter(fields[0])
    return lambda node: (one(node),)


def _every_child(fields: Sequence[str], node: ast.AST) -> list[object]:
    """Each field that holds a node, and each list of nodes with what is not a node taken out: the
    reader's lists then hold only nodes or None, as the lists of a signature's node fields do."""
    values = (getattr(node, name, None) for name in fields)
    return [
        [i for i in v if _is_node(i)] if isinstance(v, list) else v
        for v in values
        if isinstance(v, list) or _is_node(v)
    ]


def _is_node(value: object) -> bool:
    return isinstance(value, ast.AST) and not isinstance(value, _WORDS)


def scoped(roots: Sequence[ast.AST], scope: str = "") -> list[Scoped]:
    """Every node under `roots` (the roots included), in source order, with the qualified name of the
    function or class around it (its own, for a def); the one-word nodes (contexts, operators) left
    out. A loop, not recursion: a deep expression costs no stack."""
    found: list[Scoped] = []
    emit = found.append
    stack: list[Scoped] = [(scope, r) for r in reversed(roots)]
    push, pop = stack.append, stack.pop
    while stack:
        outer, node = pop()
        cls = node.__class__
        inner = (f"{outer}.{node.name}" if outer else node.name) if cls in _DEFS else outer  # type: ignore[attr-defined]
        emit((inner, node))
        try:
            read = _CHILDREN[cls]
        except KeyError:
            read = _children_of(cls)
        if read is None:
            continue
        for value in read(node):
            if value.__class__ is list:  # of nodes of one kind, never a word (_children_of leaves those out)
                for item in reversed(value):
                    if item is not None:  # a Dict's keys and kw_defaults hold None
                        push((inner, item))
            elif value is not None:
                push((inner, value))  # type: ignore[arg-type]
    return found


def breadth(root: ast.AST) -> Iterator[ast.AST]:
    """`root` and every node under it in `ast.walk`'s order (breadth first), the one-word nodes
    (contexts, operators) left out: for the readers whose first match is the one they report."""
    todo = deque([root])
    take, add, more = todo.popleft, todo.append, todo.extend
    while todo:
        node = take()
        yield node
        cls = node.__class__
        read = _CHILDREN[cls] if cls in _CHILDREN else _children_of(cls)
        if read is None:
            continue
        for value in reversed(read(node)):  # the readers give the fields last first
            if value.__class__ is list:
                more(item for item in value if item is not None)
            elif value is not None:
                add(value)  # type: ignore[arg-type]


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
