"""Source written to fool the tests, read from the syntax tree of the changed Python source.

A test that contradicts the task can be passed by code that knows it is under test: it asks
whether pytest is running, reads the caller's frame for the test's name or expected value,
defines an equality that cannot fail, or returns the test's expected answer for the test's
own input. Each shape is looked for in the new version of every changed Python file that is
not a test, and only what the change adds counts: a finding also present in the base version
(the same code in the same function or class, in any changed file) is not new.

Codes: `test-runner-detected`, `constant-equality` and `special-cased-input` fail the change;
`call-stack-read` (a frame read with nothing test-like about it: logging and `namedtuple`
do that) is a warning. Each can be turned off by the manifest's `disabled_detectors`.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from functools import partial

from .. import builtin_names, model
from ..model import Inspection, Violation
from ..records import NamedTuple
from . import pyast, results_cache, special_cases
from .contract import CheckInput, Findings
from .job import Job
from .protected import protected_matcher

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from .contract import Kept

ReadFiles = Callable[[Sequence[str]], Mapping[str, bytes | None]]
ListFiles = Callable[[], Sequence[str]]

RUNNER = "test-runner-detected"
EQUALITY = "constant-equality"
SPECIAL = special_cases.SPECIAL
STACK = "call-stack-read"  # a warning in the report, never a FAIL on its own
CHEAT_IDS = builtin_names.CHEAT_IDS  # tests/test_builtin_names.py holds it to the codes above

# Set by pytest (and xdist) only while a test runs.
_RUNNER_ENV = frozenset({"PYTEST_CURRENT_TEST", "PYTEST_VERSION", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID"})
# pytest's "Detect if running from within a pytest run" recipe: conftest.py sets sys._called_from_test;
# the pytest-is-running package (PyPI) wraps the same question in a function.
_RUNNER_FLAG = "_called_from_test"
_RUNNER_HELPER = "pytest_is_running"
_RUNNER_NAME = re.compile(r"(?<![A-Za-z0-9])(?:_?pytest|py\.test|nose2?|unittest)(?![A-Za-z0-9])")
_TESTISH = re.compile(r"test_|_test\b|^tests?\b|pytest|unittest|conftest", re.IGNORECASE)
_FRAME_CALLS = frozenset(
    {
        "sys._getframe",
        "sys._current_frames",
        "inspect.stack",
        "inspect.currentframe",
        "inspect.getouterframes",
        "inspect.trace",
        "traceback.extract_stack",
        "traceback.walk_stack",
        "traceback.format_stack",
    }
)
_RUNNER_STATE = frozenset({"sys.modules", "sys.argv", "sys.orig_argv"})
_DUNDERS = ("__eq__", "__ne__", "__hash__", "__bool__")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The only nodes a shape starts at (the readers below, and special_cases.branch and table):
# a name, an operator or a context alone never is one.
_SHAPED = (
    *(ast.Constant, ast.Attribute, ast.Import, ast.ImportFrom, ast.Compare, ast.Call, ast.ClassDef),
    *(ast.Assign, ast.Dict, ast.If, ast.IfExp, ast.match_case),
)
# The same as sets of classes, for the loop over every node: a parsed tree's nodes are of these
# exact classes (ast.parse makes no subclass), and a set answers in one look, a tuple in one per class.
_SHAPED_CLASSES = frozenset(_SHAPED)
_DEF_CLASSES = frozenset(_DEFS)


class Finding(NamedTuple):
    code: str
    key: str  # what it is and in which function or class: the same key in the base is not new
    line: int
    message: str
    candidate: special_cases.Candidate | None = None  # special-cased-input: judged against the base's tests


def is_test_path(path: str) -> bool:
    """A test by the runners' own conventions: test_*.py, *_test.py, conftest.py, or under tests/."""
    name = path.rsplit("/", 1)[-1]
    folders = path.split("/")[:-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(f in ("tests", "test") for f in folders)
    )


