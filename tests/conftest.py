"""Shared fixtures: real, deterministic temporary git repositories (the helpers live in tests/testing/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.repo import GitRepo

# Variables that would let the developer's (or a hook's) git setup leak into a test.
_LEAKY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_PAGER",
    "SCORE_DIFF_MANIFEST",
    "SCORE_DIFF_MANIFEST_SHA256",
    "PRE_COMMIT",
    "SCORE_SNEAKY",
    "GITHUB_STEP_SUMMARY",
    "CI",  # the decision log infers its gate from it
)


@pytest.fixture(autouse=True)
def deterministic_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identities and dates, and a HOME of our own so no personal config leaks in."""
    home = tmp_path_factory.mktemp("home")
    for name in _LEAKY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test Agent")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "agent@example.invalid")
        monkeypatch.setenv(f"GIT_{who}_DATE", "2026-01-01T00:00:00+00:00")


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch main (no commits yet)."""
    return GitRepo(tmp_path / "repo", tmp_path / "scratch")


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    """main holds allowed/t.py and other/t.py; only allowed/** may change; eval( is forbidden."""
    repo.write("allowed/t.py", "one\ntwo\nthree\n")
    repo.write("other/t.py", "one\ntwo\nthree\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    return repo


@pytest.fixture
def committed(repo: GitRepo) -> GitRepo:
    """A repository with one commit holding a few text files."""
    repo.write("allowed/a.py", "one\ntwo\nthree\n")
    repo.write("other/b.py", "alpha\nbeta\n")
    repo.write("README.txt", "hello\n")
    repo.commit("initial")
    return repo
