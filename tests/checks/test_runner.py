"""runner-shadowed (checks/runner.py): what it reads to decide, and only when a module is there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from scorer.checks import runner
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, tuple[str, ...]]]:
    """Every read_files call (rev, paths), and a count of the environment's distribution scans."""
    calls: list[tuple[str | None, tuple[str, ...]]] = []
    real_read, real_installed = Repository.read_files, runner._installed.__wrapped__

    def reading(self: Repository, rev: str | None, paths: Sequence[str]) -> Any:
        calls.append((rev, tuple(paths)))
        return real_read(self, rev, paths)

    def installed() -> frozenset[str]:
        calls.append(("distributions", ()))
        return real_installed()

    monkeypatch.setattr(Repository, "read_files", reading)
    monkeypatch.setattr(runner, "_installed", installed)
    return calls


def test_no_module_at_a_root_reads_neither_the_base_nor_the_environment(repo: GitRepo, asked: list[Any]):
    """Changed files in plain folders (no __init__.py) and no module at the root: nothing to shadow."""
    repo.write("docs/guide.md", "one\n")
    repo.write("data/table.py", "X = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["**"])
    repo.write("data/table.py", "X = 2\n")
    repo.write("data/more.py", "Y = 1\n")
    assert repo.score().codes == set()
    markers = [(rev, paths) for rev, paths in asked if "data/__init__.py" in paths]
    assert markers == [(None, ("data/__init__.py",))], asked
    assert ("distributions", ()) not in asked


@pytest.mark.parametrize(
    "path, codes",
    [
        ("src/pytest/__init__.py", {"runner-shadowed"}),  # a package the runner provides, new
        ("json.py", {"runner-shadowed"}),  # the standard library's
        ("calc_extras/__init__.py", set()),  # a name nothing provides
    ],
)
def test_a_new_module_at_a_root_is_judged(repo: GitRepo, path: str, codes: set[str]):
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["**"])
    repo.write(path, "X = 1\n")
    assert repo.score().codes == codes


def test_a_module_the_base_had_is_the_projects_own(repo: GitRepo, asked: list[Any]):
    repo.write("src/pytest/__init__.py", "VENDORED = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["**"])
    repo.write("src/pytest/__init__.py", "VENDORED = 2\n")
    assert repo.score().codes == set()
    assert ("distributions", ()) not in asked