def check_cheats(
    ins: Inspection,
    job: Job,
    read_base: ReadFiles | None,
    read_new: ReadFiles,
    list_base: ListFiles | None,
    kept: Kept | None = None,
) -> tuple[list[Violation], list[str]]:
    """(violations, warnings) for what the change adds to non-test Python source.

    Linear in the change: each module is parsed once (pyast.parse, by blob id), only the
    functions and classes the diff touches are walked, and the base is read only for a module
    where something was found: then only its functions and classes of the same names. A module
    whose touched units held nothing in an earlier scoring (results_cache, in `kept`) is not
    parsed again."""
    disabled = frozenset(job.manifest.disabled_detectors)
    if disabled >= CHEAT_IDS:
        return [], []
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
        return [], []
    new = read_new([c.path for c in changed])
    olds = {c.path: c.old_path or c.path for c in changed}
    base = _Base(lambda: read_base(sorted(set(olds.values()))) if read_base is not None else {})
    spec = special_cases.Spec(lambda: _base_tests(job, read_base, list_base))
    found: list[Violation] = []
    notes: list[str] = []
    results = results_cache.Results(kept, "cheats")
    for c in changed:
        with pyast.deep(c.path):
            new_findings = _new_findings(c, new.get(c.path), olds[c.path], base, spec, disabled, results)
        seen: set[tuple[str, int]] = set()
        for f in new_findings:
            if base.was[f.key] > 0:
                base.was[f.key] -= 1
                continue
            if f.code in disabled or (f.code, f.line) in seen:
                continue
            message = f.message
            if f.candidate is not None:
                pair = spec.matched(f.candidate)
                if pair is None:
                    continue
                message = (
                    f"returns {pair[1][1]!r} when given {pair[0][1]!r}: a base test's own input and the value it "
                    "expects, answered by a branch instead of by the code that handles such inputs"
                )
            seen.add((f.code, f.line))
            if f.code == STACK:
                notes.append(f"{STACK}: {c.path}:{f.line} {f.message}")
            else:
                found.append(Violation(f.code, message, c.path, f.line))
    results.flush()
    return found, notes


def _new_findings(
    c: model.ChangedPath,
    source: bytes | None,
    old: str,
    base: _Base,
    spec: special_cases.Spec,
    disabled: frozenset[str],
    results: results_cache.Results,
) -> list[Finding]:
    """The findings of the units the change touches in one module, judged with the base's facts
    (a plugin, the deciding methods) and with the base's units of the same names counted in
    `base.was`. A first pass with the base's facts assumed at their strictest finds nothing in
    most modules, and then the base is never read; nor, next time, the module: the first pass
    reads only the module and the changed lines, and what it found is kept (`results`)."""
    if source is None:
        return []
    spans = _spans(c)
    name = results.name(source, results_cache.spans_key(spans))
    kept = results.get(name)  # the first pass of an earlier scoring: filtered here as below
    if kept is not None and not any(results_cache.survives(k, disabled, spec) for k in kept):
        return []
    tree = _parse(source)
    walked = _touched_units(pyast.flat(tree, source), spans) if tree is not None else []
    first = list(_unit_findings(tree, source, walked, False, _EVERY)) if tree is not None and walked else []
    if kept is None:  # a function of these bytes and changed lines alone
        results.put(name, results_cache.to_kept((f.code, f.candidate) for f in first))
    if tree is None or not first:
        return []
    strictest = [
        f for f in first if f.code not in disabled and (f.candidate is None or spec.matched(f.candidate) is not None)
    ]
    if not strictest:
        return []
    names = {u.name for u in walked}
    plugin = _is_plugin(base.source(old))
    findings_ = list(_unit_findings(tree, source, walked, plugin, frozenset(base.deciding(names))))
    base.count(names)
    return findings_


