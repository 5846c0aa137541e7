"""runner-shadowed: a module the job adds at a root of the test's sys.path, named like the runner,
the standard library or an installed distribution; one table of what fires and what must not, and
the count of distribution scans an edit to the project's own package makes (none)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Mapping

import pytest

from scorer.checks import runner
from tests.testing.repo import GitRepo

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
