"""scorer/inspection/gitprocess.py: a diff's output is read as git writes it, from the moment git starts,
so git never waits on a full pipe while Python validates the manifest (issue 29)."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from scorer.errors import GitError
from scorer.inspection.git import Repository
from tests.testing.repo import GitRepo

PIPE_ROOM = 1 << 20  # what _grow_pipe asks for: the diff below is several times larger


def _big_change(repo: GitRepo) -> None:
    for i in range(8):
        repo.write(f"f{i}.txt", "".join(f"line {n} of file {i}\n" for n in range(40000)))
    repo.commit("base")
    for i in range(8):
        repo.write(f"f{i}.txt", "".join(f"changed {n} of file {i}\n" for n in range(40000)))


def _started_diff(repo: GitRepo) -> tuple[Repository, subprocess.Popen[bytes]]:
    """A diff of several pipes' worth, started and not yet read."""
    _big_change(repo)
    git = Repository(repo.root)
    head = git.head()
    assert head is not None
    return git, git.start_diff(head)


def test_a_started_diff_runs_to_its_end_before_anyone_reads_it(repo: GitRepo) -> None:
    git, proc = _started_diff(repo)
    proc.wait(timeout=120)  # without the drain git would stop at a full pipe and never exit
    seen = hashlib.sha256()
    out = b"".join(git.stream(proc, seen.update))
    assert len(out) > 4 * PIPE_ROOM
    assert seen.digest() == hashlib.sha256(out).digest()
    alone = subprocess.run(proc.args, cwd=repo.root, env=git._env, capture_output=True, check=True).stdout
    assert out == alone  # the same bytes, in the same order, as git writes for a reader that waits


def test_a_drained_call_that_fails_is_an_error(repo: GitRepo) -> None:
    repo.write("a.txt")
    repo.commit("base")
    git = Repository(repo.root)
    proc = git.start_drained("diff", "no-such-commit-" + "0" * 20)
    with pytest.raises(GitError, match="failed"):
        b"".join(git.stream(proc, lambda _: None))


def test_close_stops_a_drained_call_nobody_read(repo: GitRepo) -> None:
    git, proc = _started_diff(repo)
    git.close()
    assert proc.returncode is not None
    assert not git._live and not git._drains


def test_close_stops_a_drained_call_read_in_part(repo: GitRepo) -> None:
    git, proc = _started_diff(repo)
    chunks = git.stream(proc, lambda _: None)
    assert next(chunks)
    git.close()
    assert proc.returncode is not None
    assert not git._live and not git._drains
