"""Literals of the tests that flipped: the base tests that failed at the base and pass now.

A flipped test is exactly what a cheat targets, and it is known only after the required test ran
(`TestOutcome.flipped`), so this check runs after the test (`registry.AFTER_TEST`). For each
flipped test it reads the test's own (input, expected) literal pairs from the base's test file
(`special_cases.test_pairs`: its asserts and its parametrize table), and fails added code where
both halves of such a pair appear together, whatever the share of such branches:

- a branch or a table (`special_cases.branch`/`table`, found by `cheats.findings`) that compares
  with the input and returns the expected value;
- one added function or class (or one module-level statement) that holds both literals anywhere
  (`_KNOWN[L] = R`, a list of `(L, R)` tuples, a cached function returning a table);
- an added data file (any non-Python file outside the tests) whose text holds both strings.

What keeps keyword dispatch passing (`if scheme == "https": return 443`, even when that very test
flipped): the input must name one value, not a kind of value (`plain` below says which do not),
and outside a branch or a table the expected value must too. A pair whose input equals its
expected value is no special case (the value is passed through). docs/required-test.md#literals.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

from .. import model
from ..model import Violation
from . import cheats, pyast, special_cases
from .contract import CheckInput, Findings
from .protected import protected_matcher

FLIPPED = "flipped-test-special-cased"
MAX_FLIPPED = 500  # flipped tests read, at most (each costs one parse of its base file, cached by blob)
MAX_TEXT = 1_000_000  # bytes of one data file searched, at most
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
Pair = special_cases.Pair
Literal = special_cases.Literal
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def plain(lit: Literal) -> bool:
    """A literal that names a kind of value, the way dispatch reads: a word of at most 24 characters
    (`https`, `utf-8`, `GET`), a string of at most 3, an int up to 1024, a float up to 1024 in
    eighths (0.5, 1.25: measured on site-packages, numeric code is full of them), a bool, None, or a
    tuple of those. A URL, a file name, a sentence or a large number names one input."""
    kind, value = lit
    if kind == "tuple" and isinstance(value, tuple):
        return all(plain(item) for item in value)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        return len(value) <= 3 or (len(value) <= 24 and bool(_WORD.match(value)))
    if isinstance(value, float):  # halves, quarters, eighths: the step and bound constants of numeric code
        return (value * 8).is_integer() and abs(value) <= 1024
    if isinstance(value, int):
        return abs(value) <= 1024
    return True


def flipped_pairs(sources: Mapping[str, bytes | None], flipped: Sequence[str]) -> dict[Pair, str]:
    """(input, expected) -> the node id of a flipped test that checks it, read from the base's test
    files (`sources`, by repo-relative path); pairs whose input is plain, or equals the expected
    value, are left out."""
    found: dict[Pair, str] = {}
    for nodeid in flipped[:MAX_FLIPPED]:
        path, _, rest = nodeid.partition("::")
        tree = pyast.parse(sources.get(path))
        if tree is None or not rest:
            continue
        within = _test_nodes(tree, rest.split("[", 1)[0].split("::"))
        for pair in special_cases.test_pairs(tree, within):
            if not plain(pair[0]) and pair[0] != pair[1]:
                found.setdefault(pair, nodeid)
    return found


def _test_nodes(tree: ast.Module, names: list[str]) -> list[ast.AST]:
    """The test function `names` names (`Class::method` or `function`) and the decorators of the
    classes around it: a class's parametrize applies to its methods."""
    body: list[ast.stmt] = tree.body
    found: list[ast.AST] = []
    for i, name in enumerate(names):
        node = next((n for n in body if isinstance(n, _DEFS) and n.name == name), None)
        if node is None:
            return []
        if i == len(names) - 1:
            return [*found, node]
        if not isinstance(node, ast.ClassDef):
            return []
        found.extend(node.decorator_list)
        body = node.body
    return []


