"""cheats.findings and cheats.deciding_methods as they were before issue 29 read the module's one
walk (pyast.flat) and skipped the work whose answer went unused (main at eeeab97): the reference
a differential test holds the new walk to. Test code only, never on a verdict's path."""

from __future__ import annotations

import ast
from collections.abc import Container, Iterator, Sequence

from scorer.checks import pyast, special_cases
from scorer.checks.cheats import (
    _DEFS,
    _DUNDERS,
    _SHAPED,
    EQUALITY,
    SPECIAL,
    Finding,
    _deciding_in,
    _dump,
    _dump_value,
    _frame,
    _imported,
    _importing,
    _is_constant,
    _is_stub,
    _patched_equality,
    _returns,
    _runner,
)


def reference_findings(source: bytes | None, plugin: bool, deciding: Container[str] = frozenset()) -> list[Finding]:
    tree = pyast.parse(source)
    if tree is None or source is None:
        return []
    return list(_unit_findings(tree, source, pyast.units(tree), plugin, deciding))


def reference_deciding_methods(source: bytes | None) -> set[str]:
    tree = pyast.parse(source)
    return _deciding_in(_scoped_units(list(ast.iter_child_nodes(tree)))) if tree is not None else set()


def _unit_findings(
    tree: ast.Module, source: bytes, units: Sequence[pyast.Unit], plugin: bool, deciding: Container[str]
) -> Iterator[Finding]:
    nodes = list(_scoped_units([u.node for u in units]))
    names = _imported(n for _, n in _scoped_units(_importing(tree, source)))
    scopes: dict[str, ast.AST] = {"": tree, **{scope: n for scope, n in nodes if isinstance(n, _DEFS)}}
    named = pyast.as_named(source)  # the one change since: names as Python reads them (NFKC)
    state = b"modules" in named or b"argv" in named
    branches: dict[str, list[tuple[ast.AST, tuple[special_cases.Pair, ...]]]] = {}
    for scope, node in nodes:
        if not isinstance(node, _SHAPED):
            continue
        if not plugin:
            yield from _runner(scope, node, names, state)
        yield from _frame(scope, node, names, scopes, plugin)
        if isinstance(node, ast.ClassDef):
            yield from _class_equality(scope, node, deciding)
        elif isinstance(node, ast.Assign):
            yield from _patched_equality(scope, node)
        if isinstance(node, ast.Dict):
            yield from (Finding(SPECIAL, c.key, c.line, "", c) for c in special_cases.table(scope, node))
        elif scope and (pairs := _branch(node)):
            branches.setdefault(scope, []).append((node, pairs))
    for scope, found in branches.items():
        yield from (Finding(SPECIAL, c.key, c.line, "", c) for c in special_cases.grouped(scope, found))


def _scoped_units(units: Sequence[ast.AST]) -> Iterator[tuple[str, ast.AST]]:
    stack: list[tuple[str, ast.AST]] = [("", c) for c in reversed(units)]
    while stack:
        scope, node = stack.pop()
        inner = f"{scope}.{node.name}".lstrip(".") if isinstance(node, _DEFS) else scope
        yield inner, node
        stack.extend((inner, c) for c in reversed(list(ast.iter_child_nodes(node))))


def _branch(node: ast.AST) -> tuple[special_cases.Pair, ...]:
    compared, returned, literal = _compared, special_cases._returned, special_cases.literal
    if isinstance(node, ast.If):
        return special_cases._pairs(compared(node.test), returned(node.body))
    if isinstance(node, ast.IfExp):
        body = literal(node.body)
        return special_cases._pairs(compared(node.test), [body] if body else [])
    if isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
        value = literal(node.pattern.value)
        return special_cases._pairs([value] if value else [], returned(node.body))
    return ()


def _class_equality(scope: str, cls: ast.ClassDef, deciding: Container[str] = frozenset()) -> Iterator[Finding]:
    stateful = _has_state(cls)
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _DUNDERS:
            if _is_stub(item) or (item.name in ("__bool__", "__hash__") and f"{scope}.{item.name}" not in deciding):
                continue
            why = _cannot_fail(item.name, item.args, _returns(item.body), item.body, stateful)
            where, line = f"{scope}.{item.name}", item.lineno
        elif isinstance(item, ast.Assign) and isinstance(item.value, ast.Lambda):
            name = next((t.id for t in item.targets if isinstance(t, ast.Name) and t.id in _DUNDERS), None)
            if name is None or (name in ("__bool__", "__hash__") and f"{scope}.{name}" not in deciding):
                continue
            lam = item.value
            why = _cannot_fail(name, lam.args, [lam.body], [ast.Expr(lam.body)], stateful)
            where, line = f"{scope}.{name}", item.lineno
        else:
            continue
        if why:
            yield Finding(EQUALITY, f"{EQUALITY}|{where}|{_dump(item)}", line, f"{where} {why}")


def _cannot_fail(
    name: str, args: ast.arguments, returns: list[ast.expr | None], body: Sequence[ast.stmt], stateful: bool
) -> str:
    meaningful = [r for r in returns if not (isinstance(r, ast.Name) and r.id == "NotImplemented")]
    if not meaningful:
        return ""
    params = [a.arg for a in (*args.posonlyargs, *args.args)] + ([args.vararg.arg] if args.vararg else [])
    read = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if read & {"super", "__class__", "vars", "locals"} and params:
        read.add(params[0])
    constant = all(map(_is_constant, meaningful)) and len({_dump_value(r) for r in meaningful}) == 1
    answer = ast.unparse(meaningful[0]) if meaningful[0] is not None else "None"
    if name in ("__eq__", "__ne__"):
        other_read = len(params) > 1 and params[1] in read
        if constant and (stateful or not other_read):
            return f"always returns {answer}: no comparison with it can fail"
        if len(params) > 1 and not other_read:
            return f"never reads the value it is compared with ({params[1]}): no comparison with it can fail"
        return ""
    if not stateful:
        return ""
    if constant:
        return f"always returns {answer} although its instances carry data"
    if params and params[0] not in read:
        return f"never reads the instance ({params[0]}) although its instances carry data"
    return ""


def _has_state(cls: ast.ClassDef) -> bool:
    """Instances carry data (`self.x = ...`, annotated fields, `__slots__`): a sentinel does not."""
    for node in ast.walk(cls):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    return True
                slots = getattr(node, "value", None)
                if (
                    isinstance(t, ast.Name)
                    and t.id == "__slots__"
                    and not (isinstance(slots, (ast.Tuple, ast.List)) and not slots.elts)
                ):
                    return True
    return any(isinstance(n, ast.AnnAssign) for n in cls.body)


def _compared(test: ast.expr) -> list[special_cases.Literal]:
    """The literals `test` compares a value with: `x == L`, `x in (L, M)`, `x is L`, and/or of those."""
    found: list[special_cases.Literal] = []
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.In, ast.Is)) for op in node.ops):
            for side in (node.left, *node.comparators):
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                found += [lit for lit in map(special_cases._literal, items) if lit is not None]
    return found
