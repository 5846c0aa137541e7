"""Source that reaches for the test runner's own state: the evidence score-diff reads.

The required test's process runs the job's code beside pytest, so that code can reach what
pytest leaves behind: it can register an `atexit` handler that rewrites the JUnit report and
ends the process with `os._exit` (pytest's exit status never happens), find the report's path
on the command line (`sys.argv`, `/proc/self/cmdline`), or import pytest's internals
(`_pytest`). The outcome stream catches a rewrite when it happens (testrun/stream.py); this
check names the code that tries, before the test runs. Only what the change adds to non-test
Python source counts: a finding the base version of the file already had is not new.

Code: `test-runner-reached`. What it proves: docs/required-test.md#evidence-the-test-cannot-rewrite.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping

from .. import model
from ..model import Violation
from . import pyast, results_cache
from .cheats import is_test_path
from .contract import CheckInput, Findings
from .protected import protected_matcher

REACHED = "test-runner-reached"
_EXITS = frozenset({"os._exit", "posix._exit"})
_ARGV = frozenset({"sys.argv", "sys.orig_argv"})
_REPORT_WORDS = ("junit", ".xml", "--report", "resultlog")


def check_runner_reach(given: CheckInput) -> Findings:
    """test-runner-reached for each shape the change adds to non-test Python source."""
    ins, job = given.ins, given.job
    protected = protected_matcher(job)
    changed = [
        c
        for c in ins.changed
        if c.status != model.DELETED
        and not (c.binary or c.symlink or c.submodule)
        and c.path.endswith((".py", ".pyw"))
        and not (is_test_path(c.path) or protected(c.path))
    ]
    if not changed:
        return Findings()
    base_rev = ins.base or ins.head  # the merge-base under --base and --since, as protected.py
    new = given.trees.read_files(given.scored_rev, [c.path for c in changed])
    olds = {c.path: c.old_path or c.path for c in changed}
    base = functools.cache(lambda: given.trees.read_files(base_rev, sorted(set(olds.values()))) if base_rev else {})
    found: list[Violation] = []
    kept = results_cache.Results(given.kept, "runner-reach")
    for c in changed:
        with pyast.deep(c.path):
            added = _kept_shapes(new.get(c.path), kept)
            if not added:  # nothing to excuse: the base version is never read
                continue
            was = Counter(key for key, _, _ in shapes(base().get(olds[c.path])))
            for key, line, why in added:
                if was[key] > 0:
                    was[key] -= 1
                else:
                    found.append(Violation(REACHED, why, c.path, line))
    kept.flush()
    return Findings(tuple(found))


Shape = tuple[str, int, str]  # (key, line, why)


def _kept_shapes(source: bytes | None, kept: results_cache.Results) -> tuple[Shape, ...]:
    """`shapes`, but a module found without any in an earlier scoring (a function of its bytes
    alone: the whole module is read) is not read again. Only "none" is kept: a module with a shape
    is read each time, so no entry holds its names."""
    if source is None or kept.get(name := kept.name(source, results_cache.EVERY)) == []:
        return ()
    found = shapes(source)
    if not found:
        kept.put(name, [])
    return found


_SHAPES: dict[bytes, tuple[Shape, ...]] = {}  # by blob id, as pyast's trees: a blob's shapes are read once
_MAX_SHAPES = 1024


def shapes(source: bytes | None) -> tuple[Shape, ...]:
    """(key, line, why) for each reach for the runner's state in the module, in ast.walk's order.

    The module's one walk (pyast.flat, shared with the cheat checks) first tells whether any shape
    can be there; only then is the tree walked again, in ast.walk's order, for the shapes."""
    if source is None:
        return ()
    key = pyast.blob_id(source)
    if key not in _SHAPES:
        tree = pyast.parse(source)
        if len(_SHAPES) >= _MAX_SHAPES:
            del _SHAPES[next(iter(_SHAPES))]
        maybe = tree is not None and _may_have_shapes(pyast.flat(tree, source))
        _SHAPES[key] = tuple(_shapes(list(ast.walk(tree)))) if maybe and tree is not None else ()
    return _SHAPES[key]


