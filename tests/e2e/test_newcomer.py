"""The newcomer's first day, end to end with the real pre-commit (issue 21): init in a repository
that already has a .pre-commit-config.yaml, doctor, a blocked agent commit, then a PASS after
doing what the hint says. Offline: the user's hooks are pre-commit's built-in `pygrep` and
`meta` hooks, and score-diff's are `language: system`, so pre-commit installs nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.repo import GitRepo
from tests.testing.setup import edit_starter

EXISTING = """\
# The team's own hooks: init must keep every line of this file.
repos:
  - repo: local
    hooks:
      - id: no-print-debugging  # a hook of the team's
        name: no print debugging
        entry: 'breakpoint\\('
        language: pygrep
        types: [python]
  - repo: meta
    hooks:
      - id: check-useless-excludes
"""


@pytest.mark.slow
def test_the_newcomer_path(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = str(Path(sys.executable).parent)
    if not shutil.which("score-diff", path=bindir) or not shutil.which("pre-commit", path=bindir):
        pytest.skip("score-diff and pre-commit must be installed beside this interpreter")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(repo.scratch / "pre-commit-home"))

    def sh(command: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(command, shell=True, cwd=repo.root, capture_output=True, text=True, check=False)
        assert not check or proc.returncode == 0, (command, proc.stdout, proc.stderr)
        return proc

    repo.write("src/pricing.py", "def discount(price, percent):\n    return price\n")
    repo.write(
        "tests/test_pricing.py",
        "import unittest\n\nfrom src.pricing import discount\n\n\nclass T(unittest.TestCase):\n"
        "    def test_discount(self):\n        self.assertEqual(discount(200, 10), 180)\n",
    )
    repo.write("src/__init__.py", "")
    repo.write("tests/__init__.py", "")
    repo.write(".gitignore", "__pycache__/\n")
    repo.write(".pre-commit-config.yaml", EXISTING)
    repo.commit("the project, with its own pre-commit hooks")

    # Set up, as the README says: init, pin, commit the fence, pre-commit install, doctor.
    init = sh("score-diff init --hooks pre-commit")
    assert "merged score-diff's hooks into .pre-commit-config.yaml" in init.stdout, init.stdout
    merged = (repo.root / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert all(line in merged for line in EXISTING.splitlines())  # the team's lines, comments included
    assert sh("pre-commit validate-config").returncode == 0
    assert "MISSING" in init.stdout  # doctor, run last: the fence is not committed yet
    edit_starter(repo.root)
    sh("score-diff pin")
    sh("git add -A && git commit -q -m 'score-diff: job fence'")
    sh("pre-commit install")
    doctor = sh("score-diff doctor", check=False)
    assert doctor.returncode == 0, doctor.stdout
    assert doctor.stdout.rstrip().endswith("doctor: the gate is complete")

    # The agent fixes the bug and adds a file nobody named: the commit is blocked.
    sh("git switch -q -c agent-fix-discount")
    repo.write("src/pricing.py", "def discount(price, percent):\n    return price * (100 - percent) / 100\n")
    repo.write("helper.py", "HELP = 1\n")
    blocked = sh("git add -A && git commit -q -m 'Fix discount'", check=False)
    out = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, out
    assert "no print debugging" in out  # the team's hook still runs
    assert "FAIL [unlisted-path] helper.py" in out, out
    [hint] = re.findall(r"-> do: undo your change to helper\.py.*?run `([^`]+)`", out)

    # Doing what the hint says, and nothing else, then committing again: PASS.
    sh(hint)
    assert not (repo.root / "helper.py").exists()
    kept = [sh(f"git show 'stash@{{0}}{rev}:helper.py'", check=False).stdout for rev in ("", "^3")]
    assert "HELP = 1\n" in kept  # set aside in the stash, not destroyed
    allowed = sh("git add -A && git commit -q -m 'Fix discount'", check=False)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert sh("score-diff --base main").stdout.rstrip().endswith("RESULT: PASS")
