"""Special-casing: source that returns a base test's expected value for that test's own input.

The source side is structural: a branch (`if`, a conditional expression, a `match` case) that
compares a value with a literal and returns a literal, and a dict literal that maps literals to
literals. The spec side is the base's tests: each assertion pairs the literals passed to the
call it checks (its inputs) with the literal it expects, and each `parametrize` case pairs its
leading literals with its last one.

Dispatch on a keyword is how ordinary code reads (`if scheme == "https": return 443`, a table
of status codes), so a branch counts only when its literal is data-like (a string with
spaces, slashes, `%`, `?` or `=`, or longer than 24 characters; a float with a fraction; an
int over 1024), and only when at least half of the branches of its function (or entries of
its table) are such test pairs: a table that maps many values, a few of them tested, is a
table, not a special case.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterator, Sequence

from ..records import NamedTuple
from . import pyast

SPECIAL = "special-cased-input"
MAX_TEST_FILES = 300  # the base's test files read, at most: the spec, not the whole repository
_PUNCTUATION = re.compile(r"[^A-Za-z0-9_.\-]")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

Literal = tuple[str, object]  # (type name, value): 1, True and "1" are different literals
Pair = tuple[Literal, Literal]  # (input, expected)


class Candidate(NamedTuple):
    key: str
    line: int
    pairs: tuple[Pair, ...]  # what this branch compares and what it returns
    group: tuple[tuple[Pair, ...], ...]  # every branch of its function, or every entry of its table


def _literal(node: ast.AST | None) -> Literal | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        return (type(value).__name__, -value) if isinstance(value, (int, float)) else None
    if isinstance(node, ast.Constant) and not isinstance(node.value, type(...)):
        return (type(node.value).__name__, node.value)
    if isinstance(node, ast.Tuple) and node.elts:  # ("user", "pass word"): a tuple of literals is one
        items = [_literal(e) for e in node.elts]
        return ("tuple", tuple(items)) if all(items) else None
    return None


def literal(node: ast.AST | None) -> Literal | None:
    """A constant, a negated number, or a tuple of literals, as (type name, value); None otherwise."""
    return _literal(node)


def data_like(lit: Literal) -> bool:
    """A literal that names one input rather than a kind of input."""
    value = lit[1]
    if lit[0] == "tuple" and isinstance(value, tuple):
        return any(data_like(item) for item in value)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        return len(value) > 24 or (len(value) >= 4 and bool(_PUNCTUATION.search(value)))
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, float):
        return not value.is_integer()
    return isinstance(value, int) and abs(value) > 1024


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function body, not those of a function or class nested in it (a loop:
    a deep expression costs no stack)."""
    stack = list(reversed(list(ast.iter_child_nodes(node))))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, _DEFS):
            stack.extend(reversed(list(ast.iter_child_nodes(child))))


def _compared(test: ast.expr) -> list[Literal]:
    """The literals `test` compares a value with: `x == L`, `x in (L, M)`, `x is L`, and/or of those."""
    found: list[Literal] = []
    for node in pyast.breadth(test):  # in ast.walk's order: the pairs are listed in it
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.In, ast.Is)) for op in node.ops):
            for side in (node.left, *node.comparators):
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                found += [lit for lit in map(_literal, items) if lit is not None]
    return found


def _returned(body: Sequence[ast.AST]) -> list[Literal]:
    found: list[Literal] = []
    for stmt in body:
        for node in [stmt, *_walk(stmt)]:
            if isinstance(node, ast.Return) and (lit := _literal(node.value)) is not None:
                found.append(lit)
    return found


def _pairs(compared: list[Literal], returned: list[Literal]) -> tuple[Pair, ...]:
    return tuple((c, r) for c in compared for r in returned)


def branch(node: ast.AST) -> tuple[Pair, ...]:
    """What a branch (`if`, a conditional expression, a `match` case) compares with a literal
    and returns as a literal; () for any other node."""
    if isinstance(node, ast.If):
        compared = _compared(node.test)  # most tests compare with no literal: the body is not walked
        return _pairs(compared, _returned(node.body)) if compared else ()
    if isinstance(node, ast.IfExp):
        body = _literal(node.body)
        return _pairs(_compared(node.test), [body] if body else [])
    if isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
        value = _literal(node.pattern.value)
        return _pairs([value] if value else [], _returned(node.body))
    return ()


def grouped(scope: str, found: Sequence[tuple[ast.AST, tuple[Pair, ...]]]) -> Iterator[Candidate]:
    """The branches of one function, each a candidate with all of them as its group."""
    group = tuple(pairs for _, pairs in found)
    for node, pairs in found:
        line = node.pattern.lineno if isinstance(node, ast.match_case) else getattr(node, "lineno", 0)
        yield Candidate(f"{SPECIAL}|{scope}|{ast.dump(node)}", line, pairs, group)


def table(scope: str, node: ast.Dict) -> Iterator[Candidate]:
    """A dict literal of literals: each entry is a branch, the table its group."""
    literals = ((_literal(k), _literal(v)) for k, v in zip(node.keys, node.values, strict=True))
    entries: list[tuple[Pair, ...]] = [((k, v),) for k, v in literals if k and v]
    if entries:
        yield Candidate(
            f"{SPECIAL}|{scope}|{ast.dump(node)}", node.lineno, tuple(e[0] for e in entries), tuple(entries)
        )


