"""The sidecar's fence at HEAD (guard/heads.py): HEAD asked of one kept `git cat-file
--batch-check` on every request, git's listing of the manifest kept by commit id.

Held side by side against the command hook's own read (one `git ls-tree HEAD` per call, the
authority here), for every way HEAD can move between two requests and every state of the
committed manifest; a cat-file that dies, lies or falls silent is never trusted.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer.errors import GitError
from scorer.guard import heads
from scorer.guard.run import FenceCache, GuardOptions, evaluate
from scorer.inspection.gitprocess import Batch, GitProcess
from tests.testing.repo import GitRepo

FENCE = {"job_id": "test-job", "allowed_paths": ["allowed/**"], "required_test": ["true"]}


class Sidecar:
    """Payloads decided the sidecar's way (one FenceCache for every call) and the command hook's way."""

    def __init__(self, repo: GitRepo, path: str | None = None) -> None:
        self.repo = repo
        self.environ = {"HOME": str(repo.scratch), "PATH": path or os.environ["PATH"]}
        self.opts = GuardOptions("claude", None, str(repo.root), log=False)
        self.cache = FenceCache()

    def payload(self, target: str, session: str = "s") -> bytes:
        return json.dumps(
            {
                "session_id": session,
                "prompt_id": "p",
                "cwd": str(self.repo.root),
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": {"file_path": f"{self.repo.root}/{target}", "content": "x = 1\n"},
            }
        ).encode()

    def served(self, target: str) -> tuple[str, str, str]:
        return said(evaluate(self.payload(target), self.opts, self.environ, self.cache))

    def hooked(self, target: str) -> tuple[str, str, str]:
        return said(evaluate(self.payload(target), self.opts, self.environ))

    def listing(self) -> heads.HeadListing:
        root, git_dir = self.cache.locate(str(self.repo.root), self.environ)
        return self.cache.heads(root, git_dir, self.environ)


def said(outcome: Any) -> tuple[str, str, str]:
    d = outcome.decision
    return d.action, d.code, d.reason


@pytest.fixture
def tracked(committed: GitRepo) -> GitRepo:
    committed.write("job_manifest.json", json.dumps(FENCE))
    committed.commit("fence")
    return committed


@pytest.fixture
def sidecar(tracked: GitRepo) -> Any:
    served = Sidecar(tracked)
    yield served
    served.cache.close()


def fence_allowing(repo: GitRepo, *globs: str) -> str:
    repo.write("job_manifest.json", json.dumps({**FENCE, "allowed_paths": list(globs)}))
    return repo.commit("fence " + " ".join(globs))


def test_a_commit_that_changes_the_manifest_changes_the_next_answer(tracked: GitRepo, sidecar: Sidecar) -> None:
    assert sidecar.served("other/n.py")[0] == "deny"
    fence_allowing(tracked, "allowed/**", "other/**")
    assert sidecar.served("other/n.py")[0] == "allow"
    fence_allowing(tracked, "allowed/**")
    assert sidecar.served("other/n.py")[0] == "deny"
    assert sidecar.listing().listed == 3  # one ls-tree per commit
    assert sidecar.listing()._object_names().started == 1  # one cat-file for every request


def test_requests_at_one_head_list_it_once(tracked: GitRepo, sidecar: Sidecar) -> None:
    for target in ("allowed/a.py", "other/b.py", "allowed/c.py", "other/d.py"):
        assert sidecar.served(target) == sidecar.hooked(target)
    assert sidecar.listing().listed == 1


def _checkout_looser_branch(repo: GitRepo) -> None:
    repo.git("checkout", "-q", "-b", "loose")
    fence_allowing(repo, "**")


def _reset_to_looser_commit(repo: GitRepo) -> None:
    loose = fence_allowing(repo, "**")
    fence_allowing(repo, "allowed/**")
    repo.git("reset", "-q", "--hard", loose)


def _reset_back_to_stricter_commit(repo: GitRepo) -> None:
    repo.git("reset", "-q", "--hard", "HEAD~1")  # the commit before the fence: no manifest at all


def _packed_refs_then_a_commit(repo: GitRepo) -> None:
    repo.git("pack-refs", "--all", "--prune")  # main now lives in packed-refs only
    fence_allowing(repo, "**")


def _packed_refs_moved_underneath(repo: GitRepo) -> None:
    loose = fence_allowing(repo, "**")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("pack-refs", "--all", "--prune")
    repo.git("update-ref", "refs/heads/main", loose)  # the ref written as a loose file over the packed one
    repo.git("reset", "-q", "--hard")


def _detached_at_looser_commit(repo: GitRepo) -> None:
    loose = fence_allowing(repo, "**")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("checkout", "-q", "--detach", loose)


def _gc_after_a_commit(repo: GitRepo) -> None:
    fence_allowing(repo, "**")
    repo.git("gc", "-q", "--prune=now")  # the commit moves into a pack the cat-file has not opened


@pytest.mark.parametrize(
    "move",
    [
        _checkout_looser_branch,
        _reset_to_looser_commit,
        _reset_back_to_stricter_commit,
        _packed_refs_then_a_commit,
        _packed_refs_moved_underneath,
        _detached_at_looser_commit,
        _gc_after_a_commit,
    ],
)
def test_head_moved_between_two_requests_answers_as_git_now_does(
    tracked: GitRepo, sidecar: Sidecar, move: Callable[[GitRepo], None]
) -> None:
    for target in ("allowed/a.py", "other/b.py"):
        assert sidecar.served(target) == sidecar.hooked(target)
    move(tracked)
    for target in ("allowed/a.py", "other/b.py", "other/c.py"):
        assert sidecar.served(target) == sidecar.hooked(target)


def _edited_on_disk(repo: GitRepo) -> None:
    repo.write("job_manifest.json", json.dumps({**FENCE, "allowed_paths": ["**"]}))  # not committed


def _committed_as_a_link(repo: GitRepo) -> None:
    loose = repo.write_manifest(allowed_paths=["**"])
    repo.remove("job_manifest.json")
    repo.symlink("job_manifest.json", str(loose))
    repo.commit("link")


def _removed_in_a_commit(repo: GitRepo) -> None:
    repo.remove("job_manifest.json")
    repo.commit("no fence")


def _wrong_pin_committed(repo: GitRepo) -> None:
    repo.write("job_manifest.json.sha256", "0" * 64 + "\n")
    repo.commit("pin")


def _job_file_on_a_job_branch(repo: GitRepo) -> None:
    repo.write(".score-diff/jobs/fix.json", json.dumps({**FENCE, "job_id": "fix", "allowed_paths": ["other/**"]}))
    repo.commit("job")
    repo.git("checkout", "-q", "-b", "agent-fix")


def _job_file_then_the_branch_changes(repo: GitRepo) -> None:
    _job_file_on_a_job_branch(repo)
    repo.git("checkout", "-q", "main")  # same commit, other branch: the job's fence no longer applies


@pytest.mark.parametrize(
    "state",
    [
        _edited_on_disk,
        _committed_as_a_link,
        _removed_in_a_commit,
        _wrong_pin_committed,
        _job_file_on_a_job_branch,
        _job_file_then_the_branch_changes,
    ],
)
def test_every_state_of_the_committed_fence_answers_as_the_hook_does(
    tracked: GitRepo, sidecar: Sidecar, state: Callable[[GitRepo], None]
) -> None:
    assert sidecar.served("allowed/a.py") == sidecar.hooked("allowed/a.py")
    state(tracked)
    for target in ("allowed/a.py", "other/b.py"):
        assert sidecar.served(target) == sidecar.hooked(target)


def test_a_repository_with_no_commit_is_refused_as_the_hook_refuses_it(repo: GitRepo) -> None:
    sidecar = Sidecar(repo)
    try:
        assert sidecar.served("allowed/a.py") == sidecar.hooked("allowed/a.py")
        assert sidecar.served("allowed/a.py")[0] == "deny"
    finally:
        sidecar.cache.close()


def test_a_killed_cat_file_is_started_again(tracked: GitRepo, sidecar: Sidecar) -> None:
    assert sidecar.served("allowed/a.py")[0] == "allow"
    names = sidecar.listing()._object_names()
    proc = names._batch._proc
    assert proc is not None
    proc.kill()
    proc.wait()
    fence_allowing(tracked, "allowed/**", "other/**")
    assert sidecar.served("other/n.py")[0] == "allow"
    assert names.started == 2


def fake_git(where: Path, cat_file: str) -> str:
    """A PATH whose `git` runs `cat_file` (shell) for cat-file and the real git for the rest."""
    real = shutil.which("git")
    assert real is not None
    where.mkdir(parents=True, exist_ok=True)
    script = where / "git"
    script.write_text(
        f'#!/bin/sh\ncase " $* " in *" cat-file --batch-check "*) {cat_file} ;; *) exec "{real}" "$@" ;; esac\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    return f"{where}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize(
    "cat_file",
    [
        "exit 1",  # dies at once
        "while read -r n; do echo 'nonsense'; done",  # answers what is no answer
        "while read -r n; do printf '%040d commit 1\\nextra\\n' 0; done",  # more than one line
        'while read -r n; do echo "$n ambiguous"; done',
        "while read -r n; do printf '%040d commit 1\\n' 0; done",  # an id of nothing: ls-tree fails
    ],
)
def test_a_cat_file_that_fails_or_lies_is_not_trusted(tracked: GitRepo, cat_file: str) -> None:
    """Each read falls back to the way scoring reads the fence, which decides as the hook does."""
    sidecar = Sidecar(tracked, fake_git(tracked.scratch / "bin", cat_file))
    try:
        for target in ("allowed/a.py", "other/b.py"):
            assert sidecar.served(target) == sidecar.hooked(target)
        assert sidecar.served("allowed/a.py")[0] == "allow"
        assert sidecar.served("other/b.py")[0] == "deny"
    finally:
        sidecar.cache.close()


def test_when_the_fallback_fails_too_the_answer_is_a_deny(
    tracked: GitRepo, sidecar: Sidecar, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any) -> Any:
        raise GitError("no answer")

    monkeypatch.setattr(heads.HeadListing, "tree_entries", broken)
    monkeypatch.setattr("scorer.pipeline.committed_fence", broken)
    assert sidecar.served("allowed/a.py")[0] == "deny"


def test_a_silent_cat_file_is_given_up_on_by_its_deadline(tracked: GitRepo) -> None:
    path = fake_git(tracked.scratch / "bin", "exec sleep 30")
    git = GitProcess(tracked.root, {"HOME": str(tracked.scratch), "PATH": path})
    batch = Batch(git, ("cat-file", "--batch-check"), timeout_s=0.2)
    with pytest.raises(GitError, match="no answer within"):
        batch.ask(b"HEAD")
    assert batch._proc is None and not git._live  # the silent git was stopped


def test_a_question_of_more_than_one_line_is_refused(tracked: GitRepo) -> None:
    batch = Batch(GitProcess(tracked.root, {"HOME": str(tracked.scratch)}), ("cat-file", "--batch-check"))
    with pytest.raises(GitError, match="one line"):
        batch.ask(b"HEAD\nmain")
    batch.close()


def test_requests_at_once_share_one_cat_file(tracked: GitRepo, sidecar: Sidecar) -> None:
    answers: list[tuple[str, str, str]] = []
    threads = [
        threading.Thread(target=lambda t=target: answers.append(sidecar.served(t)))
        for target in ["allowed/a.py", "other/b.py"] * 5
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(a[0] for a in answers) == ["allow"] * 5 + ["deny"] * 5
    assert sidecar.listing()._object_names().started == 1


def test_closing_stops_the_cat_file(tracked: GitRepo, sidecar: Sidecar) -> None:
    sidecar.served("allowed/a.py")
    listing = sidecar.listing()
    proc = listing._object_names()._batch._proc
    assert proc is not None
    sidecar.cache.close()
    assert proc.poll() is not None
    with pytest.raises(GitError):  # a request still holding it gets no new cat-file: the slow read answers
        listing._object_names()
