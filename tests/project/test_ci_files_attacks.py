"""Issue 9 section 7: the shipped CI files and the report verifier, tried as an attacker would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.testing.ci import _run_score_step, checkout
from tests.testing.repo import GitRepo, run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def branch(committed: GitRepo) -> GitRepo:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "changed\n")
    committed.commit("fix")
    return committed


def _report(repo: GitRepo, tmp_path: Path, *extra: str) -> Path:
    report = tmp_path / "report.json"
    run_cli(
        [
            "--repo",
            str(repo.root),
            "--base",
            "main",
            "--manifest",
            str(repo.manifest_path),
            "--format",
            "json",
            "--output",
            str(report),
            *extra,
        ]
    )
    return report


def _verify(repo: GitRepo, report: Path, *facts: str) -> tuple[int, str]:
    return run_cli(["verify-report", str(report), "--repo", str(repo.root), *facts])


def test_a_report_whose_test_was_skipped_does_not_verify(branch, tmp_path):
    report = _report(branch, tmp_path, "--skip-test")
    assert json.loads(report.read_text())["result"] == "PASS"
    code, text = _verify(branch, report, "--base", "main", "--manifest", str(branch.manifest_path))
    assert code == 1, text
    assert "FAIL the required test was skipped (--skip-test)" in text
    assert text.splitlines()[-1] == "RESULT: FAIL (report does not bind to this merge)"


def test_a_skipped_test_verifies_when_the_caller_says_so(branch, tmp_path):
    report = _report(branch, tmp_path, "--skip-test")
    code, text = _verify(branch, report, "--base", "main", "--allow-skipped-test")
    assert code == 0, text
    assert "checked test: passed or skipped (--allow-skipped-test)" in text
    assert text.splitlines()[-1] == "RESULT: PASS (report binds to this merge)"


def test_a_report_whose_test_ran_and_passed_verifies_and_says_what_was_checked(branch, tmp_path):
    report = _report(branch, tmp_path)
    head = branch.git("rev-parse", "HEAD").stdout.strip()
    code, text = _verify(branch, report, "--base", "main", "--manifest", str(branch.manifest_path))
    assert code == 0, text
    lines = text.splitlines()
    assert lines[0].startswith("checked manifest sha256 ") and lines[0].endswith(f"(--manifest {branch.manifest_path})")
    assert lines[1].startswith("checked base ") and "merge-base of --base main" in lines[1]
    assert lines[2] == f"checked head {head} (--head HEAD)"
    assert lines[3] == "checked test: passed"
    assert lines[-1] == "RESULT: PASS (report binds to this merge)"


def test_with_no_fact_to_check_a_forged_report_is_a_usage_error(branch, tmp_path):
    forged = {
        "result": "PASS",
        "exit_code": 0,
        "shadow": False,
        "violations": [],
        "mode": "range",
        "test": {"status": "passed"},
        "binding": {"manifest_sha256": "0" * 64, "base": "0" * 40, "head": "0" * 40},
    }
    report = tmp_path / "forged.json"
    report.write_text(json.dumps(forged), encoding="utf-8")
    code, text = _verify(branch, report)
    assert code == 2, text
    assert "nothing to check the report against" in text
    assert text.splitlines()[-1] == "RESULT: FAIL (could not score: usage)"


def test_with_only_a_manifest_the_unchecked_head_is_named(branch, tmp_path):
    report = _report(branch, tmp_path)
    code, text = _verify(branch, report, "--manifest", str(branch.manifest_path))
    assert code == 0, text
    assert "not checked: base" in text and "not checked: head" in text


# --- the action scores the pull request's head commit by id, and only when it is checked out ---


def _action_steps() -> list[dict]:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]


def test_the_action_defaults_to_the_pull_requests_head_commit():
    inputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert inputs["head"]["default"] == "${{ github.event.pull_request.head.sha }}"


def test_the_action_refuses_a_checkout_that_is_not_the_head(tmp_path):
    """Code run before the gate (a build backend in requirements.txt) checks out the benign parent."""
    repo = GitRepo(tmp_path, tmp_path / ".scratch")
    head = repo.commit("the pull request's head")
    repo.commit("something else now checked out")
    rc, argv, outputs = _run_score_step(tmp_path, head=head)
    assert (rc, argv, outputs) == (2, [], "exit-code=2\n")


@pytest.mark.parametrize("head", ["", "HEAD", "agent-x", "refs/heads/agent-x", "abc123"])
def test_the_action_refuses_a_head_that_is_not_a_full_commit_id(tmp_path, head):
    checkout(tmp_path)
    rc, argv, outputs = _run_score_step(tmp_path, head=head)
    assert (rc, argv, outputs) == (2, [], "exit-code=2\n")


def test_the_action_installs_score_diff_without_importing_from_the_workspace():
    (install,) = [s for s in _action_steps() if "SD_ACTION_PATH" in s.get("env", {})]
    lines = [line.strip() for line in install["run"].splitlines() if line.strip()]
    assert lines[0] == 'cd "$RUNNER_TEMP"'  # `python -m venv` would import ./venv/ from the checkout
    assert all(" -I -m " in line for line in lines[1:] if "python" in line.lower())


def test_the_example_runs_no_code_from_the_pull_request_before_the_gate():
    workflow = yaml.safe_load((ROOT / "examples/github-workflow.yml").read_text(encoding="utf-8"))
    gate = workflow["jobs"]["gate"]["steps"]
    used = [str(s.get("uses", "run")).split("@")[0] for s in gate]
    head = max(i for i, u in enumerate(used) if u == "actions/checkout")
    assert gate[head]["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    # Shell steps run the base's files only: once the head is checked out, score-diff comes next
    # (the head's code then runs only inside its jail), and no shell step follows at all.
    assert used[head + 1] == "score-diff/score-diff", used
    assert not any("run" in s for s in gate[head:]), used
    assert gate[head + 1]["with"]["skip-test"] == "false"
    assert list(workflow["jobs"]) == ["gate"]  # a pull_request_target run never installs the pull request
    tests = yaml.safe_load((ROOT / "examples/github-workflow-test.yml").read_text(encoding="utf-8"))
    assert any("requirements.txt" in s.get("run", "") for s in tests["jobs"]["test"]["steps"])
