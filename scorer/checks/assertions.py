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

from ..model import Violation
from ..records import NamedTuple
from . import pyast

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import TypeVar

    _N = TypeVar("_N")

_ASSERT_ATTRS = ("raises", "warns", "deprecated_call", "fail")
_SKIP_CALLS = ("skip", "xfail", "skipTest", "importorskip")


def _copied(node: _N) -> _N:
    """A deep copy to rewrite; `copy` is imported only once an assertion is compared (issue 29)."""
    import copy

    return copy.deepcopy(node)


class Case(NamedTuple):
    name: str  # `test_x`, or `TestClass.test_x`
    line: int
    checks: Counter[str]  # normalised assertions it reaches, each under its conditions; its parametrize cases
    shown: dict[str, str]  # normalised -> source, for the message
    skips: int  # skip/xfail markers on it, its class or its module, and skip calls it reaches


def tests_in(source: bytes) -> dict[str, Case] | None:
    """Every test in a module by name; None when it does not parse."""
    tree = pyast.parse(source)
    if tree is None:
        return None
    module_skips = sum(
        _is_skip_marker(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
    )
    return {c.name: c for c in _cases(tree.body, "", module_skips, (), _bindings(tree.body))}


def _bindings(body: Sequence[ast.stmt]) -> dict[str, ast.expr]:
    """Module-level `NAME = value` (the last one wins): what an assertion's constant stands for."""
    found: dict[str, ast.expr] = {}
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
    return found


def _cases(
    body: Sequence[ast.stmt],
    prefix: str,
    skips: int,
    marks: tuple[ast.expr, ...],
    module: dict[str, ast.expr],
) -> Iterator[Case]:
    for node in body:
        if isinstance(node, ast.ClassDef):
            skipped = skips + sum(map(_is_skip_marker, node.decorator_list))
            yield from _cases(node.body, f"{prefix}{node.name}.", skipped, (*marks, *node.decorator_list), module)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            walk = _Walk(module)
            reached_skip = walk.reach(node.body, ())[0]
            for mark in (*marks, *node.decorator_list):
                walk.parametrized(mark)
            skipped = skips + sum(map(_is_skip_marker, node.decorator_list)) + reached_skip
            yield Case(prefix + node.name, node.lineno, walk.checks, walk.shown, skipped)


def _is_skip_marker(node: ast.expr) -> bool:
    text = ast.dump(node)
    return any(word in text for word in ("'skip", "'xfail", "'expectedFailure", "skipIf", "skipUnless"))


# What leaves a block early: a return leaves the test, a continue or break only its loop.
_LEAVES_TEST, _LEAVES_LOOP = "return", "loop"
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))  # try/except* is 3.11+
# Exceptions that an assertion raises (AssertionError) or that catch it.
_CATCH_ASSERTION = frozenset({"AssertionError", "Exception", "BaseException", "failureException"})


