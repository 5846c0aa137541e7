"""`score-diff doctor` calls the gate complete only when it is: an unedited starter, hooks that
score against HEAD only, a test program CI will not have, and hooks that fail when git runs them
are each a MISSING piece with its fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.testing.repo import GitRepo, run_cli
from tests.testing.setup import edit_starter


def _project(repo: GitRepo) -> None:
    repo.write("pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.write("tests/test_app.py", "def test_f():\n    pass\n")
    repo.write(".gitignore", ".venv/\n")
    repo.commit("the project")


def _missing(out: str) -> list[str]:
    return [line.split("MISSING", 1)[1].strip() for line in out.splitlines() if line.strip().startswith("MISSING")]


def _fence(repo: GitRepo, **fields: Any) -> None:
    edit_starter(repo.root, **fields)
    assert run_cli(["pin", "--repo", str(repo.root)])[0] == 0
    repo.commit("score-diff: job fence")


def test_an_unedited_starter_is_not_a_complete_gate(repo: GitRepo) -> None:
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    # pin refuses the starter, so a user who commits it anyway has an unpinned starter on main:
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    from scorer.manifest.pin import pin_line

    raw = (repo.root / "job_manifest.json").read_bytes()
    (repo.root / "job_manifest.json.sha256").write_text(pin_line(raw, "job_manifest.json"), encoding="utf-8")
    repo.commit("the starter, pinned by hand")
    code, out = run_cli(["doctor", "--repo", str(repo.root)])
    assert code == 1, out
    assert any("is still init's unedited starter" in m and manifest["job_id"] in m for m in _missing(out)), out


def test_hooks_installed_without_since_are_reported(repo: GitRepo) -> None:
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    _fence(repo)
    assert run_cli(["doctor", "--repo", str(repo.root)])[0] == 0
    hooks = repo.root / ".git" / "hooks"
    for stage in ("pre-commit", "commit-msg"):  # as install-hook wrote them before --since was the default
        text = (hooks / stage).read_text(encoding="utf-8").replace(" --since main", "")
        (hooks / stage).write_text(text, encoding="utf-8")
    code, out = run_cli(["doctor", "--repo", str(repo.root)])
    assert code == 1
    assert [m for m in _missing(out) if "scores the working tree against HEAD only (no --since)" in m], out
    assert "fix: score-diff install-hook --since main --force" in out


def test_a_test_program_inside_the_clone_that_ci_lacks_is_reported(repo: GitRepo) -> None:
    _project(repo)
    venv = repo.root / ".venv" / "bin"
    venv.mkdir(parents=True)
    os.symlink(sys.executable, venv / "python")  # ignored: a fresh CI checkout has no .venv
    assert run_cli(["init", "--repo", str(repo.root), "--hooks", "none"])[0] == 0
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    assert manifest["required_test"][0] == "python3"  # init: a program on PATH, never .venv/bin/python
    _fence(repo, required_test=[".venv/bin/python", "-m", "pytest", "-q"])
    code, out = run_cli(["doctor", "--repo", str(repo.root)])
    assert code == 1
    assert any(
        m.startswith("the required test's program .venv/bin/python is inside the repository and git does not track")
        for m in _missing(out)
    ), out


@pytest.mark.slow
def test_doctor_runs_the_pre_commit_hooks_as_git_will(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = str(Path(sys.executable).parent)
    if not shutil.which("score-diff", path=bindir) or not shutil.which("pre-commit", path=bindir):
        pytest.skip("score-diff and pre-commit must be installed beside this interpreter")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(repo.scratch / "pre-commit-home"))
    # A remote hook repository pre-commit cannot fetch: a file:// URL that does not exist (no network).
    gone = (repo.scratch / "no-such-hooks-repo").as_uri()
    repo.write(".pre-commit-config.yaml", f"repos:\n  - repo: {gone}\n    rev: v1\n    hooks:\n      - id: lint\n")
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])[0] == 0
    _fence(repo)
    subprocess.run(["pre-commit", "install"], cwd=repo.root, check=True, capture_output=True)
    code, out = run_cli(["doctor", "--repo", str(repo.root)])
    assert code == 1, out
    assert any(m.startswith("the pre-commit hook fails before score-diff gives a verdict") for m in _missing(out)), out
    # Without the remote repository the same hooks run, and the gate is complete.
    config = repo.root / ".pre-commit-config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace(f"  - repo: {gone}\n    rev: v1\n    hooks:\n"
                      "      - id: lint\n", ""), encoding="utf-8")  # fmt: skip
    assert gone not in config.read_text(encoding="utf-8")
    repo.commit("hooks: score-diff's only")
    code, out = run_cli(["doctor", "--repo", str(repo.root)])
    assert code == 0, out
    assert "ok      the pre-commit hook ran as git will run it" in out
