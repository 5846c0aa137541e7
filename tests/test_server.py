"""The gate a git server enforces: a real bare repository, hooks installed in it, real `git push`."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorer import main as cli
from tests.testing.repo import PASSING_TEST, GitRepo

ZERO = "0" * 40
DECOY = "src/legacy_pricing.py"


class Server:
    """A bare repository with a score-diff hook, and a clone that pushes to it."""

    def __init__(self, tmp_path: Path) -> None:
        self.bare = tmp_path / "server.git"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(self.bare)], check=True)
        self.clone = GitRepo(tmp_path / "clone", tmp_path / "scratch")
        self.clone.git("remote", "add", "origin", str(self.bare))
        self.clone.write("src/pricing.py", "def discount(p):\n    return p\n")
        self.clone.write(DECOY, "OLD = 1\n")
        self.clone.write_manifest(
            self.clone.root / "job_manifest.json",
            job_id="pricing",
            allowed_paths=["src/pricing.py"],
            forbidden_globs=[DECOY],
            required_test=PASSING_TEST,
        )
        self.clone.commit("initial")
        self.push("main")

    def install(self, hook: str = "pre-receive", *args: str) -> None:
        script = self.bare / "hooks" / hook
        words = " ".join(f"'{w}'" for w in (sys.executable, "-m", "scorer", hook, *args))
        seen = self.bare / "quarantine-seen"  # what git set for the hook, to show the push was quarantined
        script.write_text(f'#!/bin/sh\necho "$GIT_QUARANTINE_PATH" > \'{seen}\'\nexec {words} "$@"\n', encoding="utf-8")
        script.chmod(0o755)

    def push(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.clone.git("push", "-q", "origin", *args, check=False)

    def server_ref(self, ref: str) -> str | None:
        proc = subprocess.run(
            ["git", "--git-dir", str(self.bare), "rev-parse", "-q", "--verify", ref], capture_output=True, text=True
        )
        return proc.stdout.strip() or None

    def agent_commit(self, path: str, content: str, branch: str = "agent-fix") -> str:
        self.clone.git("checkout", "-q", "-B", branch, "main")
        self.clone.write(path, content)
        return self.clone.commit(f"edit {path}")


@pytest.fixture
def server(tmp_path: Path) -> Server:
    s = Server(tmp_path)
    s.install()
    return s


def test_decoy_push_is_rejected_and_the_fix_accepted(server: Server) -> None:
    server.agent_commit(DECOY, "OLD = 2\n")
    rejected = server.push("agent-fix")
    assert rejected.returncode != 0
    assert f"remote: FAIL [forbidden-path] {DECOY}: " in rejected.stderr
    assert "remote:   -> do: " in rejected.stderr  # the agent's next step, once per violation
    assert "remote: score-diff: refs/heads/agent-fix: rejected;" in rejected.stderr
    assert "[remote rejected] agent-fix -> agent-fix (pre-receive hook declined)" in rejected.stderr
    assert server.server_ref("refs/heads/agent-fix") is None

    fix = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    accepted = server.push("agent-fix")
    assert accepted.returncode == 0, accepted.stderr
    assert "remote: test: skipped (not run on the git server: a bare repository has no working tree;" in accepted.stderr
    assert "remote: RESULT: PASS (with test skipped)" in accepted.stderr
    assert server.server_ref("refs/heads/agent-fix") == fix
    # The pushed objects were visible only through git's quarantine variables, passed through.
    assert "tmp_objdir-incoming" in (server.bare / "quarantine-seen").read_text(encoding="utf-8")


def test_a_push_to_main_is_untouched(server: Server) -> None:
    server.clone.git("checkout", "-q", "main")
    server.clone.write(DECOY, "OLD = 3\n")
    head = server.clone.commit("maintainer edit")
    pushed = server.push("main")
    assert pushed.returncode == 0, pushed.stderr
    assert "score-diff" not in pushed.stderr
    assert server.server_ref("refs/heads/main") == head


def test_force_push_of_a_decoy_over_an_accepted_branch_is_rejected(server: Server) -> None:
    good = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    assert server.push("agent-fix").returncode == 0
    server.agent_commit(DECOY, "OLD = 2\n")  # rewritten from main: not a fast-forward
    forced = server.push("--force", "agent-fix")
    assert forced.returncode != 0
    assert f"FAIL [forbidden-path] {DECOY}" in forced.stderr
    assert server.server_ref("refs/heads/agent-fix") == good


def test_a_later_push_is_scored_as_the_whole_branch(server: Server) -> None:
    """Each push is judged from the merge-base with main, not from the ref's old value."""
    server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    assert server.push("agent-fix").returncode == 0
    server.clone.write(DECOY, "OLD = 2\n")
    server.clone.commit("sneak the decoy into a follow-up")
    later = server.push("agent-fix")
    assert later.returncode != 0 and f"FAIL [forbidden-path] {DECOY}" in later.stderr