class _Walk:
    """The assertions one test reaches, each keyed by its normal form and the conditions it runs
    under: an enclosing `if`, a `for` and what it iterates, an earlier statement that may return,
    or a `try`/`suppress` that swallows AssertionError. Names bound to a value first (a local, a
    module constant) stand for that value, so `result = f(x); assert result == 90` is the
    assertion `assert f(x) == 90`, and a changed module constant is a changed assertion."""

    def __init__(self, module: dict[str, ast.expr]) -> None:
        self.module = module
        self.local: dict[str, ast.expr] = {}
        self.checks: Counter[str] = Counter()
        self.shown: dict[str, str] = {}

    def reach(self, body: Sequence[ast.stmt], guards: tuple[str, ...]) -> tuple[int, set[str]]:
        """(1 if a skip call was reached, what may leave the block early). Stops at a return, a
        raise or a skip; code under `if False:` and in nested functions is not reached."""
        leaves: set[str] = set()
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for node in _expressions(stmt):
                if _is_skip_call(node):
                    return 1, leaves
                if _is_assertion(node):
                    self._record(node, guards)
            self._bind(stmt)
            if isinstance(stmt, ast.Raise):  # fails the test (a raised SkipTest is a skip call)
                return 0, leaves
            if isinstance(stmt, ast.Return):
                return 0, leaves | {_LEAVES_TEST}
            if isinstance(stmt, (ast.Continue, ast.Break)):
                return 0, leaves | {_LEAVES_LOOP}
            inner: set[str] = set()
            for block, guard in self._blocks(stmt):
                skipped, out = self.reach(block, (*guards, *guard))
                if skipped:
                    return 1, leaves
                inner |= out
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                inner.discard(_LEAVES_LOOP)
            if inner:  # what follows runs only on the inputs that did not leave
                guards = (*guards, "after " + self._normal(stmt))
                leaves |= inner
        return 0, leaves

    def _record(self, node: ast.AST, guards: tuple[str, ...]) -> None:
        key = " | ".join((*guards, self._normal(_without_message(node))))
        self.checks[key] += 1
        self.shown.setdefault(key, ast.unparse(node)[:80])

    def _bind(self, stmt: ast.stmt) -> None:
        """A local bound to a value stands for it until it is bound again."""
        for field, value in ast.iter_fields(stmt):
            if field not in ("body", "orelse", "finalbody", "handlers", "cases"):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, ast.AST):
                        for n in ast.walk(item):
                            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                                self.local.pop(n.id, None)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            self.local[stmt.targets[0].id] = _Resolve(self.local, self.module).visit(_copied(stmt.value))

    def _blocks(self, stmt: ast.stmt) -> list[tuple[Sequence[ast.stmt], tuple[str, ...]]]:
        """The statement blocks of a compound statement that can run, each with its condition."""
        if isinstance(stmt, (ast.If, ast.While)):
            if isinstance(stmt.test, ast.Constant):
                return [(stmt.body, ()) if stmt.test.value else (stmt.orelse, ())]
            test = self._normal(stmt.test)
            word = "while" if isinstance(stmt, ast.While) else "if"
            return [(stmt.body, (f"{word} {test}",)), (stmt.orelse, (f"not {test}",))]
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            loop = self._normal(ast.Tuple([stmt.target, stmt.iter], ast.Load()))
            return [(stmt.body, (f"for {loop}",)), (stmt.orelse, ())]
        if isinstance(stmt, _TRY):
            swallowed = ("swallowed",) if any(map(_swallows, stmt.handlers)) else ()
            blocks = [(stmt.body, swallowed), (stmt.orelse, ()), (stmt.finalbody, ())]
            return blocks + [(h.body, (f"except {self._normal(h)}",)) for h in stmt.handlers]
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            return [(stmt.body, ("swallowed",) if any(_suppresses(i.context_expr) for i in stmt.items) else ())]
        if isinstance(stmt, ast.Match):
            return [(c.body, (f"case {self._normal(c.pattern)}",)) for c in stmt.cases]
        return []

    def parametrized(self, mark: ast.expr) -> None:
        """Each case of a `pytest.mark.parametrize` mark: a case changed or dropped is a lost check."""
        if not (isinstance(mark, ast.Call) and _called(mark) == "parametrize"):
            return
        values = (
            mark.args[1] if len(mark.args) > 1 else next((k.value for k in mark.keywords if k.arg == "argvalues"), None)
        )
        if values is None:
            return
        values = _Resolve({}, self.module).visit(_copied(values))
        cases = values.elts if isinstance(values, (ast.List, ast.Tuple, ast.Set)) else [values]
        for case in cases:
            if isinstance(case, ast.Call) and _called(case) == "param":  # pytest.param(*values, id=..., marks=...)
                case = ast.Tuple(list(case.args), ast.Load())
            key = "parametrize " + _normal(case)
            self.checks[key] += 1
            self.shown.setdefault(key, "parametrize case " + ast.unparse(case)[:64])

    def _normal(self, node: ast.AST) -> str:
        return _normal(_Resolve(self.local, self.module).visit(_copied(node)))


class _Resolve(ast.NodeTransformer):
    """Each name bound to a value (a local first, then a module constant) replaced by that value."""

    def __init__(self, local: dict[str, ast.expr], module: dict[str, ast.expr], depth: int = 0) -> None:
        self.local, self.module, self.depth = local, module, depth

    def visit_Name(self, node: ast.Name) -> ast.expr:
        value = self.local.get(node.id) if node.id in self.local else self.module.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load) or self.depth > 3:
            return node
        return _Resolve({}, self.module, self.depth + 1).visit(_copied(value))