class Spec:
    """The (input, expected) literal pairs of the base's tests, read only when a candidate needs them."""

    def __init__(self, sources: Callable[[], Sequence[bytes]]) -> None:
        self._sources = sources
        self._pairs: set[Pair] | None = None
        self._digests: set[str] | None = None

    def pairs(self) -> set[Pair]:
        if self._pairs is None:
            self._pairs = set()
            for source in self._sources():
                tree = pyast.parse(source)
                if tree is not None:
                    self._pairs.update(_test_pairs(tree))
        return self._pairs

    def digests(self) -> set[str]:
        """`pair_digest` of each pair: what a kept candidate (results_cache.py) is matched against."""
        if self._digests is None:
            self._digests = {d for p in self.pairs() if (d := pair_digest(p)) is not None}
        return self._digests

    def matched_kept(self, own: Sequence[str], group: Sequence[Sequence[str]]) -> bool:
        """`matched` of a kept candidate: `own` and each of `group` the digests of the data-like
        pairs (`kept_pairs`) of the candidate's own pairs and of each member of its group."""
        known = self.digests()
        if not any(d in known for d in own):
            return False
        hits = sum(1 for g in group if any(d in known for d in g))
        return 2 * hits >= len(group)

    def matched(self, candidate: Candidate) -> Pair | None:
        """The test pair this candidate special-cases, when its group is mostly such pairs."""

        def hit(pairs: tuple[Pair, ...]) -> Pair | None:
            return next((p for p in pairs if data_like(p[0]) and p in self.pairs()), None)

        own = hit(candidate.pairs)
        if own is None:
            return None
        hits = sum(1 for g in candidate.group if hit(g))
        return own if 2 * hits >= len(candidate.group) else None


def kept_pairs(pairs: Sequence[Pair]) -> list[str] | None:
    """The digests of the pairs `matched` can hit (a data-like input), None if one cannot be written."""
    found = [pair_digest(p) for p in pairs if data_like(p[0])]
    return None if None in found else found  # type: ignore[return-value]


def pair_digest(pair: Pair) -> str | None:
    """A digest equal for two pairs exactly when they are equal (==, as `matched` compares them): no
    text of the literals kept. None for a value of a type no literal has."""
    try:
        text = repr((_canonical(pair[0]), _canonical(pair[1])))
    except TypeError:
        return None
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()


def _canonical(lit: Literal) -> tuple[str, object]:
    """`lit` with each value written so that equal values read alike: True == 1, 0.0 == -0.0."""
    name, value = lit
    if isinstance(value, tuple):
        return name, tuple(_canonical(item) for item in value)
    if isinstance(value, int):
        return name, repr(int(value))
    if isinstance(value, float):
        return name, repr(value + 0.0)  # -0.0 + 0.0 is 0.0
    if isinstance(value, complex):
        return name, repr(value + 0j)  # for each part
    if value is None or isinstance(value, (str, bytes)):
        return name, repr(value)
    raise TypeError(name)


def _test_pairs(tree: ast.Module) -> Iterator[Pair]:
    return test_pairs(tree, tree)


def test_pairs(tree: ast.Module, within: ast.AST | Sequence[ast.AST]) -> Iterator[Pair]:
    """The (input, expected) pairs of the tests in `within` (the module, or one test's function and
    the decorators around it), with the module's constants read as their literals."""
    constants = {
        n.targets[0].id: lit
        for n in tree.body
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        if (lit := _literal(n.value)) is not None
    }

    def expected(node: ast.AST) -> Literal | None:
        return constants.get(node.id) if isinstance(node, ast.Name) else _literal(node)

    roots = [within] if isinstance(within, ast.AST) else within
    for node in (n for root in roots for n in ast.walk(root)):
        if isinstance(node, ast.Assert):
            yield from _checked(node.test, expected)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name in ("assertEqual", "assertEquals", "assertIs") and len(node.args) >= 2:
                yield from _sides(node.args[0], node.args[1], expected)
            elif name in ("assertTrue", "assertFalse") and node.args:
                yield from _inputs(node.args[0], ("bool", name == "assertTrue"))
            elif name == "parametrize" and len(node.args) >= 2:
                yield from _parametrized(node.args[1], expected)


def _checked(test: ast.expr, expected: Callable[[ast.AST], Literal | None]) -> Iterator[Pair]:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)):
        yield from _sides(test.left, test.comparators[0], expected)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _inputs(test.operand, ("bool", False))
    elif isinstance(test, ast.Call):
        yield from _inputs(test, ("bool", True))


def _sides(a: ast.AST, b: ast.AST, expected: Callable[[ast.AST], Literal | None]) -> Iterator[Pair]:
    for call, want in ((a, b), (b, a)):
        lit = expected(want)
        if lit is not None:
            yield from _inputs(call, lit)


def _inputs(side: ast.AST, want: Literal) -> Iterator[Pair]:
    """(each literal passed to a call in `side`, `want`)."""
    for node in ast.walk(side):
        if isinstance(node, ast.Call):
            for arg in (*node.args, *(k.value for k in node.keywords)):
                for n in ast.walk(arg):
                    if (lit := _literal(n)) is not None:
                        yield lit, want


def _parametrized(values: ast.expr, expected: Callable[[ast.AST], Literal | None]) -> Iterator[Pair]:
    if not isinstance(values, (ast.List, ast.Tuple)):
        return
    for case in values.elts:
        if isinstance(case, ast.Call) and case.args:  # pytest.param(...)
            case = ast.Tuple(list(case.args), ast.Load())
        if isinstance(case, (ast.Tuple, ast.List)) and len(case.elts) >= 2:
            want = expected(case.elts[-1])
            if want is not None:
                for arg in case.elts[:-1]:
                    yield from ((lit, want) for n in ast.walk(arg) if (lit := _literal(n)) is not None)