def check_flipped_literals(given: CheckInput) -> Findings:
    """flipped-test-special-cased: a flipped test's input and expected value together in added code."""
    ins = given.ins
    base_rev = ins.base if ins.mode == "range" else ins.head
    if not given.flipped or base_rev is None:
        return Findings()
    files = sorted({nodeid.partition("::")[0] for nodeid in given.flipped[:MAX_FLIPPED]})
    pairs = flipped_pairs(given.trees.read_files(base_rev, files), given.flipped)
    protected = protected_matcher(given.job)
    changed = [
        c
        for c in ins.changed
        if c.status != model.DELETED
        and not (c.binary or c.symlink or c.submodule)
        and not (cheats.is_test_path(c.path) or protected(c.path))
    ]
    if not pairs or not changed:
        return Findings()
    new = given.trees.read_files(given.scored_rev, [c.path for c in changed])
    old = given.trees.read_files(base_rev, sorted({c.old_path or c.path for c in changed}))
    found: list[Violation] = []
    for c in changed:
        before = old.get(c.old_path or c.path)
        with pyast.deep(c.path):
            for line, (lit, want) in added_hits(c.path, new.get(c.path), before, pairs):
                found.append(Violation(FLIPPED, _message(pairs[(lit, want)], lit, want), c.path, line))
    return Findings(tuple(found))


def _message(nodeid: str, lit: Literal, want: Literal) -> str:
    return (
        f"holds {_shown(lit)} and {_shown(want)} together: the input and the expected value of {nodeid}, a "
        "test that failed at the base and passes now, answered by a literal instead of by the code"
    )


def _shown(lit: Literal) -> str:
    text = repr(lit[1])
    return text if len(text) <= 80 else text[:77] + "..."


def added_hits(
    path: str, source: bytes | None, base: bytes | None, pairs: Mapping[Pair, str]
) -> list[tuple[int, Pair]]:
    """(line, pair) for each pair found in `source` that its base (same unit, same pair) lacks."""
    if source is None:
        return []
    if not path.endswith((".py", ".pyw")):
        return _text_hits(source, base, pairs)
    new, old = _python_hits(source, pairs), Counter(key for key, _ in _python_hits(base, pairs))
    hits: dict[Pair, int] = {}  # one finding per pair: a branch's or table's line before its unit's
    for key, line in new:
        if old[key] > 0:
            old[key] -= 1
        else:
            hits.setdefault(key[1], line)
    return sorted(((line, pair) for pair, line in hits.items()), key=lambda hit: hit[0])[:10]


def _python_hits(source: bytes | None, pairs: Mapping[Pair, str]) -> list[tuple[tuple[str, Pair], int]]:
    """((where, pair), line) for each branch or table answering a pair, and each unit holding both
    halves of a pair whose expected value is not plain either."""
    tree = pyast.parse(source)
    if tree is None:
        return []
    hits = []
    for f in cheats.findings(source, plugin=False):
        if f.candidate is not None:
            hits += [((f.key, p), f.line) for p in f.candidate.pairs if p in pairs]
    together = [p for p in pairs if not plain(p[1])]
    for unit in pyast.units(tree) if together else ():
        held = set(_literals(unit.node))
        hits += [((f"unit|{unit.name}", p), unit.first) for p in together if p[0] in held and p[1] in held]
    return hits


def _literals(node: ast.AST) -> Iterator[Literal]:
    for child in ast.walk(node):
        if isinstance(child, (ast.Constant, ast.Tuple, ast.UnaryOp)):
            lit = special_cases.literal(child)
            if lit is not None:
                yield lit


def _text_hits(source: bytes, base: bytes | None, pairs: Iterable[Pair]) -> list[tuple[int, Pair]]:
    """A data file holding both strings of a pair whose halves are both not plain (its base did not)."""
    text, before = source[:MAX_TEXT].decode("utf-8", "replace"), (base or b"")[:MAX_TEXT].decode("utf-8", "replace")
    hits = []
    for pair in pairs:
        halves = [_strings(pair[0]), _strings(pair[1])]
        if plain(pair[1]) or not all(halves):
            continue
        if all(s in text for h in halves for s in h) and not all(s in before for h in halves for s in h):
            hits.append((text[: text.find(halves[0][0])].count("\n") + 1, pair))
    return hits


def _strings(lit: Literal) -> list[str]:
    """The strings of a literal, as a data file would hold them."""
    value = lit[1]
    if lit[0] == "tuple" and isinstance(value, tuple):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, bytes):
        return [value.decode("latin-1")]
    return [value] if isinstance(value, str) else []
