"""Real, deterministic temporary git repositories and an in-process CLI runner (tests/conftest.py gives them as fixtures)."""

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

from scorer import main as cli

# A required test that always passes: scoring tests are about git, not about the test run.
PASSING_TEST = [sys.executable, "-c", "pass"]


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
