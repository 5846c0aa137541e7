"""The command line, in-process through scorer.main.main: exit codes, JSON shape, --branches, modes,
and that no error path ends in PASS or in a bare traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer import main as cli
from tests.testing.repo import GitRepo, run_cli


def score_json(repo: GitRepo, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = cli.main(
        ["--repo", str(repo.root), "--manifest", str(repo.manifest_path), "--skip-test", "--format", "json", *args]
    )
    out = capsys.readouterr().out
    return code, json.loads(out)


def scoring(repo: GitRepo, *extra: str) -> list[str]:
    """argv that scores `repo` against its manifest without running the test."""
    return ["--repo", str(repo.root), "--manifest", str(repo.manifest_path), "--skip-test", *extra]


def last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def test_json_report_shape(committed: GitRepo, capsys) -> None:
    committed.write("allowed/a.py", "changed\n")
    committed.write("other/b.py", "changed\n")
    code, report = score_json(committed, capsys)
    assert code == 1
    assert {"result", "exit_code", "job_id", "mode", "changed", "violations", "test"} <= set(report)
    assert (report["result"], report["exit_code"], report["job_id"]) == ("FAIL", 1, "test-job")
    assert report["mode"] == "worktree"
    change = {c["path"]: c for c in report["changed"]}["allowed/a.py"]
    assert {"path", "old_path", "status", "added", "removed", "largest_hunk", "binary", "symlink", "submodule"} <= set(
        change
    )
    assert (change["status"], change["added"], change["removed"]) == ("modified", 1, 3)
    assert change["largest_hunk"] == 4
    assert report["violations"] == [
        {**report["violations"][0], "code": "unlisted-path", "path": "other/b.py", "line": None}
    ]
    assert {"code", "path", "line", "message"} <= set(report["violations"][0])
    assert report["test"]["status"] == "not-run"
    assert "duration_s" in report["test"]


def test_json_report_for_a_pass(committed: GitRepo, capsys) -> None:
    committed.write("allowed/a.py", "changed\n")
    code, report = score_json(committed, capsys)
    assert (code, report["result"], report["exit_code"], report["violations"]) == (0, "PASS", 0, [])
    assert report["test"]["status"] == "skipped"


def test_json_report_when_scoring_is_impossible(committed: GitRepo, capsys) -> None:
    code, report = score_json(committed, capsys, "--base", "no-such-ref")
    assert (code, report["result"], report["exit_code"]) == (2, "FAIL", 2)
    assert [v["code"] for v in report["violations"]] == ["git-error"]


def test_text_report_lists_changes_and_violations(committed: GitRepo, capsys) -> None:
    committed.write("other/b.py", "x = 1\n")
    code = cli.main(scoring(committed))
    text = capsys.readouterr().out
    assert code == 1
    assert "other/b.py" in text and "[unlisted-path]" in text
    assert last_line(text) == "RESULT: FAIL"


# --- --branches ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("branch", "globs", "scored"),
    [
        ("main", ["agent-*"], False),
        ("agent-x", ["agent-*"], True),
        ("agent-", ["agent-*"], True),
        ("feature/agent-x", ["agent-*"], False),
        ("bot-7", ["agent-*", "bot-*"], True),
        ("Agent-x", ["agent-*"], False),  # case-sensitive, like git's own refs
        (None, ["agent-*"], True),  # detached HEAD is always scored
    ],
)
def test_branches(committed: GitRepo, capsys, branch: str | None, globs: list[str], scored: bool) -> None:
    if branch is None:
        committed.git("checkout", "-q", "--detach")
    elif branch != "main":
        committed.git("checkout", "-q", "-b", branch)
    committed.write("other/b.py", "unlisted change\n")
    code = cli.main(scoring(committed, *[arg for glob in globs for arg in ("--branches", glob)]))
    text = capsys.readouterr().out
    if scored:
        assert code == 1 and last_line(text) == "RESULT: FAIL"
    else:
        assert code == 0
        assert f"branch {branch!r} does not match --branches; not scored" in text


def test_branches_skip_happens_before_the_manifest_is_read(committed: GitRepo, capsys) -> None:
    code = cli.main(
        ["--repo", str(committed.root), "--manifest", str(committed.scratch / "missing.json"), "--branches", "agent-*"]
    )
    assert code == 0
    assert "not scored" in capsys.readouterr().out


def test_branches_outside_a_repository_cannot_score(tmp_path: Path, capsys) -> None:
    code = cli.main(["--repo", str(tmp_path), "--branches", "agent-*"])
    assert code == 2
    assert last_line(capsys.readouterr().out) == "RESULT: FAIL (could not score: git-error)"


# --- modes -----------------------------------------------------------------------------------------


def test_base_mode_scores_the_branch_from_the_merge_base(committed: GitRepo, capsys) -> None:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "agent work\n")
    committed.commit("agent 1")
    committed.write("allowed/new.py", "more\n")
    committed.commit("agent 2")
    committed.git("checkout", "-q", "main")
    committed.write("other/b.py", "main moved on after the branch point\n")
    committed.commit("main 2")
    committed.git("checkout", "-q", "agent-x")
    committed.write("other/uncommitted.py", "not part of the range\n")
    code, report = score_json(committed, capsys, "--base", "main")
    assert code == 0, report["violations"]
    assert report["mode"] == "range"
    assert sorted(c["path"] for c in report["changed"]) == ["allowed/a.py", "allowed/new.py"]
    merge_base = committed.git("merge-base", "main", "agent-x").stdout.strip()
    assert report["binding"]["base"] == merge_base
    assert report["binding"]["head"] == committed.git("rev-parse", "HEAD").stdout.strip()


def test_base_mode_with_an_explicit_head(committed: GitRepo, capsys) -> None:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("other/b.py", "bad\n")
    bad = committed.commit("bad")
    committed.git("checkout", "-q", "main")
    code, report = score_json(committed, capsys, "--base", "main", "--head", "agent-x")
    assert code == 1
    assert report["binding"]["head"] == bad
    assert [(v["code"], v["path"]) for v in report["violations"]] == [("unlisted-path", "other/b.py")]


def test_head_without_base_cannot_score(committed: GitRepo, capsys) -> None:
    committed.write("allowed/a.py", "changed\n")
    code = cli.main(scoring(committed, "--head", "HEAD"))
    assert code == 2
    assert last_line(capsys.readouterr().out) == "RESULT: FAIL (could not score: git-error)"


def test_relative_repo_and_manifest_resolve_against_the_working_directory(committed: GitRepo, monkeypatch) -> None:
    committed.write("allowed/a.py", "changed\n")
    monkeypatch.chdir(committed.root.parent)
    manifest = Path(committed.manifest_path).relative_to(committed.root.parent)
    code, text = run_cli(["--repo", committed.root.name, "--manifest", str(manifest), "--skip-test"])
    assert (code, last_line(text)) == (0, "RESULT: PASS (with test skipped)")


def test_repo_from_a_subdirectory(committed: GitRepo, monkeypatch) -> None:
    committed.write("other/b.py", "changed\n")
    monkeypatch.chdir(committed.root / "allowed")
    code, text = run_cli(["--manifest", str(committed.manifest_path), "--skip-test"])
    assert code == 1 and "other/b.py" in text  # the whole repository, not just the subdirectory


# --- nothing ends in PASS or a traceback ------------------------------------------------------------


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyError("k"), RecursionError(), KeyboardInterrupt()])
def test_unexpected_exception_is_exit_2_not_a_traceback(
    committed: GitRepo, capsys, monkeypatch, exc: BaseException
) -> None:
    import scorer.pipeline

    def explode(*args, **kwargs):
        raise exc

    monkeypatch.setattr(scorer.pipeline, "score", explode)
    committed.write("allowed/a.py", "changed\n")
    code = cli.main(["--repo", str(committed.root), "--manifest", str(committed.manifest_path)])
    captured = capsys.readouterr()
    assert code == 2
    reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else "internal-error"
    assert last_line(captured.out) == f"RESULT: FAIL (could not score: {reason})"
    assert "Traceback" not in captured.out + captured.err


def test_unexpected_exception_in_json_mode(committed: GitRepo, capsys, monkeypatch) -> None:
    import scorer.pipeline

    monkeypatch.setattr(scorer.pipeline, "score", lambda *a, **k: 1 / 0)
    code = cli.main(["--repo", str(committed.root), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 2
    assert (report["result"], report["exit_code"]) == ("FAIL", 2)
    assert [v["code"] for v in report["violations"]] == ["internal-error"]


def test_exception_while_rendering_is_not_a_traceback(committed: GitRepo, capsys, monkeypatch) -> None:
    def broken(result):
        raise ValueError("renderer bug")

    import scorer.report.text

    monkeypatch.setattr(scorer.report.text, "render", broken)
    committed.write("allowed/a.py", "changed\n")
    code = cli.main(scoring(committed))
    assert code == 2
    assert capsys.readouterr().out.rstrip().endswith("RESULT: FAIL (could not score: internal-error)")


@pytest.mark.parametrize(
    "argv",
    [
        ["--output", "x.json"],  # --output must follow a --format
        ["--format", "yaml"],
        ["--no-such-option"],
        ["--base"],
    ],
)
def test_usage_errors_are_exit_2(committed: GitRepo, capsys, monkeypatch, argv: list[str]) -> None:
    monkeypatch.chdir(committed.root)
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert code == 2
    assert last_line(captured.out) == "RESULT: FAIL (could not score: usage)"
    assert "Traceback" not in captured.out + captured.err


def test_unwritable_output_is_exit_2(committed: GitRepo, capsys) -> None:
    committed.write("allowed/a.py", "changed\n")
    unwritable = committed.scratch / "no-such-dir" / "r.json"
    code = cli.main(scoring(committed, "--format", "json", "--output", str(unwritable)))
    captured = capsys.readouterr()
    assert code == 2
    assert last_line(captured.out) == "RESULT: FAIL (could not score: internal-error)"


# --- output routing ---------------------------------------------------------------------------------


def test_text_to_stdout_and_json_to_a_file(committed: GitRepo, capsys) -> None:
    committed.write("allowed/a.py", "changed\n")
    report = committed.scratch / "report.json"
    code = cli.main(scoring(committed, "--format", "text", "--format", "json", "--output", str(report)))
    out = capsys.readouterr().out
    assert code == 0
    assert last_line(out) == "RESULT: PASS (with test skipped)"
    assert not out.lstrip().startswith("{")
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["result"], data["exit_code"]) == ("PASS", 0)


def test_json_to_a_file_still_prints_the_text_verdict(committed: GitRepo, capsys) -> None:
    committed.write("other/b.py", "changed\n")
    report = committed.scratch / "report.json"
    code = cli.main(scoring(committed, "--format", "json", "--output", str(report)))
    assert code == 1
    assert last_line(capsys.readouterr().out) == "RESULT: FAIL"
    assert json.loads(report.read_text(encoding="utf-8"))["result"] == "FAIL"


def test_python_dash_m_scorer_help() -> None:
    proc = subprocess.run([sys.executable, "-m", "scorer", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert "usage: score-diff" in proc.stdout
    for option in ("--manifest", "--repo", "--base", "--head", "--format", "--skip-test", "--branches"):
        assert option in proc.stdout


def test_python_dash_m_scorer_scores(committed: GitRepo) -> None:
    committed.write("other/b.py", "changed\n")
    argv = [sys.executable, "-m", "scorer", *scoring(committed)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert last_line(proc.stdout) == "RESULT: FAIL"


def test_version(capsys) -> None:
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("score-diff ")


def test_branches_takes_one_glob_so_the_hooks_message_file_is_never_a_glob(
    committed: GitRepo, capsys, tmp_path
) -> None:
    """pre-commit appends the commit message file after the hook's args, e.g. `--branches agent-* MSGFILE`."""
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "changed\n")
    message = tmp_path / "COMMIT_EDITMSG"
    message.write_text("fix\n")
    code = cli.main(["commit-msg", *scoring(committed, "--branches", "agent-*", str(message))])
    assert code == 0
    assert last_line(capsys.readouterr().out) == "RESULT: PASS (with test skipped)"


@pytest.mark.parametrize(
    "argv",
    [
        ["reveiw", "--base", "main"],
        ["--skip-test", "COMMIT_EDITMSG"],
        ["--manifest", "m.json", "log"],
        ["nosuchcommand"],
    ],
)
def test_a_stray_word_is_a_usage_error_never_a_file(argv, capsys) -> None:
    code = cli.main(argv)
    out = capsys.readouterr().out
    assert code == 2
    assert last_line(out) == "RESULT: FAIL (could not score: usage)"
    if argv[0] == "reveiw":
        assert "did you mean 'score-diff review'" in out
    if argv[-1] == "log":
        assert "'log' is a subcommand: put it first" in out


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_every_subcommand_has_help_exiting_0(name, capsys) -> None:
    assert cli.main([name, "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: score-diff")


def test_demo_keep_refuses_an_existing_directory(tmp_path, capsys) -> None:
    assert cli.main(["demo", "--keep", str(tmp_path)]) == 2
    assert "name a new directory" in capsys.readouterr().out
