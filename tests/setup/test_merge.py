"""Set-up that is verified (issue 21, item 1): init merges its hooks into an existing
.pre-commit-config.yaml (the user's hooks, comments and order kept, pre-commit's own validation
accepts it), refuses shapes it cannot merge with the exact lines to add, and doctor names each
missing piece of the gate with the command that fixes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from scorer.setup.merge import Unmergeable, merge
from tests.testing.repo import GitRepo, run_cli
from tests.testing.setup import edit_starter

SAMPLE = """\
# See https://pre-commit.com for more information
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v3.2.0
    hooks:
    -   id: trailing-whitespace  # keep me
    -   id: end-of-file-fixer
# a comment between entries
-   repo: meta
    hooks:
    -   id: identity

ci:
  autofix_prs: false
"""
INDENTED = """\
default_install_hook_types: [pre-commit, pre-push]  # ours
default_stages: [pre-commit]
repos:
  - repo: local
    hooks:
      - id: lint
        name: lint
        entry: 'true'
        language: system
"""
SHAPES = {
    "sample-config": SAMPLE,
    "indented-with-types": INDENTED,
    "no-trailing-newline": "repos:\n- repo: meta\n  hooks:\n  - id: identity",
}
UNMERGEABLE = {
    "flow-repos": "repos: [{repo: meta, hooks: [{id: identity}]}]\n",
    "no-repos": "default_stages: [pre-commit]\n",
    "anchors": "repos:\n- &m\n  repo: meta\n  hooks:\n  - id: identity\n",
    "block-types": "default_install_hook_types:\n- pre-commit\nrepos:\n- repo: meta\n  hooks:\n  - id: identity\n",
    "half-there": "repos:\n- repo: local\n  hooks:\n  - id: score-diff\n    name: x\n    entry: x\n    language: system\n",
}


def _validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(path)], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("shape", SHAPES, ids=SHAPES)
def test_the_merge_keeps_every_line_and_pre_commit_accepts_it(tmp_path: Path, shape: str) -> None:
    text = SHAPES[shape]
    merged = merge(text, ["agent-*"], "main")
    assert merged.changed
    old_lines = [line for line in text.splitlines() if not line.startswith("default_install_hook_types")]
    rest = iter(merged.text.splitlines())
    assert all(any(line == new for new in rest) for line in old_lines)  # every line kept, in order
    target = tmp_path / ".pre-commit-config.yaml"
    target.write_text(merged.text, encoding="utf-8")
    proc = _validate(target)
    assert proc.returncode == 0, proc.stdout + proc.stderr + merged.text
    config = yaml.safe_load(merged.text)
    assert {"pre-commit", "commit-msg"} <= set(config["default_install_hook_types"])
    ids = [h["id"] for r in config["repos"] for h in r["hooks"]]
    assert ids[-2:] == ["score-diff", "score-diff-commit-msg"]  # appended: the user's order first
    ours = {h["id"]: h for h in config["repos"][-1]["hooks"]}
    assert ours["score-diff"]["args"] == ["--branches", "agent-*", "--since", "main", "--defer-justifications"]
    assert ours["score-diff"]["stages"] == ["pre-commit"] and ours["score-diff-commit-msg"]["stages"] == ["commit-msg"]
    assert merge(merged.text, ["agent-*"], "main") == (merged.text, False)  # a second merge changes nothing


def test_the_users_hooks_keep_running_only_where_they_ran() -> None:
    """Installing commit-msg runs stage-less hooks there too; default_stages keeps them where they were."""
    config = yaml.safe_load(merge(SAMPLE, ["agent-*"], "main").text)
    assert config["default_stages"] == ["pre-commit"]
    assert "# keep me" in merge(SAMPLE, ["agent-*"], "main").text
    kept = yaml.safe_load(merge(INDENTED, ["agent-*"], "main").text)
    assert kept["default_stages"] == ["pre-commit"]  # the user's own, untouched
    assert kept["default_install_hook_types"] == ["pre-commit", "pre-push", "commit-msg"]


@pytest.mark.parametrize("shape", UNMERGEABLE, ids=UNMERGEABLE)
def test_an_unusual_shape_is_refused_not_guessed(shape: str) -> None:
    with pytest.raises(Unmergeable):
        merge(UNMERGEABLE[shape], ["agent-*"], "main")


def _project(repo: GitRepo, config: str | None = None) -> None:
    repo.write("src/app.py", "x = 1\n")
    repo.write("tests/test_app.py", "def test_app():\n    assert True\n")
    if config is not None:
        repo.write(".pre-commit-config.yaml", config)
    repo.commit("the project")


def test_init_merges_into_an_existing_config(repo: GitRepo) -> None:
    _project(repo, SAMPLE)
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])
    assert code == 0, out
    assert "merged score-diff's hooks into .pre-commit-config.yaml" in out
    text = (repo.root / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert text.startswith("# See https://pre-commit.com") and "trailing-whitespace  # keep me" in text
    assert _validate(repo.root / ".pre-commit-config.yaml").returncode == 0
    assert "score-diff doctor:" in out  # init runs doctor last


def test_init_that_cannot_merge_exits_1_and_prints_the_lines(repo: GitRepo) -> None:
    _project(repo, UNMERGEABLE["flow-repos"])
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])
    assert code == 1, out
    assert "could not merge score-diff's hooks into .pre-commit-config.yaml" in out
    assert "- repo: local" in out and "id: score-diff-commit-msg" in out
    assert (repo.root / ".pre-commit-config.yaml").read_text(encoding="utf-8") == UNMERGEABLE["flow-repos"]


def _doctor(repo: GitRepo, *args: str) -> tuple[int, str]:
    return run_cli(["doctor", "--repo", str(repo.root), *args])


def _missing(out: str) -> list[str]:
    return [line.split("MISSING", 1)[1].strip() for line in out.splitlines() if line.strip().startswith("MISSING")]


def test_doctor_names_each_missing_piece_and_its_fix(repo: GitRepo) -> None:
    _project(repo)
    code, out = _doctor(repo)
    assert code == 1
    missing = _missing(out)
    assert missing[0].startswith("the manifest job_manifest.json is not committed on main"), out
    assert any(m.startswith("no pre-commit hook is installed") for m in missing)
    assert any(m.startswith("no commit-msg hook is installed") for m in missing)
    assert "fix: score-diff install-hook --since main" in out
    assert out.rstrip().endswith("missing (fix each, then run doctor again)")


def test_doctor_after_init_and_the_steps_it_names_is_complete(repo: GitRepo) -> None:
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    edit_starter(repo.root)
    assert run_cli(["pin", "--repo", str(repo.root)])[0] == 0
    repo.commit("the fence")
    code, out = _doctor(repo)
    assert (code, _missing(out)) == (0, []), out
    assert out.rstrip().endswith("doctor: the gate is complete")


def test_doctor_finds_a_stale_pin_a_foreign_hook_and_an_agent_without_the_guard(repo: GitRepo) -> None:
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    edit_starter(repo.root)
    assert run_cli(["pin", "--repo", str(repo.root)])[0] == 0
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    repo.write("job_manifest.json", json.dumps({**manifest, "allowed_paths": ["**"]}))  # edited after pinning
    repo.write(".claude/settings.json", "{}\n")
    repo.commit("a fence whose pin is stale")
    hook = Path(repo.git("rev-parse", "--git-path", "hooks").stdout.strip())
    if not hook.is_absolute():
        hook = repo.root / hook
    (hook / "commit-msg").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    code, out = _doctor(repo)
    assert code == 1
    missing = _missing(out)
    assert any("does not match the manifest" in m for m in missing), out
    assert any("commit-msg hook" in m and "does not run score-diff" in m for m in missing), out
    assert any(m.startswith(".claude/ is here") for m in missing), out
    assert "fix: score-diff guard install --agent claude" in out


def test_doctor_finds_a_required_test_that_cannot_start(repo: GitRepo) -> None:
    _project(repo)
    repo.write(
        "job_manifest.json",
        json.dumps({"job_id": "j", "allowed_paths": ["src/**"], "required_test": ["no-such-program-here"]}),
    )
    assert run_cli(["pin", "--repo", str(repo.root)])[0] == 0
    repo.commit("fence")
    code, out = _doctor(repo)
    assert code == 1 and any("cannot start: no-such-program-here is not found" in m for m in _missing(out)), out


def test_doctor_outside_a_repository_could_not_check(tmp_path: Path) -> None:
    code, out = run_cli(["doctor", "--repo", str(tmp_path)])
    assert (code, out.rstrip().splitlines()[-1]) == (2, "score-diff doctor: failed (git-error)")


def test_doctor_sees_a_hook_that_is_not_executable(repo: GitRepo) -> None:
    _project(repo)
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    hooks = repo.root / ".git" / "hooks"
    os.chmod(hooks / "pre-commit", 0o644)
    code, out = _doctor(repo)
    assert "is not executable, so git skips it" in out and code == 1
