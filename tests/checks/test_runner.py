"""runner-shadowed (checks/runner.py): one table of what fires and what must not, what it reads to
decide, and only when a module is there (no base read, no distribution scan for the project's own)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping, Sequence
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


# (files at the base, what the job writes, fires); jsonschema is one of score-diff's dependencies
_CASES = [
    ({}, {"src/pytest/__init__.py": ""}, True),
    ({}, {"json.py": "X = 1\n"}, True),
    ({}, {"src/jsonschema/__init__.py": ""}, True),
    ({}, {"jsonschema/__init__.py": "", "jsonschema/validators.py": ""}, True),
    ({"src/calc/__init__.py": ""}, {"src/jsonschema/__init__.py": ""}, True),
    # what must not fire
    ({"src/jsonschema/__init__.py": ""}, {"src/jsonschema/__init__.py": "X = 1\n"}, False),
    ({"src/jsonschema/__init__.py": ""}, {"src/jsonschema/more.py": "X = 1\n"}, False),
    ({}, {"src/calc_extras/__init__.py": ""}, False),
    ({}, {"src/jsonschema/more.py": ""}, False),  # no __init__.py: a namespace portion
    ({}, {"test/__init__.py": ""}, False),
]


def _base_then_change(repo: GitRepo, base: dict[str, str], change: dict[str, str]) -> None:
    repo.write("README", "base\n")
    for path, text in base.items():
        repo.write(path, text)
    repo.commit("base")
    repo.manifest(allowed_paths=["**"])
    for path, text in change.items():
        repo.write(path, text)


@pytest.mark.parametrize(("base", "change", "fires"), _CASES)
def test_runner_shadowed(repo: GitRepo, base: dict[str, str], change: dict[str, str], fires: bool) -> None:
    _base_then_change(repo, base, change)
    out = repo.score()
    assert ("runner-shadowed" in out.codes) == fires, out.text
    assert out.exit_code == (1 if fires else 0), out.text


def test_an_edit_to_the_projects_own_package_scans_no_distribution(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The distribution scan (about 0.2 s per stage, twice a commit) is asked only for a module the
    base lacks; an edit of `src/calc/` never needs it, and a new `src/jsonschema/` still does."""
    scans: list[int] = []
    real = importlib.metadata.packages_distributions

    def scanning() -> Mapping[str, list[str]]:
        scans.append(1)
        return real()

    monkeypatch.setattr(importlib.metadata, "packages_distributions", scanning)
    runner._installed.cache_clear()
    _base_then_change(repo, {"src/calc/__init__.py": "", "src/calc/core.py": ""}, {"src/calc/core.py": "X = 1\n"})
    assert repo.score().exit_code == 0 and scans == []
    repo.write("src/jsonschema/__init__.py", "")
    assert "runner-shadowed" in repo.score().codes and scans == [1]
    runner._installed.cache_clear()