def test_deletion_is_allowed_unless_denied(server: Server) -> None:
    server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    assert server.push("agent-fix").returncode == 0
    server.install("pre-receive", "--deny-delete")
    denied = server.push("--delete", "agent-fix")
    assert denied.returncode != 0
    assert "refs/heads/agent-fix: rejected: deleting an agent ref is denied" in denied.stderr
    server.install("pre-receive")
    assert server.push("--delete", "agent-fix").returncode == 0
    assert server.server_ref("refs/heads/agent-fix") is None


def test_a_branch_created_at_main_has_nothing_to_score(server: Server) -> None:
    server.clone.git("checkout", "-q", "-b", "agent-new", "main")
    pushed = server.push("agent-new")
    assert pushed.returncode == 0, pushed.stderr
    assert "accepted: no commits beyond refs/heads/main" in pushed.stderr


def test_pre_receive_rejects_the_whole_push_but_update_only_the_agent_ref(server: Server) -> None:
    """git has one pre-receive verdict per push; the update hook decides ref by ref."""
    server.clone.git("checkout", "-q", "main")
    server.clone.write("README.md", "docs\n")
    main_head = server.clone.commit("docs")
    server.agent_commit(DECOY, "OLD = 2\n")
    both = server.push("main", "agent-fix")
    assert both.returncode != 0 and server.server_ref("refs/heads/main") != main_head

    (server.bare / "hooks" / "pre-receive").unlink()
    server.install("update")
    again = server.push("main", "agent-fix")
    assert again.returncode != 0
    assert f"FAIL [forbidden-path] {DECOY}" in again.stderr
    assert server.server_ref("refs/heads/main") == main_head  # the unrelated ref went through
    assert server.server_ref("refs/heads/agent-fix") is None


def test_a_manifest_missing_on_main_rejects_agent_refs_only(server: Server) -> None:
    server.install("pre-receive", "--manifest", "jobs/none.json")
    head = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    agent = server.push("agent-fix")
    assert agent.returncode != 0
    assert "remote: RESULT: FAIL (could not score: manifest-invalid)" in agent.stderr
    out = io.StringIO()
    assert cli.main(["log", "--repo", str(server.bare), "--job", "fix", "--format", "json"], stdout=out) == 0
    (row,) = json.loads(out.getvalue())  # the rejected push is logged under the job its branch names
    assert (row["exit_code"], row["head"], row["branch"], row["gate"]) == (2, head, "agent-fix", "server")
    server.clone.git("checkout", "-q", "main")
    server.clone.write("README.md", "docs\n")
    assert server.push("main").returncode == 0


def test_the_agent_cannot_loosen_its_fence_on_its_own_branch(server: Server) -> None:
    server.clone.git("checkout", "-q", "-B", "agent-fix", "main")
    server.clone.write_manifest(
        server.clone.root / "job_manifest.json", job_id="pricing", allowed_paths=["**"], required_test=PASSING_TEST
    )
    server.clone.write(DECOY, "OLD = 2\n")
    server.clone.commit("loosen")
    pushed = server.push("agent-fix")
    assert pushed.returncode != 0
    assert "FAIL [manifest-changed] job_manifest.json" in pushed.stderr
    assert f"FAIL [forbidden-path] {DECOY}" in pushed.stderr