def _swallows(handler: ast.ExceptHandler) -> bool:
    """An `except` that catches AssertionError and neither re-raises nor fails the test itself."""
    caught = handler.type
    names = {getattr(n, "id", getattr(n, "attr", "")) for n in ast.walk(caught)} if caught else {"AssertionError"}
    if not names & _CATCH_ASSERTION:
        return False
    return not any(isinstance(n, ast.Raise) or _is_assertion(n) for s in handler.body for n in ast.walk(s))


def _suppresses(expr: ast.expr) -> bool:
    """`contextlib.suppress(AssertionError)` or `pytest.raises(AssertionError)`: the assertion cannot fail."""
    if _called(expr) not in ("suppress", "raises") or not isinstance(expr, ast.Call):
        return False
    return any(getattr(n, "id", getattr(n, "attr", "")) in _CATCH_ASSERTION for a in expr.args for n in ast.walk(a))


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
    if isinstance(node, ast.Raise) and node.exc is not None:  # `raise unittest.SkipTest(...)`
        return any(getattr(n, "id", getattr(n, "attr", "")) in ("SkipTest", "Skipped") for n in ast.walk(node.exc))
    return _called(node) in _SKIP_CALLS


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return not (isinstance(node.test, ast.Constant) and node.test.value)  # `assert True` asserts nothing
    name = _called(node)
    if not (name.startswith(("assert", "expect")) or name in _ASSERT_ATTRS):
        return False
    assert isinstance(node, ast.Call)
    return not node.args or not all(isinstance(a, ast.Constant) for a in node.args)  # assertTrue(True)


# unittest's assertion methods by how many arguments they check; the next positional one is `msg`.
_ARITY = {
    **dict.fromkeys(("assertTrue", "assertFalse", "assertIsNone", "assertIsNotNone"), 1),
    **dict.fromkeys(
        (
            "assertEqual",
            "assertEquals",
            "assertNotEqual",
            "assertIs",
            "assertIsNot",
            "assertIn",
            "assertNotIn",
            "assertIsInstance",
            "assertNotIsInstance",
            "assertGreater",
            "assertGreaterEqual",
            "assertLess",
            "assertLessEqual",
            "assertRegex",
            "assertNotRegex",
            "assertCountEqual",
            "assertMultiLineEqual",
            "assertListEqual",
            "assertTupleEqual",
            "assertSetEqual",
            "assertDictEqual",
        ),
        2,
    ),
}


def _without_message(node: ast.AST) -> ast.AST:
    """The assertion without its failure message: a message says how, not what, it checks."""
    if isinstance(node, ast.Assert) and node.msg is not None:
        return ast.Assert(node.test, None)
    if isinstance(node, ast.Call) and (node.keywords or _called(node) in _ARITY):
        keep = _ARITY.get(_called(node), len(node.args))
        return ast.Call(node.func, node.args[:keep], [k for k in node.keywords if k.arg != "msg"])
    return node


class _Names(ast.NodeTransformer):
    """Plain names by order of first use: a renamed helper or variable is the same assertion."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.seen.setdefault(node.id, f"n{len(self.seen)}"), node.ctx)


def _normal(node: ast.AST) -> str:
    if isinstance(node, (ast.stmt, ast.excepthandler, ast.pattern)) or not isinstance(node, ast.expr):
        return ast.dump(_Names().visit(_copied(node)), include_attributes=False)
    return ast.dump(_Names().visit(ast.Expression(ast.parse(ast.unparse(node), mode="eval").body)))


def compare_python(files: Sequence[tuple[str, bytes | None, bytes | None]]) -> list[Violation]:
    """test-weakened for each base test that is gone, lost an assertion, or became skipped. A test
    moved to another of these files (same name) or renamed with the same assertions is not gone."""
    before: dict[str, dict[str, Case] | None] = {}
    after: dict[str, dict[str, Case] | None] = {}
    for path, base_source, new_source in files:
        with pyast.deep(path):
            before[path] = tests_in(base_source) if base_source is not None else {}
            after[path] = tests_in(new_source) if new_source is not None else {}
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
        what = (
            f"lost its {old.shown[first]}{more} (removed or changed)"
            if first.startswith("parametrize ")
            else f"no longer reaches the assertion `{old.shown[first]}`{more} (removed, changed, made conditional "
            "on an input, swallowed by a try/except, or after a return or if False)"
        )
        found.append(Violation("test-weakened", f"{old.name} {what}", path, new.line))
    if new.skips > old.skips:
        found.append(Violation("test-weakened", f"{old.name} is newly skipped or marked xfail", path, new.line))
    return found
