"""The real pre-commit framework installs score-diff from this checkout and gates `git commit`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.repo import PASSING_TEST, GitRepo

PROJECT = Path(__file__).resolve().parents[2]
MIGRATION = "migrations/0001_init.sql"


def _snapshot(dest: Path) -> str:
    """This checkout as it is now (uncommitted work included), as a git repo pre-commit can clone."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=PROJECT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        rel = os.fsdecode(raw)
        src = PROJECT / rel
        if src.is_file() and not rel.startswith("benchmarks/"):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "snapshot"]):
        subprocess.run(["git", *args], cwd=dest, check=True, capture_output=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=dest, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    src = tmp_path_factory.mktemp("score-diff-src")
    cache = tmp_path_factory.mktemp("pre-commit-home")
    return src, _snapshot(src), cache


def _config(src: Path, rev: str) -> str:
    return f"""default_install_hook_types: [pre-commit, commit-msg]
repos:
  - repo: {src.as_uri()}
    rev: {rev}
    hooks:
      - id: score-diff
        args: [--branches, 'agent-*', --defer-justifications]
      - id: score-diff-commit-msg
        args: [--branches, 'agent-*', --skip-test]
"""


@pytest.mark.slow
def test_real_pre_commit_blocks_the_decoy_and_allows_the_fix(repo: GitRepo, hook_source, monkeypatch):
    src, rev, cache = hook_source
    monkeypatch.setenv("PRE_COMMIT_HOME", str(cache))
    repo.write("src/pricing.py", "def discount(p):\n    return p\n")
    repo.write("src/legacy_pricing.py", "OLD = 1\n")
    repo.write_manifest(
        repo.root / "job_manifest.json",
        allowed_paths=["src/pricing.py", MIGRATION],
        forbidden_globs=["src/legacy_pricing.py"],
        required_test=PASSING_TEST,
    )
    repo.write(".pre-commit-config.yaml", _config(src, rev))
    repo.commit("initial")
    install = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo.root, capture_output=True, text=True
    )
    assert install.returncode == 0, install.stdout + install.stderr
    repo.git("checkout", "-q", "-b", "agent-fix")

    repo.write("src/legacy_pricing.py", "OLD = 2\n")
    repo.git("add", "-A")
    blocked = repo.git("commit", "-q", "-m", "decoy", check=False)
    assert blocked.returncode != 0, blocked.stdout + blocked.stderr
    assert "[forbidden-path] src/legacy_pricing.py" in blocked.stdout + blocked.stderr
    assert "RESULT: FAIL" in blocked.stdout + blocked.stderr

    repo.git("checkout", "-q", "--", ".")
    repo.git("reset", "-q", "--hard")
    repo.write("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    repo.git("add", "-A")
    allowed = repo.git("commit", "-q", "-m", "fix discount", check=False)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr

    # A sensitive path: the pre-commit stage defers, the commit-msg stage reads the trailers.
    repo.write(MIGRATION, "CREATE TABLE t (id int);\n")
    repo.git("add", "-A")
    bare = repo.git("commit", "-q", "-m", "add table", check=False)
    assert bare.returncode != 0
    assert "[sensitive-path] " + MIGRATION in bare.stdout + bare.stderr
    message = (
        f"add table\n\nBlast-Radius: {MIGRATION}\nJustification: src/pricing.py:2 discount needs it\n"
        "Rollback: DROP TABLE t;\n"
    )
    justified = repo.git("commit", "-q", "-m", message, check=False)
    assert justified.returncode == 0, justified.stdout + justified.stderr

    # On main the hook skips.
    repo.git("checkout", "-q", "main")
    repo.write("src/legacy_pricing.py", "OLD = 3\n")
    repo.git("add", "-A")
    on_main = repo.git("commit", "-q", "-m", "human edit on main", check=False)
    assert on_main.returncode == 0, on_main.stdout + on_main.stderr
