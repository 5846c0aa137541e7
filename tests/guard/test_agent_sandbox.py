"""The agent's own sandbox, written from the manifest (issue 28, item 1), and doctor's check of it."""

from __future__ import annotations

import json

import pytest

from tests.testing.repo import GitRepo, run_cli


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write("src/app.py", "x = 1\n")
    repo.write("tests/test_app.py", "def test_app():\n    assert True\n")
    repo.write("job_manifest.json", json.dumps({"job_id": "j", "allowed_paths": ["src/**"],
                                                "forbidden_globs": ["tests/**"], "required_test": ["true"]}))  # fmt: skip
    repo.commit("the project")
    return repo


def _doctor_lines(repo: GitRepo, word: str) -> list[str]:
    out = run_cli(["doctor", "--repo", str(repo.root)])[1]
    return [line for line in out.splitlines() if "'s sandbox" in line and word in line]


def test_claude_gets_its_sandbox_from_the_manifest_and_doctor_checks_it(project: GitRepo):
    assert run_cli(["guard", "install", "--agent", "claude", "--repo", str(project.root)])[0] == 0
    settings = json.loads((project.root / ".claude" / "settings.json").read_text())
    sandbox = settings["sandbox"]
    assert (sandbox["enabled"], sandbox["failIfUnavailable"], sandbox["allowUnsandboxedCommands"]) == (
        True,
        True,
        False,
    )
    deny = sandbox["filesystem"]["denyWrite"]
    for path in ("./tests", "./job_manifest.json", "./.git/config", "./.git/hooks", "./.git/info"):
        assert path in deny, deny
    assert "./src/app.py" not in deny and sandbox["network"] == {"allowedDomains": []}
    assert settings["hooks"]["PreToolUse"]  # the hooks are there too
    project.commit("the guard")
    assert _doctor_lines(project, " ok ") and not _doctor_lines(project, "MISSING")
    manifest = json.loads((project.root / "job_manifest.json").read_text())
    manifest["forbidden_globs"].append("src/app.py")  # the fence grew since install
    project.write("job_manifest.json", json.dumps(manifest))
    project.commit("a wider fence")
    assert _doctor_lines(project, "does not match the manifest")


def test_codex_gets_workspace_write_without_network(project: GitRepo):
    assert run_cli(["guard", "install", "--agent", "codex", "--repo", str(project.root)])[0] == 0
    text = (project.root / ".codex" / "config.toml").read_text()
    assert 'sandbox_mode = "workspace-write"' in text and "network_access = false" in text
    assert run_cli(["guard", "install", "--agent", "codex", "--repo", str(project.root)])[0] == 0  # idempotent
    assert _doctor_lines(project, " ok ")
    (project.root / ".codex" / "config.toml").write_text('sandbox_mode = "danger-full-access"\n')
    assert _doctor_lines(project, "does not match")


def test_install_without_a_manifest_writes_the_hooks_and_says_why_not_the_sandbox(repo: GitRepo):
    repo.write("a.py", "\n")
    repo.commit("c")
    code, out = run_cli(["guard", "install", "--agent", "claude", "--repo", str(repo.root)])
    assert code == 0 and "sandbox settings are not written" in out
    assert "sandbox" not in json.loads((repo.root / ".claude" / "settings.json").read_text())