def _may_have_shapes(flat: pyast.Flat) -> bool:
    """False only where `_shapes` finds nothing: each shape needs a node that this reads in any
    order, whatever the imports bind (an `_pytest` import; `register` called or bound by an import
    to atexit.register; a `cmdline` and a `/proc` string; an `argv` attribute beside a report word)."""
    words: set[str] = set()
    for _, node in flat.nodes:
        cls = node.__class__
        if cls is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if value.__class__ is str:
                words.update(w for w in _WORDS if w in value)
        elif cls is ast.Attribute:
            attr = node.attr  # type: ignore[attr-defined]
            if attr == "register" or attr in _ARGV_NAMES:
                words.add(attr)
        elif (cls is ast.Import or cls is ast.ImportFrom) and _binds_register_or_internals(node):  # type: ignore[arg-type]
            return True
    argv = bool(words & _ARGV_NAMES) and bool(words & _REPORT)
    return "register" in words or {"cmdline", "/proc"} <= words or argv


_ARGV_NAMES = frozenset(a.rsplit(".", 1)[1] for a in _ARGV)
_REPORT = frozenset(_REPORT_WORDS)
_WORDS = ("cmdline", "/proc", *_REPORT_WORDS)


def _binds_register_or_internals(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name == "atexit.register" or a.name.split(".")[0] == "_pytest" for a in node.names)
    module = node.module or ""
    return module.split(".")[0] == "_pytest" or (module == "atexit" and any(a.name == "register" for a in node.names))


def _shapes(nodes: list[ast.AST]) -> Iterator[Shape]:
    """The module's shapes from one walk of its tree (`nodes`), shared by every question asked of it."""
    names = _imported(nodes)
    defs = {n.name: n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    proc = any(isinstance(n, ast.Constant) and isinstance(n.value, str) and "/proc" in n.value for n in nodes)
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(m == "_pytest" or m.startswith("_pytest.") for m in modules):
                yield "import|_pytest", node.lineno, "imports pytest's internals (_pytest) from code that is not a test"
        elif isinstance(node, ast.Call) and _dotted(node.func, names) == "atexit.register" and node.args:
            handler = node.args[0]
            body = defs.get(handler.id) if isinstance(handler, ast.Name) else handler
            if body is not None and _exits(body, names):
                yield (
                    "atexit|os._exit",
                    node.lineno,
                    "registers an atexit handler that ends the process with os._exit: it runs after pytest wrote "
                    "its report and replaces pytest's exit status",
                )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "cmdline" in node.value and proc:
            yield (
                "proc|cmdline",
                node.lineno,
                "reads the process's command line from /proc, where the runner's report path is",
            )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _argv_and_report(node, names):
            yield (
                f"argv|{node.name}",
                node.lineno,
                "reads the runner's command line (sys.argv) beside the name of its report",
            )
    for fn in defs.values():  # @atexit.register on the handler itself
        if any(_dotted(d, names) == "atexit.register" for d in fn.decorator_list) and _exits(fn, names):
            yield (
                "atexit|os._exit",
                fn.lineno,
                "registers an atexit handler that ends the process with os._exit: it runs after pytest wrote "
                "its report and replaces pytest's exit status",
            )


def _exits(node: ast.AST, names: Mapping[str, str]) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _dotted(n.func, names) in _EXITS:
            return True
        if isinstance(n, ast.Constant) and n.value == "_exit":  # getattr(os, "_exit")
            return True
    return False


def _argv_and_report(fn: ast.AST, names: Mapping[str, str]) -> bool:
    nodes = list(ast.walk(fn))
    argv = any(_dotted(n, names) in _ARGV for n in nodes if isinstance(n, ast.Attribute))
    word = any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and any(w in n.value for w in _REPORT_WORDS)
        for n in nodes
    )
    return argv and word


def _imported(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> dotted name: `import os as o`, `from os import _exit`."""
    names = {"os": "os", "sys": "sys", "atexit": "atexit"}
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update({a.asname or a.name: a.name for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return names


def _dotted(node: ast.AST, names: Mapping[str, str]) -> str:
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value, names)}.{node.attr}"
    return ""
