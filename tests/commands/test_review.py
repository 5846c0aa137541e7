"""`score-diff review`, `verify-report` through the CLI, and the terminal niceties of the text report."""

from __future__ import annotations

import io
import json

import pytest

from scorer.inspection import gitparse
from scorer.terminal import Progress, colourise, use_colour
from tests.testing.repo import GitRepo, run_cli


@pytest.fixture
def branch(committed: GitRepo) -> GitRepo:
    committed.write_manifest(committed.root / "job_manifest.json", allowed_paths=["allowed/**"])
    committed.commit("manifest on main")
    committed.git("checkout", "-q", "-b", "agent-x")
    return committed


def _review(repo: GitRepo) -> tuple[int, str]:
    return run_cli(
        [
            "review",
            "--repo",
            str(repo.root),
            "--base",
            "main",
            "--skip-test",
            "--manifest",
            str(repo.root / "job_manifest.json"),
        ]
    )


def test_review_shows_the_diff_only_after_a_pass(branch: GitRepo):
    branch.write("allowed/a.py", "one\ntwo\nTHREE\n")
    branch.commit("fix")
    code, text = _review(branch)
    assert code == 0
    assert "RESULT: PASS (with test skipped)" in text
    assert "allowed/a.py | 2 +-" in text  # git diff --stat
    assert "+THREE" in text  # the patch itself


def test_review_refuses_to_show_a_failing_diff(branch: GitRepo):
    branch.write("other/b.py", "alpha\nSECRET PLAN\n")
    branch.commit("decoy")
    code, text = _review(branch)
    assert code == 1
    assert "[unlisted-path] other/b.py" in text
    assert text.rstrip().endswith("restore the tree; do not read the patch.")
    assert "SECRET PLAN" not in text and "diff --git" not in text


def test_verify_report_binds_a_pass_to_its_commits(branch: GitRepo, tmp_path):
    branch.write("allowed/a.py", "changed\n")
    branch.commit("fix")
    report = tmp_path / "report.json"
    manifest = branch.root / "job_manifest.json"
    run_cli(
        [
            "--repo",
            str(branch.root),
            "--base",
            "main",
            "--manifest",
            str(manifest),
            "--format",
            "json",
            "--output",
            str(report),
        ]
    )
    assert json.loads(report.read_text())["result"] == "PASS"
    verify = ["verify-report", str(report), "--repo", str(branch.root), "--base", "main", "--manifest", str(manifest)]
    code, text = run_cli(verify)
    assert code == 0
    assert text.endswith(
        "checked test: passed\nchecked test envelope: observer log digest\nRESULT: PASS (report binds to this merge)\n"
    )
    branch.write("allowed/a.py", "changed again after the report\n")
    branch.commit("later")
    code, text = run_cli(verify)
    assert code == 1
    assert "binding.head" in text
    assert text.rstrip().endswith("RESULT: FAIL (report does not bind to this merge)")


def test_scoring_in_small_batches_finds_exactly_what_one_batch_finds(committed: GitRepo, monkeypatch):
    """The content checks run per streamed batch; cutting batches must not change a verdict."""
    committed.manifest(forbidden_substrings=["eval("], max_hunk_lines=3)
    for i in range(6):
        committed.write(f"allowed/m{i}.py", f"x = {i}\nvalue = eval(data_{i})\n")
    committed.write("allowed/a.py", "one\neval(two)\nthree\nfour\nfive\n")
    whole = committed.score().report["violations"]
    monkeypatch.setattr(gitparse, "_BATCH", 1)
    assert committed.score().report["violations"] == whole
    assert sum(v["code"] == "forbidden-token" for v in whole) == 7


@pytest.mark.parametrize(
    ("choice", "tty", "no_color", "expected"),
    [
        ("auto", True, "", True),
        ("auto", False, "", False),  # piped: plain
        ("auto", True, "1", False),  # NO_COLOR wins on a terminal
        ("always", False, "1", True),
        ("never", True, "", False),
    ],
)
def test_colour_only_where_asked_for(choice, tty, no_color, expected):
    stream = io.StringIO()
    stream.isatty = lambda: tty
    assert use_colour(choice, stream, {"NO_COLOR": no_color} if no_color else {}) is expected


def test_colour_changes_no_words():
    report = "FAIL [secret] a.py:1: x\ntest: skipped\nRESULT: FAIL\n"
    coloured = colourise(report)
    assert coloured != report
    assert "\033[31mRESULT: FAIL\033[0m" in coloured
    for code in ("\033[31m", "\033[32m", "\033[33m", "\033[0m"):
        coloured = coloured.replace(code, "")
    assert coloured == report


def test_progress_ticks_and_clears_its_line():
    stream = io.StringIO()
    progress = Progress(stream)
    progress.done()
    assert stream.getvalue() == ""  # a fast test leaves no trace
    progress(3.2)
    progress.done()
    assert "running the required test (run 1) ... 3s" in stream.getvalue()
    assert stream.getvalue().endswith("\r")


def test_added_lines_the_content_checks_never_saw_fail_closed(committed: GitRepo, monkeypatch):
    """If a batch of added lines ever escaped the streamed checks, the scorer must not PASS."""
    from scorer.model import AddedText

    committed.write("allowed/a.py", "eval(x)\n")
    monkeypatch.setattr(gitparse.Pieces, "take_new", lambda self: AddedText())
    out = committed.score()
    assert (out.exit_code, out.codes) == (2, {"internal-error"})
    assert out.last_line == "RESULT: FAIL (could not score: internal-error)"


def test_an_unreadable_untracked_file_is_not_treated_as_empty(committed: GitRepo, monkeypatch):
    """Whatever cannot be read cannot be established: it fails rather than counting as empty."""
    import os

    committed.write("allowed/new.py", "eval(x)\n")
    real_open = os.open

    def refusing_open(path, flags, *args, **kwargs):  # opened by name beside a descriptor of its directory
        if os.fspath(path).endswith("new.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)  # as chmod 000 does for anyone but root
    committed.manifest(forbidden_substrings=["eval("])
    out = committed.score()
    assert out.exit_code == 1
    assert out.paths("hidden-change") == {"allowed/new.py"}
    assert "cannot read this untracked file" in out.text
