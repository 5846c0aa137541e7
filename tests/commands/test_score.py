"""`score-diff score` as the hooks run it: one discovery of the repository for the command's own
questions (the branch --branches checks, the decision log's place) and the pipeline's."""

from __future__ import annotations

import pytest

from scorer.inspection import gitprocess
from tests.testing.calc import counted_calls
from tests.testing.repo import GitRepo, run_cli


def test_the_branch_check_and_the_log_share_one_discovery(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    base.git("checkout", "-q", "-b", "agent-1")
    base.write("allowed/t.py", "one\ntwo\n")
    discovered = counted_calls(monkeypatch, gitprocess, "_discover")
    out = base.score("--branches", "agent-*", "--gate", "hook")
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (with test skipped)", out.text
    assert len(discovered) == 1  # the command's (branch, log) and the pipeline's: one repository opened
    assert (base.root / ".git" / "score-diff").is_dir()  # the log went where it always did


def test_a_branch_not_scored_discovers_once(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    base.git("checkout", "-q", "-b", "feature")
    discovered = counted_calls(monkeypatch, gitprocess, "_discover")
    code, text = run_cli(["--repo", str(base.root), "--manifest", str(base.manifest_path), "--branches", "agent-*"])
    assert code == 0 and "does not match --branches; not scored" in text
    assert len(discovered) == 1
