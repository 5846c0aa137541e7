"""The commit-msg stage's fast path: the pre-commit stage's verdict stands only for the very tree
git is about to commit, on the same HEAD, base, fence and options; every change between the two
stages (the index edited, another index, a moved HEAD or base, a secret in the message, a record
that is not ours) scores the whole change again."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.commands import stage_record
from scorer.testrun import session, verdict_record
from tests.testing.calc import counted_calls
from tests.testing.repo import PASSING_TEST, GitRepo, run_cli

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # split: this file must not hold one whole
HOOK = ["--branches", "agent-*", "--since", "main"]


def _staged(repo: GitRepo, allowed: list[str], change: str = "allowed/a.py") -> GitRepo:
    """main holds the fence (job_manifest.json) and allowed/a.py; on agent-x a change is staged."""
    repo.write("allowed/a.py", "one\n")
    repo.write("other/b.py", "alpha\n")
    fence = {"job_id": "stage", "allowed_paths": allowed, "required_test": PASSING_TEST}
    repo.write("job_manifest.json", json.dumps(fence))
    repo.commit("the fence")
    repo.git("checkout", "-q", "-b", "agent-x")
    repo.write(change, "one\ntwo\n")
    repo.git("add", "-A")
    (repo.scratch / "MSG").write_text("change a\n")
    return repo


@pytest.fixture
def staged(repo: GitRepo) -> GitRepo:
    return _staged(repo, ["allowed/**"])


def pre_commit(repo: GitRepo) -> str:
    code, text = run_cli(["--repo", str(repo.root), *HOOK, "--defer-justifications", "--gate", "hook"])
    assert code == 0, text
    return text


def commit_msg(repo: GitRepo, *extra: str, skip_test: bool = True) -> tuple[int, str]:
    argv = [
        "commit-msg",
        "--repo",
        str(repo.root),
        *HOOK,
        *(["--skip-test"] if skip_test else []),
        "--gate",
        "hook",
        *extra,
    ]
    return run_cli([*argv, str(repo.scratch / "MSG")])


def reused(text: str) -> bool:
    return stage_record.NOTE in text


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return counted_calls(monkeypatch, session, "run_required")


def test_the_commit_msg_stage_reuses_the_verdict_on_the_same_tree(staged: GitRepo, runs: list[int]) -> None:
    pre_commit(staged)
    code, text = commit_msg(staged)
    assert code == 0 and reused(text), text
    assert text.rstrip().splitlines()[-1] == "RESULT: PASS (with test skipped)"  # what the full scoring says
    assert "allowed/a.py" in text and len(runs) == 1
    assert stage_record.record_path(str(staged.root / ".git")).stat().st_mode & 0o777 == 0o600


def test_without_skip_test_the_pre_commit_stages_run_is_reported(staged: GitRepo, runs: list[int]) -> None:
    pre_commit(staged)
    code, text = commit_msg(staged, skip_test=False)
    assert code == 0 and reused(text) and verdict_record.REUSED_NOTE in text, text
    assert text.rstrip().splitlines()[-1] == "RESULT: PASS" and len(runs) == 1


def test_without_skip_test_another_environment_is_scored_again(
    staged: GitRepo, runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    pre_commit(staged)
    monkeypatch.setenv("LANG", "C.UTF-8" if os.environ.get("LANG") != "C.UTF-8" else "POSIX")
    code, text = commit_msg(staged, skip_test=False)
    assert code == 0 and not reused(text), text
    assert len(runs) == 2  # and the test ran again: its environment is another


def test_the_reused_verdict_is_logged(staged: GitRepo) -> None:
    pre_commit(staged)
    commit_msg(staged)
    code, text = run_cli(["log", "--repo", str(staged.root), "--format", "json"])
    rows = json.loads(text)
    assert code == 0 and [r["verdict"] for r in rows] == ["PASS", "PASS"], text


def _stage_a_forbidden_file(repo: GitRepo) -> None:
    repo.write("other/b.py", "alpha\nbeta\n")
    repo.git("add", "other/b.py")


def _stage_and_restore_the_worktree(repo: GitRepo) -> None:  # the index differs, the worktree does not
    repo.write("other/b.py", "alpha\nbeta\n")
    repo.git("add", "other/b.py")
    repo.write("other/b.py", "alpha\n")


def _move_head(repo: GitRepo) -> None:
    repo.git("commit", "-q", "--no-verify", "--no-gpg-sign", "--allow-empty", "-m", "elsewhere")


def _move_the_base(repo: GitRepo) -> None:  # main gains a commit: its tip, and so the fence's commit, differ
    moved = repo.git("commit-tree", "-p", "main", "-m", "more on main", "main^{tree}").stdout.strip()
    repo.git("update-ref", "refs/heads/main", moved)


def _forge_the_record(repo: GitRepo) -> None:
    path = stage_record.record_path(str(repo.root / ".git"))
    doc = json.loads(path.read_text())
    doc["value"]["detectors"] = [["everything"], []]
    path.write_text(json.dumps(doc))  # the digest no longer holds


def _foreign_record(repo: GitRepo) -> None:
    stage_record.record_path(str(repo.root / ".git")).chmod(0o666)


def _secret_in_the_message(repo: GitRepo) -> None:
    (repo.scratch / "MSG").write_text(f"change a\n\nRollback: revert with {TOKEN}\n")


def test_a_secret_in_the_message_fails(staged: GitRepo) -> None:
    pre_commit(staged)
    _secret_in_the_message(staged)
    code, text = commit_msg(staged)
    assert code == 1 and "secret" in text, text


@pytest.mark.parametrize(
    "between",
    [
        _stage_a_forbidden_file,
        _stage_and_restore_the_worktree,
        _move_head,
        _move_the_base,
        _forge_the_record,
        _foreign_record,
        _secret_in_the_message,
    ],
)
def test_any_change_between_the_stages_is_scored_again(staged: GitRepo, between: Callable[[GitRepo], None]) -> None:
    pre_commit(staged)
    between(staged)
    code, text = commit_msg(staged)
    assert not reused(text), text


@pytest.mark.parametrize("between", [_stage_a_forbidden_file, _stage_and_restore_the_worktree])
def test_a_forbidden_path_staged_between_the_stages_fails(staged: GitRepo, between: Callable[[GitRepo], None]) -> None:
    pre_commit(staged)
    between(staged)
    code, text = commit_msg(staged)
    assert code == 1 and "[unlisted-path] other/b.py" in text, text


def test_another_index_is_scored_again(staged: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """`git commit -a` or `git commit PATHS`: the hooks see the index git will commit in
    $GIT_INDEX_FILE, and a tree other than the one scored is judged whole."""
    pre_commit(staged)
    other = staged.scratch / "next-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(other)}
    staged.write("other/b.py", "alpha\nbeta\n")
    for args in (["read-tree", "HEAD"], ["add", "allowed/a.py", "other/b.py"]):
        subprocess.run(["git", *args], cwd=staged.root, env=env, check=True, capture_output=True)
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    code, text = commit_msg(staged)
    assert not reused(text) and code != 0, text


def test_other_options_are_scored_again(staged: GitRepo) -> None:
    pre_commit(staged)
    code, text = commit_msg(staged, "--job-branch", "job-*")
    assert not reused(text), text


def test_a_sensitive_path_leaves_the_trailers_to_the_full_scoring(repo: GitRepo) -> None:
    """The pre-commit stage defers a sensitive path's justification: only the full scoring reads it."""
    staged = _staged(repo, ["allowed/**", ".github/workflows/ci.yml"], change=".github/workflows/ci.yml")
    pre_commit(staged)
    code, text = commit_msg(staged)
    assert not reused(text) and code == 1 and "sensitive-path" in text, text