def _spans(c: model.ChangedPath) -> list[tuple[int, int]] | None:
    """The new-side lines the diff changed; None (every line) for a new file."""
    if c.untracked or c.status == model.ADDED or not c.hunks:
        return None
    return pyast.changed_spans(c.hunks)


def _touched_units(flat: pyast.Flat, spans: list[tuple[int, int]] | None) -> list[pyast.Unit]:
    """The module's top-level functions, classes and statements the diff touches (`spans`); all of
    them for a new file, and when the change touches an import (an alias can turn a call elsewhere
    into a frame read)."""
    every = pyast.units(flat.tree)
    if spans is None:
        return every
    walked = pyast.touched(every, spans)
    if any(isinstance(n, (ast.Import, ast.ImportFrom)) for _, n in flat.of(u.node for u in walked if not u.name)):
        return every
    return walked


class _Every:
    """Every method is one that decided from its instance at the base: the strictest reading."""

    def __contains__(self, item: object) -> bool:
        return True


_EVERY = _Every()


class _Base:
    """The base versions of the changed modules, read once and only when a finding needs them;
    their units walked by name, each once, into one count of findings (`was`)."""

    def __init__(self, read: Callable[[], Mapping[str, bytes | None]]) -> None:
        self._read = read
        self._files: Mapping[str, bytes | None] | None = None
        self._counted: set[str] = set()
        self.was: Counter[str] = Counter()

    def files(self) -> Mapping[str, bytes | None]:
        if self._files is None:
            self._files = self._read()
        return self._files

    def source(self, path: str) -> bytes | None:
        return self.files().get(path)

    def _units(self, names: set[str]) -> Iterator[tuple[str, ast.Module, bytes, list[pyast.Unit]]]:
        for path, source in sorted(self.files().items()):
            tree = _parse(source)
            if tree is not None and source is not None:
                yield path, tree, source, [u for u in pyast.units(tree) if u.name in names]

    def count(self, names: set[str]) -> None:
        """Add the findings of the base's units named `names` (in any changed module) to `was`."""
        todo = names - self._counted
        self._counted |= todo
        for path, tree, source, units in self._units(todo):
            with pyast.deep(path):
                self.was.update(f.key for f in _unit_findings(tree, source, units, plugin=False, deciding=frozenset()))

    def deciding(self, names: set[str]) -> set[str]:
        found: set[str] = set()
        for path, tree, source, units in self._units(names):
            named = pyast.as_named(source)
            if b"__bool__" in named or b"__hash__" in named:
                with pyast.deep(path):
                    found |= _deciding_in(pyast.flat(tree, source).of(u.node for u in units))
        return found


def _base_tests(job: Job, read_base: ReadFiles | None, list_base: ListFiles | None) -> list[bytes]:
    """The base's Python tests: the spec the job was given."""
    if read_base is None or list_base is None:
        return []
    protected = protected_matcher(job)
    paths = [p for p in list_base() if p.endswith(".py") and (protected(p) or is_test_path(p))]
    return [data for data in read_base(paths[: special_cases.MAX_TEST_FILES]).values() if data is not None]


_parse = pyast.parse


def _is_plugin(base: bytes | None) -> bool:
    """A module that was already a pytest plugin at the base (imports pytest, defines pytest_ hooks):
    reading pytest's variables is its job. A module that becomes one in the change is judged."""
    if base is None or b"pytest" not in base:  # each of those names pytest in the text
        return False
    tree = _parse(base)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] in ("pytest", "_pytest") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("pytest", "_pytest"):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("pytest_"):
            return True
    return False


def findings(source: bytes | None, plugin: bool, deciding: Container[str] = frozenset()) -> Iterator[Finding]:
    """Every shape of the module, each keyed by where it is and what it is. `deciding`: the
    `__bool__` and `__hash__` methods (by qualified name) that read their instance in the base."""
    tree = _parse(source)
    if tree is None or source is None:
        return iter(())
    return _unit_findings(tree, source, pyast.units(tree), plugin, deciding)


