"""One test run per commit: the commit-msg stage reuses the pre-commit stage's run of the same
change, and every fault of the record (missing, corrupt, foreign, another change) runs the test."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer import jail
from scorer.testrun import envelope, session, verdict_record
from tests.testing.calc import counted_calls
from tests.testing.repo import GitRepo, run_cli


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the required test's runs (the pipeline imports run_required when it runs one)."""
    return counted_calls(monkeypatch, session, "run_required")


@pytest.fixture
def change(committed: GitRepo) -> GitRepo:
    committed.manifest(allowed_paths=["allowed/**"])
    committed.write("allowed/a.py", "one\ntwo\nthree\nfour\n")
    committed.git("add", "-A")
    (committed.scratch / "MSG").write_text("change a\n")
    return committed


def pre_commit(repo: GitRepo) -> dict[str, Any]:
    outcome = repo.score("--defer-justifications", skip_test=False)
    assert outcome.exit_code == 0, outcome.text
    return outcome.report


def commit_msg(repo: GitRepo, *extra: str) -> dict[str, Any]:
    report = repo.scratch / "commit-msg.json"
    argv = ["commit-msg", "--repo", str(repo.root), "--manifest", str(repo.manifest_path)]
    code, text = run_cli([*argv, "--format", "json", "--output", str(report), *extra, str(repo.scratch / "MSG")])
    assert code == 0, text
    return json.loads(report.read_text())


def test_the_commit_msg_stage_reuses_the_pre_commit_stages_run(change: GitRepo, runs: list[int]) -> None:
    first = pre_commit(change)
    second = commit_msg(change)  # without --skip-test: still no second run
    assert len(runs) == 1
    assert second["test"]["status"] == first["test"]["status"] == "passed"
    assert verdict_record.REUSED_NOTE in second["warnings"]
    assert verdict_record.REUSED_NOTE not in first["warnings"]
    record = verdict_record.record_path(str(change.root / ".git"))
    assert record.stat().st_mode & 0o777 == 0o600


def test_skip_test_still_skips(change: GitRepo, runs: list[int]) -> None:
    pre_commit(change)
    assert commit_msg(change, "--skip-test")["test"]["status"] == "skipped"
    assert len(runs) == 1


def test_only_the_commit_msg_stage_reuses(change: GitRepo, runs: list[int]) -> None:
    pre_commit(change)
    pre_commit(change)  # a second scoring asked for by hand runs the test again
    assert len(runs) == 2


def _edit_change(repo: GitRepo) -> None:
    repo.write("allowed/a.py", "one\ntwo\nthree\nfour\nfive\n")
    repo.git("add", "-A")


def _edit_manifest(repo: GitRepo) -> None:
    repo.manifest(allowed_paths=["allowed/**"], description="another fence")


def _commit_head(repo: GitRepo) -> None:  # the same change, on another HEAD
    repo.write("README.txt", "another head\n")
    repo.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "elsewhere", "--", "README.txt")


@pytest.mark.parametrize(
    "between",
    [
        pytest.param(_edit_change, id="change-digest"),
        pytest.param(_edit_manifest, id="manifest-digest"),
        pytest.param(_commit_head, id="head"),
    ],
)
def test_a_different_change_or_manifest_runs_the_test_again(
    change: GitRepo, runs: list[int], between: Callable[[GitRepo], None]
) -> None:
    pre_commit(change)
    between(change)
    assert verdict_record.REUSED_NOTE not in commit_msg(change)["warnings"]
    assert len(runs) == 2


