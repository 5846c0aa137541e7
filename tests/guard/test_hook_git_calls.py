"""How many git processes the command hook starts for one Write (issue 29, item 5), and that the
fewer calls decide exactly as before.

Each hook runs in a fresh interpreter, as an agent runs it, with a `git` first on PATH that
writes its arguments to a file and execs the real git: every git process is counted, whoever
starts it. A fence committed at HEAD is read with one `git ls-tree`, its bytes from the working
tree when they hash to the committed blob (a copy edited on disk is read from git instead, and
never loosens the fence); a session's later calls do not look for the repository again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]
FENCE = {"job_id": "test-job", "allowed_paths": ["allowed/**"], "required_test": ["true"]}


def counting_git(where: Path) -> tuple[Path, Path]:
    """(a directory holding a counting `git`, the file it appends one line per call to)."""
    real = shutil.which("git")
    assert real is not None
    where.mkdir(parents=True, exist_ok=True)
    calls = where / "calls"
    wrapper = where / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return where, calls


def hook(repo: GitRepo, target: str, session: str = "s1", *extra: str) -> tuple[int, str, list[str]]:
    """One Write payload to `score-diff guard` in a fresh interpreter: (exit, stdout, git calls)."""
    bin_dir, calls = counting_git(repo.scratch / "bin")
    if calls.exists():
        calls.unlink()
    payload = {
        "session_id": session,
        "prompt_id": "p",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": f"{repo.root}/{target}", "content": "x = 1\n"},
    }
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    argv = [sys.executable, "-m", "scorer", "guard", "--agent", "claude", "--no-log", *extra]
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=repo.root)
    made = calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []
    return proc.returncode, proc.stdout.decode(), made


def verdict(code: int, out: str) -> str:
    """allow, or the first violation code a deny names (`[code]` in the reason)."""
    if code == 0 and out == "":
        return "allow"
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    return reason.split("[", 1)[1].split("]", 1)[0] if "[" in reason else reason


@pytest.fixture
def tracked(committed: GitRepo) -> GitRepo:
    """job_manifest.json committed at HEAD: the fence the hook reads without --manifest."""
    committed.write("job_manifest.json", json.dumps(FENCE))
    committed.commit("fence")
    return committed


def test_a_later_call_of_the_session_starts_one_git(tracked: GitRepo) -> None:
    assert verdict(*hook(tracked, "allowed/n.py")[:2]) == "allow"  # the session's first call pins it
    code, out, made = hook(tracked, "allowed/n.py")
    assert verdict(code, out) == "allow"
    assert len(made) <= 1, made


def test_the_first_call_of_a_session_starts_at_most_two(tracked: GitRepo) -> None:
    code, out, made = hook(tracked, "allowed/n.py", "fresh")
    assert verdict(code, out) == "allow"
    assert len(made) <= 2, made


def test_a_manifest_outside_the_repository_needs_no_git_once_pinned(committed: GitRepo) -> None:
    manifest = committed.write_manifest(allowed_paths=["allowed/**"])
    assert verdict(*hook(committed, "allowed/n.py", "s1", "--manifest", str(manifest))[:2]) == "allow"
    code, out, made = hook(committed, "other/n.py", "s1", "--manifest", str(manifest))
    assert verdict(code, out) == "unlisted-path"
    assert made == []


def test_a_looser_copy_on_disk_does_not_loosen_the_committed_fence(tracked: GitRepo) -> None:
    hook(tracked, "allowed/n.py")
    tracked.write("job_manifest.json", json.dumps({**FENCE, "allowed_paths": ["**"]}))  # not committed
    assert verdict(*hook(tracked, "other/n.py")[:2]) == "unlisted-path"
    assert verdict(*hook(tracked, "allowed/n.py")[:2]) == "allow"


def test_a_manifest_on_disk_swapped_for_a_link_to_a_looser_file_is_read_from_git(tracked: GitRepo) -> None:
    loose = tracked.write_manifest(allowed_paths=["**"])
    (tracked.root / "job_manifest.json").unlink()
    os.symlink(loose, tracked.root / "job_manifest.json")
    assert verdict(*hook(tracked, "other/n.py")[:2]) == "unlisted-path"


def test_a_committed_pin_is_checked_against_the_committed_bytes(tracked: GitRepo) -> None:
    tracked.write("job_manifest.json.sha256", "0" * 64 + "\n")
    tracked.commit("a pin that does not match")
    code, out, _ = hook(tracked, "allowed/n.py")
    assert code == 2 and "sha256" in json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]


def test_a_manifest_committed_as_a_symlink_is_refused(committed: GitRepo) -> None:
    (committed.root / "fence.json").write_text(json.dumps({**FENCE, "allowed_paths": ["**"]}), encoding="utf-8")
    os.symlink("fence.json", committed.root / "job_manifest.json")
    committed.commit("a linked fence")
    code, out, _ = hook(committed, "other/n.py")
    assert code == 2 and "not a file" in json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]


def test_a_job_branch_is_judged_by_its_own_committed_job_file(tracked: GitRepo) -> None:
    jobs = tracked.root / ".score-diff" / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "fix.json").write_text(json.dumps({**FENCE, "job_id": "fix", "allowed_paths": ["other/**"]}))
    tracked.commit("the fix job's fence")
    tracked.git("checkout", "-q", "-b", "agent-fix")
    assert verdict(*hook(tracked, "other/n.py")[:2]) == "allow"
    assert verdict(*hook(tracked, "allowed/n.py")[:2]) == "unlisted-path"
    tracked.git("checkout", "-q", "-b", "agent-other")  # no job file of its own: job_manifest.json
    assert verdict(*hook(tracked, "allowed/n.py")[:2]) == "allow"
    assert verdict(*hook(tracked, "other/n.py")[:2]) == "unlisted-path"


def test_an_unborn_head_reads_the_manifest_on_disk_as_before(repo: GitRepo) -> None:
    repo.write("job_manifest.json", json.dumps(FENCE))
    assert verdict(*hook(repo, "allowed/n.py")[:2]) == "allow"
    assert verdict(*hook(repo, "other/n.py")[:2]) == "unlisted-path"


def test_a_manifest_named_on_the_command_line_is_not_swapped_for_the_branch_job(tracked: GitRepo) -> None:
    jobs = tracked.root / ".score-diff" / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "a.json").write_text(json.dumps({**FENCE, "job_id": "a", "allowed_paths": ["allowed/**"]}))
    (jobs / "b.json").write_text(json.dumps({**FENCE, "job_id": "b", "allowed_paths": ["other/**"]}))
    tracked.commit("two jobs")
    tracked.git("checkout", "-q", "-b", "agent-b")
    named = ("--manifest", str(jobs / "a.json"))  # --manifest wins over the branch, as in scoring
    assert verdict(*hook(tracked, "allowed/n.py", "s1", *named)[:2]) == "allow"
    assert verdict(*hook(tracked, "other/n.py", "s1", *named)[:2]) == "unlisted-path"
