"""Errors a person can act on (issue 21, item 6): a mistake on the command line is a usage error
(exit 2, never internal-error) that says what to pass instead; a subcommand that scores nothing
never says "could not score"; and the smaller papercuts the first day met."""

from __future__ import annotations

import contextlib
import io
import json
import re

import pytest

from scorer import main as cli
from scorer.decision_log import read
from tests.testing.guard import MANIFEST, Guarded, _payload
from tests.testing.repo import GitRepo, run_cli


def last(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


def test_demo_keep_on_an_existing_directory(tmp_path) -> None:
    (tmp_path / "taken").mkdir()
    code, out = run_cli(["demo", "--keep", str(tmp_path / "taken")])
    assert (code, last(out)) == (2, "score-diff demo: failed (usage)"), out
    assert "already exists; name a new directory" in out


def test_export_out_naming_a_directory(committed: GitRepo) -> None:
    code, out = run_cli(["export", "--repo", str(committed.root), "--out", str(committed.scratch)])
    assert (code, last(out)) == (2, "score-diff export: failed (usage)"), out
    assert "is a directory; name the file to write" in out


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "cannot read"),
        (b"not json\n", "is not JSON"),
        (b'{"sarif": 1}', "is not a score-diff JSON report"),
        (b"[1, 2]", "is not a score-diff JSON report"),
    ],
    ids=["missing", "not-json", "foreign-object", "foreign-list"],
)
def test_verify_report_given_an_unreadable_or_foreign_file(committed: GitRepo, content, said) -> None:
    report = committed.scratch / "report.json"
    committed.scratch.mkdir(parents=True, exist_ok=True)
    if content is not None:
        report.write_bytes(content)
    code, out = run_cli(["verify-report", str(report), "--repo", str(committed.root), "--base", "HEAD"])
    assert (code, last(out)) == (2, "RESULT: FAIL (could not score: usage)"), out
    assert said in out and "--format json --output FILE" in out


@pytest.mark.parametrize("limit", ["-1", "0", "two"])
def test_log_limit_below_one(committed: GitRepo, limit: str) -> None:
    code, out = run_cli(["log", "--repo", str(committed.root), "--limit", limit])
    assert (code, last(out)) == (2, "score-diff log: failed (usage)"), out
    assert "--limit" in out


def test_log_limit_one_works(committed: GitRepo) -> None:
    assert run_cli(["log", "--repo", str(committed.root), "--limit", "1"])[0] == 0


def test_pin_and_log_failures_do_not_say_could_not_score(committed: GitRepo, tmp_path) -> None:
    code, out = run_cli(["pin", "--repo", str(committed.root)])
    assert (code, last(out)) == (2, "score-diff pin: failed (manifest-invalid)"), out
    code, out = run_cli(["log", "--repo", str(tmp_path)])  # not a repository
    assert (code, last(out)) == (2, "score-diff log: failed (git-error)"), out
    assert "could not score" not in out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_guard_from_a_terminal_prints_usage_not_deny_json(committed: GitRepo) -> None:
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["guard", "--agent", "claude"], stdout=out, stdin=_Terminal(""), cwd=str(committed.root))
    assert code == 2
    assert out.getvalue().startswith("score-diff guard: no payload on stdin\nusage: score-diff guard")
    assert "hookSpecificOutput" not in out.getvalue() and "permissionDecision" not in out.getvalue()
    assert last(out.getvalue()) == "score-diff guard: failed (usage)"


def test_guard_help_from_a_terminal_is_still_help() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["guard", "--help"], stdout=out, stdin=_Terminal("")) == 0
    assert "usage: score-diff guard" in out.getvalue()


@pytest.mark.parametrize("word", ["instal", "foo"])
def test_a_mistyped_guard_subcommand_prints_usage(word: str) -> None:
    out = io.StringIO()
    code = cli.main(["guard", word, "--agent", "claude"], stdout=out, stdin=io.StringIO("{}"))
    assert code == 2
    assert f"unknown guard subcommand {word!r} (did you mean 'install'?)" in out.getvalue()
    assert "permissionDecision" not in out.getvalue()


def test_a_payload_on_a_pipe_is_still_answered_as_a_hook(committed: GitRepo) -> None:
    """The neighbour: the agent's hook (stdin a pipe) gets its own format, even for bad JSON."""
    out = io.StringIO()
    with contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["guard", "--agent", "claude"], stdout=out, stdin=io.StringIO("not json"))
    assert code == 2 and "permissionDecision" in out.getvalue()


def test_empty_diff_on_the_base_branch_says_so(committed: GitRepo) -> None:
    committed.manifest()
    out = committed.score("--base", "main")
    [v] = out.report["violations"]
    assert v["code"] == "empty-diff" and "you are on the base branch (main)" in v["message"], out.text
    assert v["hint"].startswith("score the agent's branch, not the base")


def test_empty_diff_on_an_agent_branch_with_nothing_committed_is_the_usual_hint(committed: GitRepo) -> None:
    committed.manifest()
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "work, not committed\n")
    [v] = committed.score("--base", "main").report["violations"]
    assert "base branch" not in v["message"] and v["hint"].startswith("commit the change the job asks for")


def test_the_root_only_warning_is_one_line_and_silenced_by_naming_the_root_file(committed: GitRepo) -> None:
    committed.write("allowed/a.py", "changed\n")
    committed.manifest(forbidden_globs=["setup.py", "pyproject.toml", "**/.env"])
    out = committed.score()
    shown = [line for line in out.text.splitlines() if "only at the repository root" in line]
    assert len(shown) == 1 and "'setup.py', 'pyproject.toml'" in shown[0] and "'./setup.py'" in shown[0]
    committed.manifest(forbidden_globs=["./setup.py", "./pyproject.toml", "**/.env"])
    quiet = committed.score()
    assert quiet.exit_code == 0 and "only at the repository root" not in quiet.text
    committed.write("setup.py", "x\n")  # ./setup.py still forbids the root file
    assert "forbidden-path" in committed.score().codes


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def test_scoring_and_guard_rows_share_one_timestamp_format(committed: GitRepo) -> None:
    committed.manifest(**MANIFEST)
    guarded = Guarded(committed)
    guarded.send(_payload(guarded, "Read", file_path="/x"))
    committed.write("allowed/a.py", "changed\n")
    scored = committed.score("--log-db", str(guarded.db))
    rows = read(guarded.db)
    assert {r["mode"] for r in rows} == {"guard", "worktree"}
    assert all(_STAMP.fullmatch(r["time"]) for r in rows), [r["time"] for r in rows]
    assert _STAMP.fullmatch(scored.report["started_at"])
    assert json.dumps(rows)  # the rows are plain data
