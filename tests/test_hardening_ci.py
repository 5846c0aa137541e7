"""Issue 9 section 7: the shipped CI files and the report verifier, tried as an attacker would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo, run_cli

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def branch(committed: GitRepo) -> GitRepo:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "changed\n")
    committed.commit("fix")
    return committed


def _report(repo: GitRepo, tmp_path: Path, *extra: str) -> Path:
    report = tmp_path / "report.json"
    run_cli(["--repo", str(repo.root), "--base", "main", "--manifest", str(repo.manifest_path),
             "--format", "json", "--output", str(report), *extra])
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
    forged = {"result": "PASS", "exit_code": 0, "shadow": False, "violations": [], "mode": "range",
              "test": {"status": "passed"}, "binding": {"manifest_sha256": "0" * 64, "base": "0" * 40, "head": "0" * 40}}
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
