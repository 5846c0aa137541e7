"""`score-diff init` and `score-diff install-hook`: set-up in one command, on real repositories."""

from __future__ import annotations

import json
import sys

import pytest
import yaml

from scorer.setup import detect
from scorer.setup.detect import NO_TEST_FOUND, starter_manifest
from tests.testing.repo import GitRepo, run_cli

WORKFLOW = ".github/workflows/ci.yml"


def _project(repo: GitRepo) -> None:
    repo.write("pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = ['tests']\n")
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.write("tests/test_app.py", "def test_f():\n    pass\n")
    repo.write(WORKFLOW, "on: push\n")
    repo.write(".env", "TOKEN=local\n")


def test_init_then_a_commit_on_an_agent_branch_blocks_a_decoy_edit(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root)])
    assert code == 0, out
    assert "wrote job_manifest.json" in out and "pre-commit" in out
    repo.commit("the fence")  # step 3: the hooks read it where CI does, on the base branch
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.write(WORKFLOW, "on: push\njobs: {}\n")
    repo.git("add", WORKFLOW)
    blocked = repo.git("commit", "-q", "-m", "decoy", check=False)
    assert blocked.returncode != 0
    assert f"FAIL [forbidden-path] {WORKFLOW}" in blocked.stdout + blocked.stderr
    assert repo.git("rev-list", "--count", "HEAD").stdout.strip() == "2"  # the project and its fence


def test_the_hooks_score_only_agent_branches(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    repo.write(WORKFLOW, "on: push\njobs: {}\n")
    repo.git("add", "-A")
    on_main = repo.git("commit", "-q", "-m", "maintainer", check=False)
    assert on_main.returncode == 0, on_main.stdout + on_main.stderr


def test_the_starter_manifest_is_read_off_the_repository(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    run_cli(["init", "--repo", str(repo.root), "--job", "fix-f", "--hooks", "none"])
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    assert manifest["job_id"] == "fix-f"
    assert manifest["allowed_paths"] == ["src/**", "tests/**"]
    assert manifest["required_test"] == ["python3", "-m", "pytest", "-q"]
    assert manifest["forbidden_globs"] == ["./.env", "./job_manifest.json.sha256", ".github/workflows/**"]
    assert run_cli(["check-manifest", "--repo", str(repo.root)])[0] == 0


def test_init_is_idempotent_and_never_overwrites_without_force(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    assert run_cli(["init", "--repo", str(repo.root)])[0] == 0
    code, again = run_cli(["init", "--repo", str(repo.root)])
    assert code == 0
    assert again.count("already up to date") == 3  # the manifest and both hooks
    edited = repo.write(
        "job_manifest.json", json.dumps({"job_id": "mine", "allowed_paths": ["src/app.py"], "required_test": ["true"]})
    )
    code, kept = run_cli(["init", "--repo", str(repo.root)])
    assert code == 0 and "kept job_manifest.json: it exists and differs (pass --force to overwrite)" in kept
    assert json.loads(edited.read_text(encoding="utf-8"))["job_id"] == "mine"
    code, forced = run_cli(["init", "--repo", str(repo.root), "--force"])
    assert code == 0 and "replaced job_manifest.json (--force)" in forced


def test_install_hook_keeps_a_hook_of_someone_elses(repo: GitRepo) -> None:
    repo.commit("initial")
    theirs = repo.root / ".git" / "hooks" / "pre-commit"
    theirs.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    code, out = run_cli(["install-hook", "--repo", str(repo.root)])
    assert code == 1 and "kept" in out and theirs.read_text(encoding="utf-8") == "#!/bin/sh\nexit 0\n"
    assert run_cli(["install-hook", "--repo", str(repo.root), "--force"])[0] == 0
    assert "-m scorer --branches 'agent-*' --since main --defer-justifications" in theirs.read_text(encoding="utf-8")
    assert sys.executable in theirs.read_text(encoding="utf-8")


def test_init_for_the_pre_commit_framework_writes_a_local_system_config(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])
    assert code == 0 and "install the hooks: pre-commit install" in out
    config = yaml.safe_load((repo.root / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert config["default_install_hook_types"] == ["pre-commit", "commit-msg"]
    [local] = config["repos"]
    assert local["repo"] == "local"
    hooks = {h["id"]: h for h in local["hooks"]}
    assert {h["language"] for h in hooks.values()} == {"system"}
    commit = hooks["score-diff"]
    assert (commit["entry"], commit["args"], commit["pass_filenames"], commit["stages"]) == (
        "score-diff",
        ["--branches", "agent-*", "--since", "main", "--defer-justifications"],
        False,
        ["pre-commit"],
    )
    message = hooks["score-diff-commit-msg"]
    assert (message["entry"], message["args"], message["stages"]) == (
        "score-diff commit-msg",
        ["--branches", "agent-*", "--since", "main", "--skip-test"],  # the pre-commit stage ran the test
        ["commit-msg"],
    )
    assert commit["verbose"] is True  # pre-commit shows score-diff's report on a PASS too
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    assert "./.pre-commit-config.yaml" in manifest["forbidden_globs"]  # the agent may not switch its hook off
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()


def test_init_refuses_a_bare_repository(tmp_path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "b.git")], check=True)
    code, out = run_cli(["init", "--repo", str(tmp_path / "b.git")])
    assert code == 2 and out.endswith("score-diff init: failed (git-error)\n")


def _reader(files: dict[str, str]):
    return lambda rel: files[rel].encode() if rel in files else None


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pyproject.toml": "[tool.pytest.ini_options]\n", "t/test_a.py": ""}, ("python3", "-m", "pytest", "-q")),
        ({"setup.cfg": "[tool:pytest]\n", "a.py": ""}, ("python3", "-m", "pytest", "-q")),
        ({"tests/conftest.py": "", "tests/test_a.py": ""}, ("python3", "-m", "pytest", "-q")),
        ({"tests/test_a.py": "import unittest\n"}, ("python3", "-m", "unittest", "discover", "-s", "tests")),
        ({"package.json": '{"scripts": {"test": "jest"}}'}, ("npm", "test")),
        ({"package.json": '{"scripts": {"build": "tsc"}}'}, None),
        ({"package.json": "not json"}, None),
        ({"go.mod": "module x\n"}, ("go", "test", "./...")),
        ({"Cargo.toml": "[package]\n"}, ("cargo", "test")),
        ({"README.md": "hi\n"}, None),
    ],
)
def test_the_test_command_is_detected(files: dict[str, str], expected: tuple[str, ...] | None) -> None:
    found = detect.test_commands(sorted(files), _reader(files))
    assert (found[0] if found else None) == expected