def test_the_server_decision_is_logged(server: Server) -> None:
    server.agent_commit(DECOY, "OLD = 2\n")
    server.push("agent-fix")
    out = io.StringIO()
    assert cli.main(["log", "--repo", str(server.bare), "--format", "json"], stdout=out) == 0
    (row,) = json.loads(out.getvalue())
    assert (row["verdict"], row["job_id"], row["mode"]) == ("FAIL", "pricing", "range")
    assert (row["gate"], row["branch"], row["test_status"]) == ("server", "agent-fix", "not-run")


# -- in process: the ref-update lines and what each ref gets ----------------------------------


def _pre_receive(bare: Path, lines: str, *args: str) -> tuple[int, str]:
    err = io.StringIO()
    old_err, sys.stderr = sys.stderr, err
    try:
        code = cli.main(
            ["pre-receive", "--repo", str(bare), "--no-log", *args], stdin=io.StringIO(lines), stdout=io.StringIO()
        )
    finally:
        sys.stderr = old_err
    return code, err.getvalue()


def test_unrelated_refs_are_accepted_without_opening_the_repository(tmp_path: Path) -> None:
    lines = f"{ZERO} {'1' * 40} refs/heads/main\n{'2' * 40} {'3' * 40} refs/tags/v1\n"
    assert _pre_receive(tmp_path / "not-a-repo", lines) == (0, "")


def test_an_agent_ref_that_cannot_be_scored_is_rejected(tmp_path: Path) -> None:
    code, err = _pre_receive(tmp_path / "not-a-repo", f"{ZERO} {'1' * 40} refs/heads/agent-x\n")
    assert code == 2
    assert "RESULT: FAIL (could not score: git-error)" in err


@pytest.mark.parametrize("line", ["garbage\n", f"{ZERO} {'1' * 40}\n", f"{ZERO} xyz refs/heads/agent-x\n"])
def test_a_malformed_update_line_rejects(tmp_path: Path, line: str) -> None:
    out = io.StringIO()
    code = cli.main(["pre-receive", "--repo", str(tmp_path), "--no-log"], stdin=io.StringIO(line), stdout=out)
    assert code == 2 and out.getvalue().endswith("RESULT: FAIL (could not score: usage)\n")


def test_the_agent_pattern_is_configurable(server: Server) -> None:
    server.install("pre-receive", "--agent-ref", "refs/heads/bot/*")
    server.agent_commit(DECOY, "OLD = 2\n", branch="bot/one")
    assert server.push("bot/one").returncode != 0
    server.agent_commit(DECOY, "OLD = 2\n", branch="agent-fix")
    assert server.push("agent-fix").returncode == 0  # no longer an agent ref on this server


def test_quarantine_outside_the_repository_is_refused(server: Server, tmp_path: Path, monkeypatch) -> None:
    head = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    server.clone.git("push", "-q", "--no-verify", str(server.bare), f"{head}:refs/heads/parked")
    monkeypatch.setenv("GIT_QUARANTINE_PATH", str(tmp_path))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path))
    code, err = _pre_receive(server.bare, f"{ZERO} {head} refs/heads/agent-fix\n")
    assert code == 2 and "outside" in err and "could not score: git-error" in err


def test_score_base_works_in_a_bare_repository_and_worktree_mode_refuses(server: Server) -> None:
    (server.bare / "hooks" / "pre-receive").unlink()
    decoy = server.agent_commit(DECOY, "OLD = 2\n")
    fix = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n", branch="agent-ok")
    assert server.push("agent-fix", "agent-ok").returncode == 0
    manifest = Path("job_manifest.json")  # inside the repository, read at --base
    ranged = server.clone.score("--base", "main", "--head", decoy, manifest=manifest, repo_arg=str(server.bare))
    assert ranged.exit_code == 1 and ranged.codes == {"forbidden-path"}
    # Outside a server hook a bare repository cannot skip the test silently (core.bare in a clone).
    tested = server.clone.score(
        "--base", "main", "--head", fix, skip_test=False, manifest=manifest, repo_arg=str(server.bare)
    )
    assert (tested.exit_code, tested.codes) == (1, {"test-failed"})
    assert "bare repository has no working tree" in tested.report["test"]["reason"]
    worktree = server.clone.score(manifest=manifest, repo_arg=str(server.bare))
    assert (worktree.exit_code, worktree.codes) == (2, {"git-error"})


