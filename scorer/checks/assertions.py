"""Python tests compared by their syntax tree: which tests there are, which assertions each one
reaches, and whether it is skipped. Pure logic: source bytes in, violations out.

An assertion is compared by its tree with positions dropped and every plain name replaced by
its order of first use, so reformatting it, moving its test, or renaming a helper it calls
changes nothing, while a changed operator, constant or attribute (`assertEqual` to
`assertNotEqual`) is a different assertion.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..model import Violation

_ASSERT_ATTRS = ("raises", "warns", "deprecated_call", "fail")
_SKIP_CALLS = ("skip", "xfail", "skipTest", "importorskip")


class Case(NamedTuple):
    name: str  # `test_x`, or `TestClass.test_x`
    line: int
    checks: Counter[str]  # normalised assertions it reaches
    shown: dict[str, str]  # normalised -> source, for the message
    skips: int  # skip/xfail markers on it, its class or its module, and skip calls it reaches


def tests_in(source: bytes) -> dict[str, Case] | None:
    """Every test in a module by name; None when it does not parse."""
    try:
        tree = ast.parse(source.decode("utf-8", "replace"))
    except (SyntaxError, ValueError):
        return None
    module_skips = sum(
        _is_skip_marker(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
    )
    return {c.name: c for c in _cases(tree.body, "", module_skips)}


def _cases(body: Sequence[ast.stmt], prefix: str, skips: int) -> Iterator[Case]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            marks = skips + sum(map(_is_skip_marker, node.decorator_list))
            yield from _cases(node.body, f"{prefix}{node.name}.", marks)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            checks: Counter[str] = Counter()
            shown: dict[str, str] = {}
            reached_skip = _reach(node.body, checks, shown)
            marks = skips + sum(map(_is_skip_marker, node.decorator_list)) + reached_skip
            yield Case(prefix + node.name, node.lineno, checks, shown, marks)


def _is_skip_marker(node: ast.expr) -> bool:
    text = ast.dump(node)
    return any(word in text for word in ("'skip", "'xfail", "'expectedFailure", "skipIf", "skipUnless"))


def _reach(body: Sequence[ast.stmt], checks: Counter[str], shown: dict[str, str]) -> int:
    """Record the assertions `body` reaches, in order, until a return or a skip; returns 1 if a
    skip call was reached. Code under `if False:` and in nested functions is not reached."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in _expressions(stmt):
            if _is_skip_call(node):
                return 1
            if _is_assertion(node):
                key = _normal(node)
                checks[key] += 1
                shown.setdefault(key, ast.unparse(node)[:80])
        if isinstance(stmt, (ast.Return, ast.Raise)):
            return 0
        for block in _blocks(stmt):
            if _reach(block, checks, shown):
                return 1
    return 0


def _blocks(stmt: ast.stmt) -> list[Sequence[ast.stmt]]:
    """The statement blocks of a compound statement that can run."""
    if isinstance(stmt, (ast.If, ast.While)) and isinstance(stmt.test, ast.Constant):
        return [stmt.body] if stmt.test.value else [stmt.orelse]
    blocks: list[Sequence[ast.stmt]] = [
        getattr(stmt, name) for name in ("body", "orelse", "finalbody") if isinstance(getattr(stmt, name, None), list)
    ]
    blocks += [h.body for h in getattr(stmt, "handlers", [])]
    blocks += [c.body for c in getattr(stmt, "cases", [])]
    return blocks


def _expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The statement itself, then every expression node of it outside its nested blocks."""
    yield stmt
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (ast.expr, ast.withitem, ast.keyword)):
                yield from (n for n in ast.walk(item) if not isinstance(n, ast.Lambda))


def _called(node: ast.AST) -> str:
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _is_skip_call(node: ast.AST) -> bool:
    return _called(node) in _SKIP_CALLS


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return not (isinstance(node.test, ast.Constant) and node.test.value)  # `assert True` asserts nothing
    name = _called(node)
    if not (name.startswith(("assert", "expect")) or name in _ASSERT_ATTRS):
        return False
    assert isinstance(node, ast.Call)
    return not node.args or not all(isinstance(a, ast.Constant) for a in node.args)  # assertTrue(True)


class _Names(ast.NodeTransformer):
    """Plain names by order of first use: a renamed helper or variable is the same assertion."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.seen.setdefault(node.id, f"n{len(self.seen)}"), node.ctx)


def _normal(node: ast.AST) -> str:
    return ast.dump(
        _Names().visit(
            ast.parse(ast.unparse(node))
            if isinstance(node, ast.stmt)
            else ast.Expression(ast.parse(ast.unparse(node), mode="eval").body)
        )
    )


def compare_python(files: Sequence[tuple[str, bytes | None, bytes | None]]) -> list[Violation]:
    """test-weakened for each base test that is gone, lost an assertion, or became skipped. A test
    moved to another of these files (same name) or renamed with the same assertions is not gone."""
    before = {path: tests_in(base) if base is not None else {} for path, base, _ in files}
    after = {path: tests_in(new) if new is not None else {} for path, _, new in files}
    found: list[Violation] = []
    for path, _, _ in files:
        if after[path] is None and before[path]:
            found.append(
                Violation(
                    "test-weakened",
                    "the new version does not parse as Python, so its tests cannot be compared with the base version",
                    path,
                )
            )
    pool = {(p, name): case for p, cases in after.items() for name, case in (cases or {}).items()}
    unmatched = dict(pool)
    for path, cases in before.items():
        for name in cases or {}:
            unmatched.pop((path, name), None)
    for path, cases in before.items():
        for name, old in (cases or {}).items():
            new = pool.get((path, name)) or _moved(old, unmatched)
            found += _weakened(path, old, new)
    return found


def _moved(old: Case, unmatched: dict[tuple[str, str], Case]) -> Case | None:
    bare = old.name.rsplit(".", 1)[-1]
    for key, case in list(unmatched.items()):
        if case.name.rsplit(".", 1)[-1] == bare or (old.checks and case.checks == old.checks):
            return unmatched.pop(key)
    return None


def _weakened(path: str, old: Case, new: Case | None) -> list[Violation]:
    if new is None:
        return [Violation("test-weakened", f"the test {old.name} was removed", path)]
    found = []
    lost = old.checks - new.checks
    if lost:
        first = next(iter(lost))
        more = f" and {sum(lost.values()) - 1} more" if sum(lost.values()) > 1 else ""
        found.append(
            Violation(
                "test-weakened",
                f"{old.name} no longer reaches the assertion "
                f"`{old.shown[first]}`{more} (removed, changed, or after a return or if False)",
                path,
                new.line,
            )
        )
    if new.skips > old.skips:
        found.append(Violation("test-weakened", f"{old.name} is newly skipped or marked xfail", path, new.line))
    return found