def test_no_test_command_found_fails_closed() -> None:
    manifest, commands = starter_manifest(["README.md"], _reader({}), "j", "job_manifest.json")
    assert commands == [] and manifest["required_test"] == list(NO_TEST_FOUND)
    assert manifest["allowed_paths"] == ["src/**"]


def test_sensitive_directories_are_forbidden_as_a_whole() -> None:
    files = ["migrations/0001.sql", "migrations/0002.sql", "app/models.py", "deploy/Dockerfile", "job_manifest.json"]
    manifest, _ = starter_manifest(files, _reader({}), "j", "job_manifest.json")
    assert "migrations/**" in manifest["forbidden_globs"]
    assert "job_manifest.json" not in manifest["forbidden_globs"]  # the manifest is guarded as manifest-changed
    assert "app/**" in manifest["allowed_paths"] and "migrations/**" not in manifest["allowed_paths"]


@pytest.mark.slow
def test_the_pre_commit_config_init_writes_runs_in_the_real_framework(repo: GitRepo, monkeypatch) -> None:
    import os
    import subprocess
    from pathlib import Path

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(repo.scratch / "pre-commit-home"))
    _project(repo)
    repo.commit("initial")
    assert run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])[0] == 0
    installed = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo.root, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    repo.commit("the fence")
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.write(WORKFLOW, "on: push\njobs: {}\n")
    repo.git("add", WORKFLOW)
    blocked = repo.git("commit", "-q", "-m", "decoy", check=False)
    assert blocked.returncode != 0
    assert f"FAIL [forbidden-path] {WORKFLOW}" in blocked.stdout + blocked.stderr


