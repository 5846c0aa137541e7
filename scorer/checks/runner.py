"""runner-shadowed: the test's runner comes from the environment, never from the checkout.

The required test runs with the checkout's root and its src/ ahead of site-packages (the root is
sys.path[0] for `python -m`, both are PYTHONPATH), so a `src/pytest/__main__.py` is what
`python -m pytest` runs, and a `pluggy.py` or `unittest/` the job adds replaces the runner's own
code. A top-level module or regular package the job adds or changes at one of those roots is a
violation when its name is one the standard library or an installed distribution provides, and
the base had no module of that name there (a vendored package the base already had is the
project's own).

Which interpreter's names: score-diff's own (`sys.stdlib_module_names`,
`importlib.metadata.packages_distributions()`), since this check runs before the test and without
it (pre-commit, --skip-test), plus `RUNNERS`, the runners and their plugins' top-level names,
whatever score-diff's environment holds. A distribution installed only in the test's own
environment and not in RUNNERS is not known here (docs/limitations.md).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import lru_cache

from .. import model
from ..model import Violation
from .contract import CheckInput, Findings

ROOTS = ("", "src/")  # what the required test puts ahead of site-packages (testrun/passes.py)
RUNNERS = frozenset(
    {"pytest", "_pytest", "pluggy", "py", "iniconfig", "xdist", "execnet", "pytest_cov", "coverage", "unittest"}
)
# The standard library's regression tests: no runner imports them, and many projects name a folder so.
_HARMLESS = frozenset({"test"})
_MODULE_SUFFIXES = (".py", ".pyc", ".pyd", ".so")


@lru_cache(maxsize=1)
def _installed() -> frozenset[str]:
    from importlib.metadata import packages_distributions

    return frozenset(packages_distributions())


def _provider(name: str) -> str | None:
    """Who provides `name` in the environment, if anyone does."""
    if name in _HARMLESS:
        return None
    if name in RUNNERS:
        return "the test runner"
    if name in sys.stdlib_module_names or name in sys.builtin_module_names:
        return "the standard library"
    return "an installed distribution" if name in _installed() else None


def _top_level(path: str) -> Iterator[tuple[str, str]]:
    """(name, the file that makes it importable) for the module or package `path` belongs to at a root."""
    for root in ROOTS:
        if not path.startswith(root):
            continue
        parts = path[len(root) :].split("/")
        if len(parts) == 1 and parts[0].endswith(_MODULE_SUFFIXES):
            yield parts[0].split(".")[0], path
        elif len(parts) > 1 and parts[0] and path.endswith(_MODULE_SUFFIXES):
            yield parts[0], f"{root}{parts[0]}/__init__.py"


def check_runner_shadowed(given: CheckInput) -> Findings:
    """runner-shadowed for each module the job's tree would import instead of the environment's."""
    wanted: dict[str, tuple[str, str]] = {}  # marker: (name, a changed path)
    for c in given.ins.changed:
        if c.status == model.DELETED or c.submodule:
            continue
        for name, marker in _top_level(c.path):
            wanted.setdefault(marker, (name, c.path))
    if not wanted:
        return Findings()
    now = given.trees.read_files(given.scored_rev, sorted(wanted))
    present = sorted(m for m in wanted if now.get(m) is not None)  # a namespace portion is no module
    base_rev = given.ins.base or given.ins.head
    # The base is read, and the environment's distributions listed (importlib.metadata: tens of
    # ms), only for a module the tree has: on most changes there is none.
    before = given.trees.read_files(base_rev, present) if base_rev and present else {}
    found = []
    for marker in present:
        name, path = wanted[marker]
        who = None if before.get(marker) is not None else _provider(name)
        if who is None:
            continue  # the base's own, or not a name the environment provides
        found.append(
            Violation(
                "runner-shadowed",
                f"`{name}` is provided by {who}, but this tree's {marker} comes first on the test's sys.path, "
                f"so the required test would import the job's `{name}` instead; rename the module",
                path,
            )
        )
    return Findings(tuple(found))