def test_a_fresh_clone_with_only_origin_main_is_told_the_remote_ref(server: Server, tmp_path: Path) -> None:
    (server.bare / "hooks" / "pre-receive").unlink()
    server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    assert server.push("agent-fix").returncode == 0
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--branch", "agent-fix", str(server.bare), str(ci)], check=True)
    out = server.clone.score("--base", "main", manifest=Path("job_manifest.json"), repo_arg=str(ci))
    assert out.codes == {"git-error"}
    message = out.report["violations"][0]["message"]
    assert "this clone has only the remote-tracking origin/main: pass --base origin/main" in message
    ok = server.clone.score("--base", "origin/main", manifest=ci / "job_manifest.json", repo_arg=str(ci))
    assert ok.exit_code == 0, ok.text
    assert "bound to: manifest job_manifest.json sha256 " in ok.text


def test_run_test_runs_the_required_test_in_a_temporary_checkout(server: Server) -> None:
    # The test passes only when the pushed src/pricing.py applies the discount.
    check = "import pathlib, sys; sys.exit(0 if '0.9' in pathlib.Path('src/pricing.py').read_text() else 1)"
    server.clone.git("checkout", "-q", "main")
    server.clone.write_manifest(
        server.clone.root / "job_manifest.json",
        job_id="pricing",
        allowed_paths=["src/pricing.py"],
        forbidden_globs=[DECOY],
        required_test=[sys.executable, "-c", check],
    )
    server.clone.commit("the fence runs a real test")
    assert server.push("main").returncode == 0
    server.install("pre-receive", "--run-test")
    server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.5\n")
    wrong = server.push("agent-fix")
    assert wrong.returncode != 0
    assert "remote: FAIL [test-failed] -: " in wrong.stderr
    fix = server.agent_commit("src/pricing.py", "def discount(p):\n    return p * 0.9\n")
    right = server.push("agent-fix")
    assert right.returncode == 0, right.stderr
    assert "remote: test: passed (" in right.stderr and "remote: RESULT: PASS" in right.stderr
    assert "ran in a temporary checkout of the pushed commit" in right.stderr
    assert server.server_ref("refs/heads/agent-fix") == fix
    assert not (server.bare / "worktrees").exists()  # no git worktree was registered in the repository


def test_run_test_runs_inside_the_envelope(server: Server) -> None:
    """The same envelope on the git server: pushed code that reaches for the network fails test-envelope.
    It raises the connect's audit event alone, so no packet is sent, with a namespace or without."""
    server.clone.git("checkout", "-q", "main")
    server.clone.write_manifest(
        server.clone.root / "job_manifest.json",
        job_id="pricing",
        allowed_paths=["src/pricing.py"],
        forbidden_globs=[DECOY],
        required_test=[sys.executable, "-c", "import runpy; runpy.run_path('src/pricing.py')"],
    )
    server.clone.commit("the fence runs the module")
    assert server.push("main").returncode == 0
    server.install("pre-receive", "--run-test")
    phone = (  # the connect's audit event only (no socket I/O, no packet): what the observer judges
        "import socket, sys\nwith socket.socket() as s:\n"
        "    try:\n        sys.audit('socket.connect', s, ('192.0.2.1', 443))\n    except OSError:\n        pass\n"
    )
    server.agent_commit("src/pricing.py", phone)
    pushed = server.push("agent-fix")
    assert pushed.returncode != 0
    assert "remote: FAIL [test-envelope] -: the required test connected to 192.0.2.1:443" in pushed.stderr
