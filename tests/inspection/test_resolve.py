"""scorer/inspection/git.py `Repository.resolve`: git resolves the name while the refs it could
mean are listed (issue 29), one wait for both; the answers are the ones it gave one after the other."""

from __future__ import annotations

import os
from typing import Any

import pytest

from scorer.errors import GitError
from scorer.inspection import gitprocess
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo


def events_of(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    events: list[str] = []
    start, finish, run = gitprocess.GitProcess.start, gitprocess.GitProcess.finish, gitprocess.GitProcess.run

    def logging_start(self: gitprocess.GitProcess, *args: str, **options: Any) -> Any:
        proc = start(self, *args, **options)
        events.append(f"start {args[0]}")
        return proc

    def logging_finish(self: gitprocess.GitProcess, proc: Any, *rest: Any, **options: Any) -> Any:
        events.append(f"finish {proc.args[len(gitprocess.PINNED_ARGS) + 1]}")
        return finish(self, proc, *rest, **options)

    def logging_run(self: gitprocess.GitProcess, *args: str, **options: Any) -> Any:
        out = run(self, *args, **options)  # a call run to its end (by spawn, or start and finish)
        events.append(f"finish {args[0]}")
        return out

    monkeypatch.setattr(gitprocess.GitProcess, "start", logging_start)
    monkeypatch.setattr(gitprocess.GitProcess, "finish", logging_finish)
    monkeypatch.setattr(gitprocess.GitProcess, "run", logging_run)
    return events


def test_the_name_is_resolved_while_its_meanings_are_listed(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    repo.write("a.txt")
    commit = repo.commit("base")
    git = Repository(repo.root, dict(os.environ))
    events = events_of(monkeypatch)
    assert git.resolve("main") == commit
    assert events.index("start rev-parse") < events.index("finish for-each-ref"), events
    assert not git._live


def test_an_ambiguous_name_is_refused_and_leaves_nothing_running(repo: GitRepo) -> None:
    repo.write("a.txt")
    repo.commit("base")
    repo.git("tag", "main")  # a tag `main` beside the branch: git would pick the tag
    git = Repository(repo.root, dict(os.environ))
    with pytest.raises(GitError, match="ambiguous"):
        git.resolve("main")
    assert not git._live
    assert git.resolve("refs/heads/main") == repo.git("rev-parse", "refs/heads/main").stdout.strip()


def test_a_name_that_is_no_commit_is_refused(repo: GitRepo) -> None:
    repo.write("a.txt")
    repo.commit("base")
    git = Repository(repo.root, dict(os.environ))
    with pytest.raises(GitError, match="is not a commit"):
        git.resolve("no-such-branch")
    with pytest.raises(GitError, match="is not a commit"):
        git.resolve("HEAD^{tree}")
    assert not git._live
