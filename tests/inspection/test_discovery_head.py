"""scorer/inspection/gitprocess.py: the repository's discovery reads HEAD in the same git call
(issue 29), held side by side to the two calls it replaces: the discovery alone, and
`Repository.head` (`git rev-parse --verify -q HEAD^{commit}`) asked afterwards."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from scorer.errors import GitError
from scorer.inspection import gitprocess
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo


def side_by_side(where: Path) -> tuple[Repository, bool, str | None]:
    """(the repository opened with HEAD read by discovery, whether it was, what it read), after
    checking that discovery answers as it does without HEAD, and HEAD as `head()` reads it."""
    folded = Repository(where, dict(os.environ), read_head=True)
    plain = Repository(where, dict(os.environ))
    assert (folded.root, folded.git_dir) == (plain.root, plain.git_dir)
    known, head = folded.discovered_head()
    if known:
        assert head == plain.head()
    return folded, known, head


def born(repo: GitRepo) -> str:
    repo.write("a.txt", "a\n")
    return repo.commit("base")


def test_a_branch_with_commits(repo: GitRepo) -> None:
    commit = born(repo)
    _, known, head = side_by_side(repo.root)
    assert known and head == commit


def test_an_unborn_branch_is_no_commit(repo: GitRepo) -> None:
    _, known, head = side_by_side(repo.root)
    assert known and head is None


def test_a_detached_head(repo: GitRepo) -> None:
    first = born(repo)
    repo.write("a.txt", "b\n")
    repo.commit("second")
    repo.git("checkout", "-q", "--detach", first)
    _, known, head = side_by_side(repo.root)
    assert known and head == first


def test_a_subdirectory_and_a_linked_worktree(repo: GitRepo, tmp_path: Path) -> None:
    commit = born(repo)
    (repo.root / "sub").mkdir()
    assert side_by_side(repo.root / "sub")[1:] == (True, commit)
    repo.git("branch", "other")
    repo.write("a.txt", "c\n")
    moved = repo.commit("main moves on")
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "other")
    assert side_by_side(tmp_path / "linked")[1:] == (True, commit)  # the linked tree's own HEAD
    assert side_by_side(repo.root)[1:] == (True, moved)


def test_head_naming_a_tag_of_a_tree_is_no_commit(repo: GitRepo) -> None:
    born(repo)
    tree = repo.git("rev-parse", "HEAD^{tree}").stdout.strip()
    repo.git("tag", "t", tree)
    repo.git("symbolic-ref", "HEAD", "refs/tags/t")
    _, known, head = side_by_side(repo.root)
    assert known and head is None


def test_a_sha256_repository(tmp_path: Path) -> None:
    where = tmp_path / "r256"
    if subprocess.run(["git", "init", "-q", "--object-format=sha256", str(where)], check=False).returncode:
        pytest.skip("this git cannot make a sha256 repository")
    subprocess.run(["git", "-C", str(where), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    _, known, head = side_by_side(where)
    assert known and head is not None and len(head) == 64


def test_a_path_with_a_newline(tmp_path: Path) -> None:
    """git ends each answer with a newline: a path holding one cannot be read line by line, so the
    discovery is as it was (whatever that was) and HEAD is read afresh."""
    where = tmp_path / "odd\nname"
    repo = GitRepo(where, tmp_path / "scratch")
    born(repo)
    try:
        plain = Repository(where, dict(os.environ))
    except GitError as exc:
        with pytest.raises(GitError) as folded_exc:
            Repository(where, dict(os.environ), read_head=True)
        assert str(folded_exc.value) == str(exc)
        return
    folded = Repository(where, dict(os.environ), read_head=True)
    assert (folded.root, folded.git_dir) == (plain.root, plain.git_dir)
    assert folded.discovered_head() == (False, None)


def test_a_bare_repository_and_a_git_directory_read_no_head(repo: GitRepo, tmp_path: Path) -> None:
    born(repo)
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    folded = Repository(bare, dict(os.environ), read_head=True)
    assert folded.root is None and folded.discovered_head() == (False, None)
    with pytest.raises(GitError, match="inside a git directory"):
        Repository(repo.root / ".git", dict(os.environ), read_head=True)


def test_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    with pytest.raises(GitError, match="not a git repository"):
        Repository(tmp_path / "plain", env, read_head=True)


def test_head_is_handed_out_once_then_asked_afresh(repo: GitRepo) -> None:
    """A ref that moves after discovery: whoever asks after the first is not given the old answer."""
    first = born(repo)
    folded = Repository(repo.root, dict(os.environ), read_head=True)
    repo.write("a.txt", "moved\n")
    moved = repo.commit("moved")
    assert folded.discovered_head() == (True, first)
    assert folded.discovered_head() == (False, None)
    assert folded.head() == moved


@pytest.mark.parametrize(
    ("code", "lines"),
    [
        (0, ["/g", "false", "/w", ""]),  # exit 0 but no id
        (0, ["/g", "false", "/w", "HEAD^{commit}", ""]),  # an echo, not an id
        (0, ["/g", "false", "/w", "0" * 39, ""]),
        (0, ["/g", "false", "/w", "a" * 40, "b" * 40, ""]),  # more than was asked
        (1, ["/g", "false", "/w", "a" * 40, ""]),  # an id with a failure
        (1, ["/g", "false", "/w", "surprise", ""]),
    ],
)
def test_an_unexpected_head_answer_is_refused(code: int, lines: list[str]) -> None:
    with pytest.raises(GitError, match="for HEAD"):
        gitprocess._head_line(code, lines)