def test_init_per_job_writes_the_jobs_file_the_agent_branch_finds_once_committed(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root), "--job", "fix", "--per-job"])
    assert code == 0 and "wrote .score-diff/jobs/fix.json" in out
    assert "score-diff pin --manifest .score-diff/jobs/fix.json" in out
    assert not (repo.root / "job_manifest.json").exists()
    manifest = json.loads((repo.root / ".score-diff/jobs/fix.json").read_text(encoding="utf-8"))
    assert manifest["job_id"] == "fix" and ".score-diff/jobs/fix.json.sha256" in manifest["forbidden_globs"]
    repo.commit("approve job fix")  # step 3 of the next steps: a job file counts once it is committed
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.write(WORKFLOW, "on: push\njobs: {}\n")
    repo.git("add", WORKFLOW)
    blocked = repo.git("commit", "-q", "-m", "decoy", check=False)
    assert blocked.returncode != 0
    assert f"FAIL [forbidden-path] {WORKFLOW}" in blocked.stdout + blocked.stderr
    assert "job: fix " in blocked.stdout + blocked.stderr
    code, out = run_cli(["init", "--repo", str(repo.root), "--per-job"])
    assert code == 2 and out.endswith("score-diff init: failed (usage)\n")


def test_init_says_the_one_order_edit_pin_commit_install(repo: GitRepo) -> None:
    _project(repo)
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "pre-commit"])
    assert code == 0
    steps = [
        line.split(".", 1)[1].split(":", 1)[0].strip() for line in out.splitlines() if line[:4].strip()[:1].isdigit()
    ]
    assert steps[:4] == [
        "edit job_manifest.json",
        "pin it",
        "commit the fence on the base branch before the agent starts",
        "install the hooks",
    ], out


def test_install_hook_finds_the_base_branch_from_the_remote(repo: GitRepo, tmp_path) -> None:
    repo.commit("initial")
    repo.git("branch", "-m", "main", "trunk")
    clone = tmp_path / "clone"
    repo.git("clone", "-q", str(repo.root), str(clone))  # origin/HEAD -> origin/trunk, and a local trunk
    code, out = run_cli(["install-hook", "--repo", str(clone)])
    assert code == 0 and "merge-base with trunk, as CI's --base trunk will" in out, out
    assert "--since trunk" in (clone / ".git" / "hooks" / "pre-commit").read_text(encoding="utf-8")


def test_install_hook_without_a_base_branch_says_so(repo: GitRepo) -> None:
    repo.commit("initial")
    repo.git("branch", "-m", "main", "work")
    code, out = run_cli(["install-hook", "--repo", str(repo.root)])
    assert code == 0 and "no base branch found" in out and "pass --since BRANCH" in out, out
    assert "--since" not in (repo.root / ".git" / "hooks" / "pre-commit").read_text(encoding="utf-8")


def test_init_protects_the_test_files_git_tracks_and_a_weakened_one_is_blocked(repo: GitRepo) -> None:
    _project(repo)
    repo.write("tests/test_app.py", "from src.app import f\n\n\ndef test_f():\n    assert f() == 1\n")
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root)])
    assert code == 0, out
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    assert manifest["protected_tests"] == ["tests/**/test*.py"]
    assert "protected_tests (tests/**/test*.py) are the tracked test files" in out
    repo.commit("the fence")
    repo.git("checkout", "-q", "-b", "agent-fix")
    base_test = (repo.root / "tests/test_app.py").read_text(encoding="utf-8")
    repo.write("tests/test_app.py", base_test + "\n\ndef test_g():\n    assert 1 + 1 == 2\n")
    assert run_cli(["--repo", str(repo.root), "--skip-test", "--no-log"])[0] == 0  # adding is the job's right
    repo.write("tests/test_app.py", base_test.replace("assert f() == 1", "f()"))
    repo.git("add", "tests/test_app.py")
    blocked = repo.git("commit", "-q", "-m", "the assertion gone", check=False)
    assert blocked.returncode != 0
    assert "FAIL [test-weakened] tests/test_app.py" in blocked.stdout + blocked.stderr


def test_init_with_no_tracked_test_file_protects_none_and_says_so(repo: GitRepo) -> None:
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.commit("initial")
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "none"])
    assert code == 0, out
    assert json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))["protected_tests"] == []
    assert "git tracks no test file, so protected_tests is empty" in out


