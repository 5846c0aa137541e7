"""A manifest per job: two jobs on two branches, each judged by its own approved fence, in
worktree, --base and server modes; job A never judged by job B's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.testing.repo import PASSING_TEST, GitRepo, Outcome, run_cli

JOBS = ".score-diff/jobs"


def _job_file(repo: GitRepo, job: str, **fields: object) -> None:
    data = {"job_id": job, "allowed_paths": [f"src/{job}.py"], "required_test": PASSING_TEST, **fields}
    repo.write(f"{JOBS}/{job}.json", json.dumps(data, indent=2))


@pytest.fixture
def teams(repo: GitRepo) -> GitRepo:
    """main holds two approved jobs, a and b, each allowed its own file."""
    repo.write("src/a.py", "a = 1\n")
    repo.write("src/b.py", "b = 1\n")
    _job_file(repo, "a")
    _job_file(repo, "b")
    repo.commit("two jobs approved")
    return repo


def score(repo: GitRepo, *args: str) -> Outcome:
    """Scored with no --manifest: the job's own manifest is found from the branch (or --job)."""
    report = repo.scratch / "report.json"
    code, text = run_cli(
        [
            "--repo",
            str(repo.root),
            "--format",
            "json",
            "--output",
            str(report),
            "--format",
            "text",
            "--skip-test",
            *args,
        ]
    )
    return Outcome(code, json.loads(report.read_text(encoding="utf-8")), text)


def _on(repo: GitRepo, branch: str, path: str, start: str = "main") -> None:
    repo.git("checkout", "-q", "-B", branch, start)
    repo.write(path, "changed = 2\n")


def test_each_job_is_scored_against_its_own_manifest_in_worktree_mode(teams: GitRepo) -> None:
    _on(teams, "agent-a", "src/b.py")
    out = score(teams)
    assert (out.exit_code, out.codes, out.report["job_id"]) == (1, {"unlisted-path"}, "a")
    assert out.report["binding"]["manifest_path"] == f"{JOBS}/a.json"
    _on(teams, "agent-b", "src/b.py")
    out = score(teams)
    assert (out.exit_code, out.report["job_id"], out.last_line) == (0, "b", "RESULT: PASS (with test skipped)")


def test_each_job_is_scored_against_its_own_manifest_in_base_mode(teams: GitRepo) -> None:
    for branch, path in (("agent-a", "src/b.py"), ("agent-b", "src/b.py")):
        _on(teams, branch, path)
        teams.commit(f"{branch} work")
    teams.git("checkout", "-q", "agent-a")
    a = score(teams, "--base", "main")
    assert (a.exit_code, a.codes, a.report["job_id"]) == (1, {"unlisted-path"}, "a")
    teams.git("checkout", "-q", "agent-b")
    b = score(teams, "--base", "main")
    assert (b.exit_code, b.report["job_id"]) == (0, "b")


def test_b_s_looser_manifest_landing_on_main_never_loosens_a(teams: GitRepo) -> None:
    _on(teams, "agent-a", "src/b.py")
    teams.commit("a strays into b's file")
    teams.git("checkout", "-q", "main")
    _job_file(teams, "b", allowed_paths=["**"])  # b's fence, approved on main while a's branch is open
    teams.write(
        "job_manifest.json", json.dumps({"job_id": "b", "allowed_paths": ["**"], "required_test": PASSING_TEST})
    )  # and as the single file
    teams.commit("approve job b, loosely")
    teams.git("checkout", "-q", "agent-a")
    out = score(teams, "--base", "main")
    assert (out.exit_code, out.codes, out.report["job_id"]) == (1, {"unlisted-path"}, "a")
    teams.write("src/b.py", "again = 3\n")
    assert score(teams).codes == {"unlisted-path"}  # the commit hook on a's branch agrees


