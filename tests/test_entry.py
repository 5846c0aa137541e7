"""The console entry point (scorer/entry.py): what it leaves for the interpreter's exit.

The interpreter's exit runs one more full pass of the cyclic garbage collector over every object
still alive (the modules, their classes and functions, the records of the change): about 4% of a
medium scoring's instructions, for objects that the process is about to drop anyway. The entry
point moves them out of the collector's reach (`gc.freeze`) once the command has returned; the
report, the log row and every flush come before, so nothing is lost that the exit wrote.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scorer import entry
from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[1]


def test_the_command_returns_before_the_objects_are_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["score-diff", "--version"])
    assert gc.get_freeze_count() == 0
    try:
        assert entry.main() == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()  # this test's interpreter lives on


def test_a_scoring_in_its_own_process_keeps_its_report_and_its_log_row(base: GitRepo) -> None:
    """As a hook runs it: a fresh interpreter, its exit after the freeze; the text report's last
    line, the JSON report and the decision-log row are all there."""
    base.write("allowed/t.py", "one\ntwo\n")
    report = base.scratch / "exit-report.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(base.scratch)}
    argv = [sys.executable, "-m", "scorer", "--skip-test", "--manifest", str(base.manifest_path)]
    argv += ["--format", "json", "--output", str(report), "--format", "text"]
    done = subprocess.run(argv, capture_output=True, env=env, cwd=base.root, check=False)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert done.stdout.decode().splitlines()[-1] == "RESULT: PASS (with test skipped)"
    assert json.loads(report.read_text(encoding="utf-8"))["result"] == "PASS"
    log = subprocess.run(
        [sys.executable, "-m", "scorer", "log", "--format", "json"], capture_output=True, env=env, cwd=base.root
    )
    assert log.returncode == 0, log.stdout.decode() + log.stderr.decode()
    assert [row["verdict"] for row in json.loads(log.stdout)] == ["PASS"]
