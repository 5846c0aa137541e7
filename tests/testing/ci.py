"""The GitHub Action read as data, and its scoring step run with a stand-in score-diff."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from tests.testing.repo import GitRepo

ACTION = Path(__file__).resolve().parents[2] / "action.yml"
INPUT_EXPR = re.compile(r"\$\{\{ inputs\.([\w-]+) \}\}")


def _input_name(expr: str) -> str:
    match = INPUT_EXPR.fullmatch(expr)
    assert match is not None, expr
    return match.group(1)


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _run_score_step(tmp_path: Path, **inputs: str) -> tuple[int, list[str], str]:
    """Run the action's scoring script with a stand-in score-diff; return rc, argv, outputs."""
    (step,) = [s for s in load(ACTION)["runs"]["steps"] if s.get("id") == "score"]
    fake = tmp_path / "score-diff/bin/score-diff"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$RUNNER_TEMP/argv"\nexit 1\n', encoding="utf-8")
    fake.chmod(0o755)
    defaults = {k: str(v.get("default", "")) for k, v in load(ACTION)["inputs"].items()}
    env_inputs = {**defaults, "base": "b" * 40, **inputs}
    env = {
        "PATH": os.environ["PATH"],
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        **{name: env_inputs[_input_name(expr)] for name, expr in step["env"].items()},
    }
    proc = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True)
    argv_file = tmp_path / "argv"
    argv = argv_file.read_text(encoding="utf-8").splitlines() if argv_file.exists() else []
    return proc.returncode, argv, (tmp_path / "output").read_text(encoding="utf-8")


def checkout(tmp_path: Path) -> str:
    """tmp_path as a checkout with one commit; its id."""
    repo = GitRepo(tmp_path, tmp_path / ".scratch")
    return repo.commit("head")