def test_a_job_manifest_changed_or_added_on_the_job_branch_is_flagged(teams: GitRepo) -> None:
    teams.git("checkout", "-q", "-b", "agent-a")
    _job_file(teams, "a", allowed_paths=["**"])
    teams.write("src/b.py", "changed = 2\n")
    teams.commit("loosen my own fence")
    out = score(teams, "--base", "main")
    assert "manifest-changed" in out.codes and "unlisted-path" in out.codes  # judged by main's a.json
    teams.git("checkout", "-q", "-B", "agent-a", "main")
    _job_file(teams, "c", allowed_paths=["**"])
    teams.write("src/a.py", "changed = 2\n")
    teams.commit("bring a fence for another job")
    out = score(teams, "--base", "main")
    assert out.codes == {"manifest-changed", "unlisted-path"}
    assert out.paths("manifest-changed") == {f"{JOBS}/c.json"}


def test_a_job_without_an_approved_manifest_cannot_bring_its_own(teams: GitRepo) -> None:
    teams.git("checkout", "-q", "-b", "agent-new")
    _job_file(teams, "new", allowed_paths=["**"])
    teams.write("src/a.py", "changed = 2\n")
    teams.commit("a job that approves itself")
    out = score(teams, "--base", "main")
    assert out.exit_code == 2 and out.codes == {"manifest-invalid"}  # no job file at base, no single manifest


def test_the_job_can_be_named_explicitly(teams: GitRepo) -> None:
    teams.git("checkout", "-q", "--detach", "main")  # CI's detached checkout: the branch names no job
    teams.write("src/a.py", "changed = 2\n")
    assert score(teams, "--job", "a").exit_code == 0
    out = score(teams, "--job", "b")
    assert (out.codes, out.report["job_id"]) == ({"unlisted-path"}, "b")
    assert score(teams, "--job", "missing").codes == {"manifest-invalid"}
    code, text = run_cli(["--repo", str(teams.root), "--job", "a", "--manifest", "x.json"])
    assert code == 2 and text.endswith("RESULT: FAIL (could not score: usage)\n")
    code, text = run_cli(["--repo", str(teams.root), "--job", "../a"])
    assert code == 2 and text.endswith("RESULT: FAIL (could not score: usage)\n")


def test_a_job_file_must_declare_its_own_job_id(teams: GitRepo) -> None:
    _job_file(teams, "c", job_id="b", allowed_paths=["**"])
    teams.commit("c's file is a copy of someone else's")
    _on(teams, "agent-c", "src/a.py")
    out = score(teams)
    assert out.codes == {"manifest-invalid"} and "declares job_id 'b'" in out.report["violations"][0]["message"]


def test_the_single_manifest_keeps_working(repo: GitRepo) -> None:
    repo.write("src/a.py", "a = 1\n")
    repo.write(
        "job_manifest.json",
        json.dumps({"job_id": "solo", "allowed_paths": ["src/a.py"], "required_test": PASSING_TEST}),
    )
    repo.commit("one job")
    _on(repo, "agent-anything", "src/a.py")  # no .score-diff/jobs/anything.json: the single file
    out = score(repo)
    assert (out.exit_code, out.report["job_id"]) == (0, "solo")


def test_the_job_branch_pattern_is_configurable(teams: GitRepo) -> None:
    _on(teams, "bot/a", "src/b.py")
    assert score(teams, "--job-branch", "bot/*").codes == {"unlisted-path"}
    code, text = run_cli(["--repo", str(teams.root), "--job-branch", "bot"])
    assert code == 2 and "exactly one '*'" in text


def test_jobs_lists_jobs_their_branches_and_pins(teams: GitRepo) -> None:
    import hashlib

    raw = (teams.root / JOBS / "a.json").read_bytes()
    teams.write(f"{JOBS}/a.json.sha256", f"{hashlib.sha256(raw).hexdigest()}  a.json\n")
    teams.write(f"{JOBS}/b.json.sha256", "0" * 64 + "  b.json\n")
    teams.commit("pins")
    teams.git("branch", "agent-a")
    code, out = run_cli(["jobs", "--repo", str(teams.root), "--format", "json"])
    rows = {r["job"]: r for r in json.loads(out)}
    assert code == 0 and set(rows) == {"a", "b"}
    assert (rows["a"]["branch"], rows["a"]["branch_refs"], rows["a"]["pin"]) == (
        "agent-a",
        ["refs/heads/agent-a"],
        "pinned",
    )
    assert (rows["b"]["branch_refs"], rows["b"]["pin"], rows["b"]["valid"]) == ([], "PIN MISMATCH", True)
    code, text = run_cli(["jobs", "--repo", str(teams.root)])
    assert code == 0 and "  a  branch agent-a (agent-a)  pinned  sha256 " in text
    assert "  b  branch agent-b (no branch yet)  PIN MISMATCH  " in text