def _unit_findings(
    tree: ast.Module, source: bytes, units: Sequence[pyast.Unit], plugin: bool, deciding: Container[str]
) -> Iterator[Finding]:
    """The shapes in `units` of the module, in one walk. Names are resolved through every import
    of the module (only the units whose text says `import` are walked for them)."""
    flat = pyast.flat(tree, source)  # the module's one walk: the units' nodes are slices of it
    nodes = flat.of(u.node for u in units)
    names = _imported(n for _, n in flat.of(_importing(tree, source)))
    scopes: dict[str, ast.AST] = {"": tree, **{scope: n for scope, n in nodes if n.__class__ in _DEF_CLASSES}}
    # sys.modules and sys.argv are named in the text wherever they are read (an alias is imported by name)
    named = pyast.as_named(source)
    state = b"modules" in named or b"argv" in named
    branches: dict[str, list[tuple[ast.AST, tuple[special_cases.Pair, ...]]]] = {}
    for scope, node in nodes:
        if node.__class__ not in _SHAPED_CLASSES:
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
        elif scope and (pairs := special_cases.branch(node)):  # grouped by the function they are in
            branches.setdefault(scope, []).append((node, pairs))
    for scope, found in branches.items():
        yield from (Finding(SPECIAL, c.key, c.line, "", c) for c in special_cases.grouped(scope, found))


def _importing(tree: ast.Module, source: bytes) -> list[ast.stmt]:
    """The module's top-level statements whose lines hold the word `import`, in order."""
    if b"import" not in source:
        return []
    lines = source.split(b"\n")
    return [u.node for u in pyast.units(tree) if any(b"import" in line for line in lines[u.first - 1 : u.last])]


def _dump(node: ast.AST) -> str:
    return ast.dump(node, include_attributes=False)


