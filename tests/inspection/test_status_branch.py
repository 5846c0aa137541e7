"""scorer/inspection/changes.py reads the branch from the status call it makes anyway (`status
--branch`, issue 29) instead of a `git symbolic-ref` of its own: held side by side to
`Repository.branch` (symbolic-ref) in every state HEAD can be in."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from scorer.errors import GitError
from scorer.inspection import changes, gitparse
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo


def both(repo: GitRepo) -> tuple[str | None, str | None, bool]:
    """(the branch as the inspection reads it, as symbolic-ref reads it, whether status could say)."""
    git = Repository(repo.root, dict(os.environ))
    status = git.finish(git.start_index_state())
    known, _ = gitparse.status_branch(status)
    return changes._branch(git, status), git.branch(), known


def commit(repo: GitRepo) -> None:
    repo.write("a.txt", "a\n")
    repo.commit("base")


def unborn(repo: GitRepo) -> None:
    pass


def detached(repo: GitRepo) -> None:
    commit(repo)
    repo.git("checkout", "-q", "--detach")


def named(name: str) -> Callable[[GitRepo], None]:
    def make(repo: GitRepo) -> None:
        commit(repo)
        repo.git("checkout", "-q", "-b", name)

    return make


def head_on(ref: str) -> Callable[[GitRepo], None]:
    def make(repo: GitRepo) -> None:
        commit(repo)
        repo.git("update-ref", ref, "HEAD")
        repo.git("symbolic-ref", "HEAD", ref)

    return make


def unborn_other(repo: GitRepo) -> None:
    commit(repo)
    repo.git("symbolic-ref", "HEAD", "refs/heads/never-committed")


def with_upstream(repo: GitRepo) -> None:
    commit(repo)
    repo.git("branch", "up")
    for i in range(5):
        repo.write("a.txt", f"{i}\n")
        repo.commit(f"c{i}")
    repo.git("branch", "-q", "--set-upstream-to=up")


def mid_rebase(repo: GitRepo) -> None:
    commit(repo)
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.txt", "side\n")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("a.txt", "main\n")
    repo.commit("main")
    repo.git("checkout", "-q", "side")
    repo.git("rebase", "main", check=False)  # stops at the conflict, HEAD detached


STATES = {
    "a branch": commit,
    "unborn": unborn,
    "detached": detached,
    "non-ASCII name": named("ünï/branch"),
    "a branch named (detached)": named("(detached)"),
    "a branch named (null)": named("(null)"),
    "a branch named HEAD-like": named("HEAD-x"),
    "a branch named (x": named("(x"),
    "HEAD on a tag": head_on("refs/tags/t"),
    "HEAD on a remote-tracking ref": head_on("refs/remotes/origin/x"),
    "HEAD on a branch with no commit": unborn_other,
    "an upstream five commits behind": with_upstream,
    "mid-rebase": mid_rebase,
}


@pytest.mark.parametrize("state", list(STATES))
def test_the_branch_is_what_symbolic_ref_says(repo: GitRepo, state: str) -> None:
    STATES[state](repo)
    inspected, by_symref, _ = both(repo)
    assert inspected == by_symref


def test_status_names_a_plain_branch_and_leaves_parentheses_to_symbolic_ref(repo: GitRepo) -> None:
    named("agent-1")(repo)
    assert both(repo) == ("agent-1", "agent-1", True)
    repo.git("checkout", "-q", "-b", "(detached)")
    assert both(repo) == ("(detached)", "(detached)", False)
    repo.git("checkout", "-q", "--detach")
    assert both(repo) == (None, None, False)


@pytest.mark.parametrize(
    "out",
    [
        b"",
        b"1 .M N... 100644 100644 100644 " + b"0" * 40 + b" " + b"0" * 40 + b" a\0",
        b"# branch.head a\0# branch.head b\0",
    ],
)
def test_a_status_without_exactly_one_branch_header_is_refused(out: bytes) -> None:
    with pytest.raises(GitError, match=r"branch\.head"):
        gitparse.status_branch(out)


def test_a_worktree_scoring_asks_no_symbolic_ref_on_a_branch(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report names the branch, with one git process fewer."""
    asked: list[tuple[str, ...]] = []
    start = Repository.start

    def counting(self: Repository, *args: str, **options: object) -> object:
        asked.append(args)
        return start(self, *args, **options)  # type: ignore[arg-type]

    base.git("checkout", "-q", "-b", "agent-7")
    base.write("allowed/t.py", "one\n")
    monkeypatch.setattr(Repository, "start", counting)
    out = base.score("--no-log")
    assert out.exit_code == 0, out.text
    assert out.report["binding"]["branch"] == "agent-7"
    assert not [a for a in asked if a[0] == "symbolic-ref"]