def test_each_job_is_judged_by_its_own_fence_on_the_server(teams: GitRepo, tmp_path: Path) -> None:
    bare = tmp_path / "server.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(teams.root), str(bare)], check=True)
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m scorer pre-receive\n", encoding="utf-8")
    hook.chmod(0o755)
    teams.git("remote", "add", "origin", str(bare))
    for branch in ("agent-a", "agent-b"):
        _on(teams, branch, "src/b.py")
        teams.commit(f"{branch} edits src/b.py")
    pushed_a = teams.git("push", "-q", "origin", "agent-a", check=False)
    assert pushed_a.returncode != 0 and "FAIL [unlisted-path] src/b.py" in pushed_a.stderr
    assert f"bound to: manifest {JOBS}/a.json sha256" in pushed_a.stderr
    pushed_b = teams.git("push", "-q", "origin", "agent-b", check=False)
    assert pushed_b.returncode == 0, pushed_b.stderr
    assert f"bound to: manifest {JOBS}/b.json sha256" in pushed_b.stderr


def test_a_job_file_only_on_disk_is_never_the_fence(repo: GitRepo) -> None:
    """The commit hook: a job file the agent writes (untracked) must not replace the approved single manifest."""
    repo.write("src/a.py", "a = 1\n")
    repo.write("src/legacy.py", "old = 1\n")
    repo.write(
        "job_manifest.json",
        json.dumps(
            {
                "job_id": "solo",
                "allowed_paths": ["src/a.py"],
                "forbidden_globs": ["src/legacy.py"],
                "required_test": PASSING_TEST,
            }
        ),
    )
    repo.commit("the approved single fence")
    repo.git("checkout", "-q", "-b", "agent-x")
    _job_file(repo, "x", allowed_paths=["**"])
    repo.write("src/legacy.py", "old = 2\n")
    out = score(repo)
    assert out.report["job_id"] == "solo"
    assert {"manifest-changed", "forbidden-path"} <= out.codes
    assert out.paths("manifest-changed") == {f"{JOBS}/x.json"}


def test_on_the_server_b_s_looser_fence_landing_on_main_never_loosens_a(teams: GitRepo, tmp_path: Path) -> None:
    bare = tmp_path / "server.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(teams.root), str(bare)], check=True)
    hook = bare / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m scorer pre-receive\n", encoding="utf-8")
    hook.chmod(0o755)
    teams.git("remote", "add", "origin", str(bare))
    _on(teams, "agent-a", "src/b.py")
    teams.commit("a strays into b's file")
    teams.git("checkout", "-q", "main")
    _job_file(teams, "b", allowed_paths=["**"])
    teams.commit("approve job b, loosely")
    assert teams.git("push", "-q", "origin", "main", check=False).returncode == 0  # main is not scored
    pushed = teams.git("push", "-q", "origin", "agent-a", check=False)
    assert pushed.returncode != 0 and "FAIL [unlisted-path] src/b.py" in pushed.stderr
    assert "job: a " in pushed.stderr


def test_an_edited_job_file_in_the_working_tree_is_flagged_and_never_read(teams: GitRepo) -> None:
    _on(teams, "agent-a", "src/b.py")
    _job_file(teams, "a", allowed_paths=["**"])  # loosened on disk, on a's branch
    out = score(teams)
    assert {"manifest-changed", "unlisted-path"} <= out.codes  # judged by the committed a.json
    assert out.report["job_id"] == "a"