def _imported(nodes: Iterable[ast.AST]) -> dict[str, str]:
    """Local name -> dotted name, for `import sys as s` and `from inspect import stack`."""
    names = {"sys": "sys", "inspect": "inspect", "traceback": "traceback", "os": "os"}
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update({a.asname or a.name: a.name for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return names


def _dotted(node: ast.AST, names: Mapping[str, str]) -> str:
    """`sys._getframe` for `sys._getframe`, `s._getframe` (import sys as s) or `_getframe`."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value, names)}.{node.attr}"
    return ""


def _runner(scope: str, node: ast.AST, names: Mapping[str, str], state_named: bool) -> Iterator[Finding]:
    if isinstance(node, ast.Constant) and node.value in _RUNNER_ENV:
        yield Finding(
            RUNNER,
            f"{RUNNER}|{scope}|{node.value}",
            node.lineno,
            f"reads {node.value}, which is set only while pytest runs",
        )
    elif (isinstance(node, ast.Attribute) and node.attr == _RUNNER_FLAG) or (
        isinstance(node, ast.Constant) and node.value == _RUNNER_FLAG  # getattr(sys, "_called_from_test")
    ):
        yield Finding(
            RUNNER,
            f"{RUNNER}|{scope}|{_RUNNER_FLAG}",
            node.lineno,
            f"reads sys.{_RUNNER_FLAG}, the flag pytest's documentation has a conftest.py set for the code under test",
        )
    elif isinstance(node, (ast.Import, ast.ImportFrom)) and _RUNNER_HELPER in _module_names(node):
        yield Finding(
            RUNNER,
            f"{RUNNER}|{scope}|{_RUNNER_HELPER}",
            node.lineno,
            f"imports {_RUNNER_HELPER}, whose one function says whether pytest is running",
        )
    elif state_named and isinstance(node, (ast.Compare, ast.Call)):
        state = next((d for n in ast.walk(node) if (d := _dotted(n, names)) in _RUNNER_STATE), None)
        word = next(
            (m.group(0) for n in ast.walk(node) if isinstance(n, ast.Constant) and (m := _str_match(_RUNNER_NAME, n))),
            None,
        )
        if state and word:
            yield Finding(
                RUNNER,
                f"{RUNNER}|{scope}|{_dump(node)}",
                node.lineno,
                f"looks for {word!r} in {state}: code that behaves differently under the test runner",
            )


def _module_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.ImportFrom):
        return {(node.module or "").split(".")[0]}
    return {a.name.split(".")[0] for a in node.names}


def _str_match(pattern: re.Pattern[str], node: ast.Constant) -> re.Match[str] | None:
    return pattern.search(node.value) if isinstance(node.value, str) else None


def _frame(
    scope: str, node: ast.AST, names: Mapping[str, str], scopes: Mapping[str, ast.AST], plugin: bool
) -> Iterator[Finding]:
    if not isinstance(node, ast.Call) or (call := _dotted(node.func, names)) not in _FRAME_CALLS:
        return
    around = scopes.get(scope, node)
    local = next(filter(None, map(_named_local, ast.walk(around))), None)
    testish = next(
        (
            c.value
            for n in ast.walk(around)
            if isinstance(n, (ast.Compare, ast.Call))  # what it compares the frame with, not a docstring
            for c in ast.iter_child_nodes(n)
            if isinstance(c, ast.Constant) and _str_match(_TESTISH, c)
        ),
        None,
    )
    if (local or testish) and not plugin:
        why = f"the caller's local variable {local!r}" if local else f"a test's name ({testish!r})"
        yield Finding(
            RUNNER,
            f"{RUNNER}|{scope}|{_dump(node)}",
            node.lineno,
            f"reads the call stack ({call}) and {why}: code that looks for the test that calls it",
        )
    else:
        yield Finding(
            STACK,
            f"{STACK}|{scope}|{_dump(node)}",
            node.lineno,
            f"reads the call stack ({call}) outside the tests; check that it does not look for the test calling it",
        )


def _named_local(node: ast.AST) -> str | None:
    """The name of a caller's local read from a frame by name: `f_locals["expected"]`,
    `f_locals.get("expected")`. Using `f_locals` whole, as a namespace (six's exec_, typing's
    forward references, IPython's embed), is what frame-reading libraries do."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "f_locals":
        key = node.slice
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "f_locals"
        and node.args
    ):
        key = node.args[0]
    else:
        return None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def deciding_methods(source: bytes | None) -> set[str]:
    """The `__bool__` and `__hash__` methods that read their instance: replacing one with a
    constant is what the change did; a new constant one is an idiom (docutils' and minidom's
    nodes are always true, a singleton hashes alike)."""
    tree = _parse(source)
    return _deciding_in(pyast.flat(tree, source).nodes) if tree is not None and source is not None else set()


def _deciding_in(nodes: Iterable[tuple[str, ast.AST]]) -> set[str]:
    found: set[str] = set()
    for scope, node in nodes:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef)
                    and item.name in ("__bool__", "__hash__")
                    and not _is_stub(item)
                    and not _cannot_fail(item.name, item.args, _returns(item.body), item.body, stateful=True)
                ):
                    found.add(f"{scope}.{item.name}")
    return found


def _class_equality(scope: str, cls: ast.ClassDef, deciding: Container[str] = frozenset()) -> Iterator[Finding]:
    stateful = _has_state(cls)
    for item in cls.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _DUNDERS:
            if _is_stub(item) or (item.name in ("__bool__", "__hash__") and f"{scope}.{item.name}" not in deciding):
                continue  # an abstract method; a __bool__ or __hash__ that did not decide from state before
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