def test_a_different_environment_runs_the_test_again(
    change: GitRepo, runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    pre_commit(change)
    monkeypatch.setenv("LANG", "C.UTF-8" if os.environ.get("LANG") != "C.UTF-8" else "POSIX")
    assert verdict_record.REUSED_NOTE not in commit_msg(change)["warnings"]
    assert len(runs) == 2


def _another_backend(monkeypatch: pytest.MonkeyPatch, setting: Path) -> None:
    monkeypatch.setattr(envelope, "UNAVAILABLE", ("jail",))  # the launcher alone, as with no namespaces


def _another_kernel_setting(monkeypatch: pytest.MonkeyPatch, setting: Path) -> None:
    setting.write_text("0\n")  # as `sysctl kernel.apparmor_restrict_unprivileged_userns=0` would


@pytest.mark.parametrize("between", [_another_backend, _another_kernel_setting])
def test_another_jail_runs_the_test_again(
    change: GitRepo,
    runs: list[int],
    monkeypatch: pytest.MonkeyPatch,
    between: Callable[[pytest.MonkeyPatch, Path], None],
) -> None:
    """A run recorded under one jail is not reused under another: the backend that will run and the
    kernel settings that decide what it holds are part of the environment digest."""
    setting = change.scratch / "apparmor_restrict_unprivileged_userns"
    setting.write_text("1\n")
    monkeypatch.setattr(jail, "USERNS_SETTINGS", (*jail.USERNS_SETTINGS, str(setting)))
    pre_commit(change)
    between(monkeypatch, setting)
    assert verdict_record.REUSED_NOTE not in commit_msg(change)["warnings"]
    assert len(runs) == 2


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-20])


def _forged(path: Path) -> None:  # valid JSON, the outcome edited: the content digest no longer holds
    doc = json.loads(path.read_text())
    doc["value"]["duration_s"] = 0.001
    path.write_text(json.dumps(doc))


def _reforged(path: Path) -> None:  # a record whose digest holds, with an outcome _plain never writes
    doc = json.loads(path.read_text())
    doc["value"]["unknown_field"] = 1
    body = {k: doc[k] for k in ("format", "key", "value")}
    doc["sha256"] = verdict_record.cache_store.digest(body)
    path.write_text(json.dumps(doc))


def _group_writable(path: Path) -> None:
    path.chmod(0o664)


def _directory_group_writable(path: Path) -> None:
    path.parent.chmod(0o777)


def _foreign_owner(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.chown(path, 4242, 4242)


def _symlink(path: Path) -> None:
    elsewhere = path.with_name("elsewhere.json")
    path.rename(elsewhere)
    path.symlink_to(elsewhere)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)  # reading it must not hang


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _missing(path: Path) -> None:
    path.unlink()


@pytest.mark.parametrize(
    "fault",
    [
        *(_truncated, _forged, _reforged, _group_writable, _directory_group_writable, _foreign_owner),
        *(_symlink, _fifo, _directory, _missing),
    ],
)
def test_a_record_that_is_not_whole_and_ours_is_ignored(
    change: GitRepo, runs: list[int], fault: Callable[[Path], None]
) -> None:
    pre_commit(change)
    fault(verdict_record.record_path(str(change.root / ".git")))
    report = commit_msg(change)
    assert verdict_record.REUSED_NOTE not in report["warnings"]
    assert report["test"]["status"] == "passed"
    assert len(runs) == 2


def test_the_record_lives_in_the_git_dir_git_names(committed: GitRepo, runs: list[int]) -> None:
    linked = committed.scratch / "linked"
    committed.git("worktree", "add", "-q", "-b", "agent-w", str(linked))
    committed.manifest(allowed_paths=["allowed/**"])
    (linked / "allowed" / "a.py").write_text("changed in the linked worktree\n")
    subprocess.run(["git", "add", "-A"], cwd=linked, check=True)
    (committed.scratch / "MSG").write_text("change a\n")
    out = committed.score("--defer-justifications", skip_test=False, repo_arg=str(linked))
    assert out.exit_code == 0, out.text
    git_dir = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir"], cwd=linked, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert verdict_record.record_path(git_dir).is_file()
    assert not verdict_record.record_path(str(committed.root / ".git")).exists()


def test_an_unwritable_record_only_costs_the_reuse(change: GitRepo, runs: list[int]) -> None:
    (change.root / ".git" / "score-diff").write_text("a file where the directory goes")
    pre_commit(change)
    assert verdict_record.REUSED_NOTE not in commit_msg(change)["warnings"]
    assert len(runs) == 2
