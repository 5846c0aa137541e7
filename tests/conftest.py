"""Shared helpers: real, deterministic temporary git repositories and an in-process CLI runner."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scorer import main as cli

# A required test that always passes: scoring tests are about git, not about the test run.
PASSING_TEST = [sys.executable, "-c", "pass"]

# Variables that would let the developer's (or a hook's) git setup leak into a test.
_LEAKY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_PAGER",
    "SCORE_DIFF_MANIFEST",
    "SCORE_DIFF_MANIFEST_SHA256",
    "PRE_COMMIT",
    "SCORE_SNEAKY",
    "GITHUB_STEP_SUMMARY",
    "CI",  # the decision log infers its gate from it
)


@pytest.fixture(autouse=True)
def deterministic_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixed identities and dates, and a HOME of our own so no personal config leaks in."""
    home = tmp_path_factory.mktemp("home")
    for name in _LEAKY_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for who in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{who}_NAME", "Test Agent")
        monkeypatch.setenv(f"GIT_{who}_EMAIL", "agent@example.invalid")
        monkeypatch.setenv(f"GIT_{who}_DATE", "2026-01-01T00:00:00+00:00")


@dataclass
class Outcome:
    """One in-process `score-diff` run: exit code, parsed JSON report and text report."""

    exit_code: int
    report: dict[str, Any]
    text: str

    @property
    def last_line(self) -> str:
        return self.text.rstrip("\n").splitlines()[-1]

    @property
    def codes(self) -> set[str]:
        return {v["code"] for v in self.report["violations"]}

    def where(self, code: str) -> set[tuple[str | None, int | None]]:
        return {(v["path"], v["line"]) for v in self.report["violations"] if v["code"] == code}

    def paths(self, code: str) -> set[str | None]:
        return {path for path, _ in self.where(code)}

    @property
    def changed(self) -> dict[str, dict[str, Any]]:
        return {c["path"]: c for c in self.report["changed"]}


def run_cli(argv: list[str]) -> tuple[int, str]:
    """Call scorer.main.main in-process; return (exit code, stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(argv)
    return code, out.getvalue()


class GitRepo:
    """A real repository in a temp dir, with helpers to change it and to score it."""

    def __init__(self, root: Path, scratch: Path) -> None:
        self.root = root
        self.scratch = scratch  # outside the repository: manifests and reports live here
        root.mkdir(parents=True, exist_ok=True)
        scratch.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.manifest_path = self.write_manifest()

    def git(self, *args: str, check: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return proc

    def write(self, path: str, content: str | bytes = "x\n", mode: int | None = None) -> Path:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            full.write_bytes(content.encode("utf-8"))
        else:
            full.write_bytes(content)
        if mode is not None:
            full.chmod(mode)
        return full

    def symlink(self, path: str, target: str) -> None:
        full = self.root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if full.is_symlink() or full.exists():
            full.unlink()
        os.symlink(target, full)

    def remove(self, path: str) -> None:
        (self.root / path).unlink()

    def commit(self, message: str = "commit", *paths: str) -> str:
        """Stage everything (or `paths`) and commit; return the new commit id."""
        self.git("add", "-A", "--", *paths) if paths else self.git("add", "-A")
        self.git("commit", "-q", "--no-verify", "--no-gpg-sign", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").stdout.strip()

    def write_manifest(self, path: Path | None = None, **fields: Any) -> Path:
        """A manifest (outside the repository unless `path` says otherwise); the fields override defaults."""
        data: dict[str, Any] = {
            "job_id": "test-job",
            "allowed_paths": ["allowed/**"],
            "required_test": PASSING_TEST,
        }
        data.update(fields)
        target = path or self.scratch / "manifest.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(data, indent=2), encoding="utf-8")
        return target

    def manifest(self, **fields: Any) -> Path:
        self.manifest_path = self.write_manifest(**fields)
        return self.manifest_path

    def score(
        self, *args: str, skip_test: bool = True, manifest: Path | None = None, repo_arg: str | None = None
    ) -> Outcome:
        """Run `score-diff` in-process, JSON to a file and text to stdout, in one run."""
        report = self.scratch / "report.json"
        if report.exists():
            report.unlink()
        argv = [
            "--repo",
            repo_arg or str(self.root),
            "--manifest",
            str(manifest or self.manifest_path),
            "--format",
            "json",
            "--output",
            str(report),
            "--format",
            "text",
            *args,
        ]
        if skip_test:
            argv.append("--skip-test")
        code, text = run_cli(argv)
        return Outcome(code, json.loads(report.read_text(encoding="utf-8")), text)


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch main (no commits yet)."""
    return GitRepo(tmp_path / "repo", tmp_path / "scratch")


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    """main holds allowed/t.py and other/t.py; only allowed/** may change; eval( is forbidden."""
    repo.write("allowed/t.py", "one\ntwo\nthree\n")
    repo.write("other/t.py", "one\ntwo\nthree\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    return repo


@pytest.fixture
def committed(repo: GitRepo) -> GitRepo:
    """A repository with one commit holding a few text files."""
    repo.write("allowed/a.py", "one\ntwo\nthree\n")
    repo.write("other/b.py", "alpha\nbeta\n")
    repo.write("README.txt", "hello\n")
    repo.commit("initial")
    return repo