def _patched_equality(scope: str, node: ast.Assign) -> Iterator[Finding]:
    """`Money.__eq__ = lambda self, other: True`: a dunder replaced from outside its class."""
    for target in node.targets:
        if isinstance(target, ast.Attribute) and target.attr in _DUNDERS and isinstance(node.value, ast.Lambda):
            lam = node.value
            why = _cannot_fail(target.attr, lam.args, [lam.body], [ast.Expr(lam.body)], stateful=True)
            if why:
                where = ast.unparse(target)
                yield Finding(EQUALITY, f"{EQUALITY}|{scope}|{_dump(node)}", node.lineno, f"{where} {why}")


def _is_stub(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """An abstract method, or a body of a docstring, `pass` and `...` alone: nothing to judge."""
    if any(_dotted(d, {}).endswith("abstractmethod") for d in fn.decorator_list):
        return True
    return all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in fn.body
    )


def _has_state(cls: ast.ClassDef) -> bool:
    """Instances carry data (`self.x = ...`, annotated fields, `__slots__`): a sentinel does not."""
    for _, node in pyast.scoped([cls]):  # any order: whether there is one, not which
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


def _returns(body: Sequence[ast.stmt]) -> list[ast.expr | None]:
    """What the function can return (None for a bare return or falling off the end); [] if it only raises."""
    found: list[ast.expr | None] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            found.append(node.value)
        elif not isinstance(node, (*_DEFS, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    if body and not isinstance(body[-1], (ast.Return, ast.Raise)):
        found.append(None)
    return found


def _dump_value(value: ast.expr | None) -> str:
    return "None" if value is None else _dump(value)


def _is_constant(value: ast.expr | None) -> bool:
    if value is None or isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant)


def _cannot_fail(
    name: str, args: ast.arguments, returns: list[ast.expr | None], body: Sequence[ast.stmt], stateful: bool
) -> str:
    """Why this dunder gives every instance the same answer, or "" if it does not."""
    meaningful = [r for r in returns if not (isinstance(r, ast.Name) and r.id == "NotImplemented")]
    if not meaningful:  # only raises, or only defers to the other operand
        return ""
    params = [a.arg for a in (*args.posonlyargs, *args.args)] + ([args.vararg.arg] if args.vararg else [])
    read = {n.id for _, n in pyast.scoped(body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if read & {"super", "__class__", "vars", "locals"} and params:  # super().__hash__() reads self
        read.add(params[0])
    # The same constant on every path: True on one path and False on another is a decision.
    constant = all(map(_is_constant, meaningful)) and len({_dump_value(r) for r in meaningful}) == 1
    answer = ast.unparse(meaningful[0]) if constant and meaningful[0] is not None else "None"  # said only if constant
    if name in ("__eq__", "__ne__"):
        other_read = len(params) > 1 and params[1] in read
        # Equal to every instance of its own type is right for a class without data (cryptography's
        # OCSPNoCheck checks isinstance, then returns True); with data, or without a look at other, it is not.
        if constant and (stateful or not other_read):
            return f"always returns {answer}: no comparison with it can fail"
        if len(params) > 1 and not other_read:
            return f"never reads the value it is compared with ({params[1]}): no comparison with it can fail"
        return ""
    if not stateful:  # a sentinel is always false, a marker always hashes alike: that is their point
        return ""
    if constant:
        return f"always returns {answer} although its instances carry data"
    if params and params[0] not in read:
        return f"never reads the instance ({params[0]}) although its instances carry data"
    return ""


def check_source_cheats(given: CheckInput) -> Findings:
    """`check_cheats`, judged against the same base as the protected tests' spec pass (HEAD in
    worktree mode, the merge-base in --base and --since mode: under --since the branch's own
    commits are the change, so HEAD would count a committed cheat as already there)."""
    ins = given.ins
    base_rev = ins.base or ins.head
    read_base = partial(given.trees.read_files, base_rev) if base_rev else None
    list_base = partial(given.trees.files_at, base_rev) if base_rev else None
    read_new = partial(given.trees.read_files, given.scored_rev)
    found, notes = check_cheats(ins, given.job, read_base, read_new, list_base, given.kept)
    return Findings(tuple(found), tuple(notes))
