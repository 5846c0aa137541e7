"""The package's imports run one way: no circle, and no import from a lower floor to a higher one.

Read from the source with `ast`, so an import deferred into a function body or hidden behind
`TYPE_CHECKING` counts like any other: a circle held together by a late import is still a circle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scorer"

# Each top-level room of the package on its floor; a room may import its own floor's base (floor 0)
# and anything below it, never a sibling on its own floor, never a floor above. The stages of the
# pipeline are siblings: checks/ and testrun/ share what they both need through floor 0.
FLOORS: dict[str, int] = {
    "(root)": 0,  # scorer/__init__.py: the version
    "errors": 0,
    "model": 0,
    "codes": 0,
    "builtin_names": 0,
    "pytest_config": 0,
    "terminal": 0,
    "context": 0,
    "digest": 0,  # sha256/sha1 without OpenSSL, for the guard's path
    "records": 0,  # NamedTuple without compiling, for the guard's path
    "jsontext": 0,  # json's C scanner and encoder without json, for the guard's path
    "lazy_re": 0,  # patterns compiled on first use, for the guard's path
    "memo": 0,  # lru_cache without functools, for the guard's path
    "jail": 1,  # stdlib only: the test runner and the guard both use it
    "inspection": 1,
    "secrets": 1,
    "report": 1,
    "manifest": 2,
    "checks": 3,
    "testrun": 3,
    "feedback": 4,
    "pipeline": 5,
    "decision_log": 5,
    "decision_journal": 4,  # the log's journal: standard library only, below decision_log and the guard
    "verify": 5,
    "server": 6,
    "guard": 6,
    "setup": 7,
    "commands": 8,
    "main": 9,
    "entry": 10,
    "__main__": 11,
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    package = module if MODULES[module].name == "__init__.py" else module.rsplit(".", 1)[0]
    base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
    target = ".".join([*base, *([node.module] if node.module else [])])
    for alias in node.names:
        yield f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target


def _known(name: str) -> str | None:
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in MODULES else None


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported |= {t for t in map(_known, _targets(module, node)) if t is not None and t != module}
        graph[module] = imported
    return graph


GRAPH = _graph()


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_every_room_has_a_floor() -> None:
    assert {_room(m) for m in MODULES} - set(FLOORS) == set(), "add the new room to FLOORS, on the floor it belongs"


def test_no_circle_of_imports() -> None:
    assert _cycles(GRAPH) == []


def test_no_import_from_a_lower_floor_up_or_across_to_a_sibling() -> None:
    wrong = []
    for module, imported in GRAPH.items():
        here = FLOORS[_room(module)]
        for target in imported:
            there = FLOORS[_room(target)]
            if _room(target) != _room(module) and (there > here or (there == here and here != 0)):
                wrong.append(f"{module} -> {target}")
    assert sorted(wrong) == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_a_circle_and_only_a_circle(graph: dict[str, set[str]], expected: list) -> None:
    assert _cycles(graph) == expected


def test_a_deferred_import_counts() -> None:
    # guard/decide.py imports the shell package inside a function, for the Write path's import
    # budget: the graph still sees it, so a circle cannot hide in a function body.
    assert "scorer.guard.shell" in GRAPH["scorer.guard.decide"] or any(
        t.startswith("scorer.guard.shell") for t in GRAPH["scorer.guard.decide"]
    )
