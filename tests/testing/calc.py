"""The "calc with a bug" project the required-test tests share: calc.py subtracts where it should
add, the base's tests catch it, and the job works on the branch agent-fix."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import pytest

from tests.testing.repo import GitRepo, Outcome

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "tests"]
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
IGNORED = "__pycache__/\n*.pyc\n"
# The base's tests: two plain ones, and (SPEC_CASES) the same with test_add parametrized.
SPEC = textwrap.dedent(
    """\
    from calc import add


    def test_add():
        assert add(1, 2) == 3


    def test_add_zero():
        assert add(0, 0) == 0
    """
)
SPEC_CASES = textwrap.dedent(
    """\
    import pytest

    from calc import add


    @pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 2, 4), (0, 5, 5)])
    def test_add(a, b, total):
        assert add(a, b) == total


    def test_add_zero():
        assert add(0, 0) == 0
    """
)
# A plugin (a conftest.py, a module the configuration names): every report it sees becomes "passed".
PASS_ALL = textwrap.dedent(
    """\
    import pytest


    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        report = outcome.get_result()
        report.outcome = "passed"
        report.longrepr = None
    """
)


def calc_project(
    repo: GitRepo,
    tests: str,
    allowed_paths: Sequence[str],
    protected_tests: Sequence[str] = ("tests/**",),
    ignored: str = IGNORED,
    calc: str = BUGGY,
    message: str = "calc with a bug, and its tests",
    **manifest: Any,
) -> GitRepo:
    """`calc` (the bug) and `tests` as tests/test_calc.py committed on main, then the branch
    agent-fix and a manifest that runs pytest as the required test, every time."""
    repo.write("calc.py", calc)
    repo.write("tests/test_calc.py", tests)
    repo.write(".gitignore", ignored)
    repo.commit(message)
    repo.git("checkout", "-q", "-b", "agent-fix")
    fields = {"required_test": PYTEST, "always_run_test": True, **manifest}
    repo.manifest(allowed_paths=list(allowed_paths), protected_tests=list(protected_tests), **fields)
    return repo


def score_in(repo: GitRepo, mode: str, message: str = "the job's change", from_main: bool = False) -> Outcome:
    """`worktree`: the working tree scored with its test; otherwise the job committed and the range
    main..agent-fix scored (with `from_main`, from a checkout of main)."""
    if mode == "worktree":
        return repo.score(skip_test=False)
    repo.commit(message)
    if from_main:
        repo.git("checkout", "-q", "main")
    return repo.score("--base", "main", "--head", "agent-fix", skip_test=False)


def passed(out: Outcome) -> bool:
    """PASS to the letter: exit 0, no violation, the last line."""
    return out.exit_code == 0 and out.codes == set() and out.last_line == "RESULT: PASS"


def counted_calls(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[int]:
    """`module.name` wrapped for the test: one item in the list returned per call."""
    counted: list[int] = []
    real = getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        counted.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return counted
