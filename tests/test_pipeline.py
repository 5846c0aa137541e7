"""The git processes one worktree scoring starts (issue 29): each question asked once.

Every git process goes through `GitProcess.start` or the discovery (`gitprocess._discover`), so
wrapping both counts them all; the verdicts are the ones the other tests hold.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from scorer.inspection import gitprocess
from tests.testing.repo import GitRepo

HEAD_COMMIT = ("rev-parse", "--verify", "-q", "HEAD^{commit}")


def git_questions(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, ...]]:
    """The argv (past the pinned options) of every git process started from now on, counted."""
    asked: Counter[tuple[str, ...]] = Counter()
    start, discover = gitprocess.GitProcess.start, gitprocess._discover

    def counting_start(self: gitprocess.GitProcess, *args: str, **options: Any) -> Any:
        asked[args] += 1
        return start(self, *args, **options)

    def counting_discover(*args: Any, **kwargs: Any) -> Any:
        asked[("discover",)] += 1
        return discover(*args, **kwargs)

    monkeypatch.setattr(gitprocess.GitProcess, "start", counting_start)
    monkeypatch.setattr(gitprocess, "_discover", counting_discover)
    return asked


def test_a_worktree_scoring_reads_head_once(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The diff, the manifest's place at HEAD and the report name one commit, read once: a second
    read only asked whether HEAD moved between two reads that nothing else separates."""
    base.write("allowed/t.py", "one\ntwo\n")
    asked = git_questions(monkeypatch)
    out = base.score("--no-log")
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (with test skipped)", out.text
    assert asked[HEAD_COMMIT] == 1
    assert out.report["binding"]["head"] == base.git("rev-parse", "HEAD").stdout.strip()


def test_an_unborn_branch_reads_head_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """No commit yet: HEAD is None once, and the change is scored against the empty tree."""
    repo.write("allowed/t.py", "one\n")
    manifest = repo.manifest(allowed_paths=["allowed/**"])
    asked = git_questions(monkeypatch)
    out = repo.score("--no-log", manifest=manifest)
    assert asked[HEAD_COMMIT] == 1
    assert out.report["binding"]["head"] is None and "allowed/t.py" in out.text