def test_init_proposes_no_untracked_test_file_only_what_the_index_holds(repo: GitRepo) -> None:
    repo.write("src/app.py", "def f():\n    return 1\n")
    repo.write("tests/test_gone.py", "def test_g():\n    assert True\n")
    repo.commit("initial")
    repo.git("rm", "-q", "--cached", "tests/test_gone.py")  # still on disk, no longer in the index
    repo.write("tests/test_new.py", "def test_n():\n    assert True\n")  # on disk, never added
    repo.write("lib/test_staged.py", "def test_s():\n    assert True\n")
    repo.git("add", "lib/test_staged.py")  # staged, not committed: in the index
    code, out = run_cli(["init", "--repo", str(repo.root), "--hooks", "none"])
    assert code == 0, out
    manifest = json.loads((repo.root / "job_manifest.json").read_text(encoding="utf-8"))
    assert manifest["protected_tests"] == ["lib/test_staged.py"]
    assert "tests/**" in manifest["allowed_paths"]  # the directory is still the job's to work in


@pytest.mark.parametrize(
    ("tracked", "expected"),
    [
        (["tests/test_a.py", "tests/unit/test_b.py"], ["tests/**/test*.py"]),
        (["src/pkg/tests/test_a.py", "src/pkg/a.py"], ["src/pkg/tests/**/test*.py"]),
        (["pkg/util_test.go", "pkg/util.go"], ["pkg/util_test.go"]),
        (["web/__tests__/app.test.tsx", "web/app.tsx"], ["web/__tests__/**/*.test.tsx"]),
        (["spec/model_spec.rb"], ["spec/**/*_spec.rb"]),
        (["tests/helpers_test.py", "tests/test_x.py"], ["tests/**/*_test.py", "tests/**/test*.py"]),
        # must not fire: helpers, fixtures and configuration under a test directory, and code
        (["tests/conftest.py", "tests/fixtures/data.json", "tests/helpers.py", "src/app.py"], []),
        (["src/contest.py", "src/latest.py", "attest.go"], []),
        ([], []),
    ],
)
def test_the_protected_tests_are_read_off_the_tracked_files(tracked: list[str], expected: list[str]) -> None:
    assert detect.protected_globs(tracked) == expected
    manifest, _ = starter_manifest(tracked, _reader({}), "j", "job_manifest.json", tracked=tracked)
    assert manifest["protected_tests"] == expected


@pytest.mark.parametrize(
    "path",
    [
        "lib/test_[x].py",  # as a glob, [x] is a class: the file would not match its own entry
        "src/[pkg]/tests/test_a.py",
        "lib/test_a\\b.py",  # the manifest reads a backslash as /
        "!w/test_a.py",
        "#w/test_a.py",
        "a b/test_a.py",
        "lib/test_*.py",
    ],
)
def test_each_proposed_entry_protects_the_file_it_was_read_from(path: str) -> None:
    """Through the manifest loader and its matcher, as the check reads them: never a file left out."""
    from scorer.manifest.globs import PathMatcher
    from scorer.manifest.load import parse_manifest

    manifest, _ = starter_manifest([path], _reader({}), "j", "job_manifest.json", tracked=[path])
    loaded = parse_manifest(json.dumps(manifest).encode(), "the starter")
    assert loaded.protected_tests and PathMatcher(loaded.protected_tests)(path), loaded.protected_tests


@pytest.mark.parametrize(
    "files",
    [
        ["!w/test_a.py", "!w/app.py"],  # '!w/**' would be a negation: the starter would not even load
        ["[x]/tests/test_a.py", "[x]/app.py", "ok/app.py"],
        ["[x]/.env", "cfg/.env[1]", ".env", "src/app.py"],
    ],
)
def test_the_starter_loads_and_its_entries_never_miss_their_files(files: list[str]) -> None:
    """A grant is exact or left out (never wider than the directory), a denial or a protection may be
    wider but always covers the file it names; read through the loader and the matcher the checks use."""
    from scorer.checks.sensitive import classify
    from scorer.manifest.globs import PathMatcher, grant_matcher
    from scorer.manifest.load import parse_manifest

    manifest, _ = starter_manifest(files, _reader({}), "j", "job_manifest.json", tracked=files)
    loaded = parse_manifest(json.dumps(manifest).encode(), "the starter")
    forbidden = PathMatcher(loaded.forbidden_globs)
    assert all(forbidden(f) for f in files if classify(f) is not None), loaded.forbidden_globs
    protected = PathMatcher(loaded.protected_tests)
    assert all(protected(f) for f in files if detect.protected_globs([f])), loaded.protected_tests
    granted = grant_matcher(loaded.allowed_paths)
    unspellable = [f for f in files if f[:1] in "!#" or "[" in f.split("/")[0]]  # no glob names them exactly
    assert not any(granted(f) for f in unspellable), loaded.allowed_paths