def test_no_record_without_a_passed_test(staged: GitRepo) -> None:
    code, text = run_cli(["--repo", str(staged.root), *HOOK, "--defer-justifications", "--skip-test"])
    assert code == 0, text
    assert not stage_record.record_path(str(staged.root / ".git")).exists()
    assert not reused(commit_msg(staged)[1])


def test_the_message_scan_is_the_checks(tmp_path: Path) -> None:
    """The fast path's secret scan of the message says yes exactly where check_message_secrets finds one."""
    from scorer.checks.job import Job
    from scorer.checks.names import check_message_secrets
    from scorer.inspection.git import cut_at_scissors
    from scorer.manifest.load import parse_manifest
    from scorer.model import CommitMessage

    job = Job(
        parse_manifest(json.dumps({"job_id": "j", "allowed_paths": ["a"], "required_test": ["true"]}).encode(), "m")
    )
    texts = [
        "plain message\n",
        "",
        f"subject\n\nbody line one\nno newline at the end {TOKEN}",
        f"token {TOKEN}\n",
        "AKIAIOSFODNN7EXAMPLE in a line\n",
        f"# a comment {TOKEN}\n",
        "rm -rf / is shell, not a secret\n",
        f"below\n# ------------------------ >8 ------------------------\n{TOKEN}\n",
    ]
    said = []
    for text in texts:
        path = tmp_path / "MSG"
        path.write_text(text)

        expected = bool(check_message_secrets([CommitMessage("message file MSG", text, cut_at_scissors(text))], job))
        assert stage_record._message_secrets(str(path), "MSG", frozenset(), frozenset()) is expected, text
        said.append(expected)
    assert True in said and False in said
