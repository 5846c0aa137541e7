"""An agent that follows only the hints reaches PASS in one retry from each failure state of the
pricing walkthrough (scorer.commands.demo): it runs the command a hint names, removes the line a
hint names, writes the trailers a hint asks for, and reruns score-diff once."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.commands.demo import BUGGY, DECOY, FIXED, LEGACY, TEST
from tests.testing.repo import GitRepo, Outcome

EXTRA_TESTS = "".join(
    f"    def test_more_{n}(self):\n        self.assertEqual(discount(100, 0), 100)\n\n" for n in range(20)
)


@pytest.fixture
def walkthrough(repo: GitRepo) -> GitRepo:
    for path, text in {
        "src/__init__.py": "",
        "src/pricing.py": BUGGY,
        "src/legacy_pricing.py": LEGACY,
        "src/billing_rules.py": "RATE = 1\n",
        "tests/__init__.py": "",
        "tests/test_pricing.py": TEST,
        ".gitignore": "__pycache__/\n",
    }.items():
        repo.write(path, text)
    repo.commit("pricing: buggy discount() and its test")
    repo.git("checkout", "-q", "-b", "agent-fix-discount")
    # The example manifest's fence, with a test this interpreter can run.
    repo.manifest(
        job_id="fix-discount",
        description="Fix discount() in src/pricing.py; its test must pass.",
        allowed_paths=["src/pricing.py", "tests/test_pricing.py", "src/billing_rules.py"],
        forbidden_globs=["**/.env", "src/legacy_pricing.py"],
        max_files_changed=2,
        max_hunk_lines=40,
        required_test=[sys.executable, "-m", "unittest", "tests.test_pricing", "-q"],
        forbidden_substrings=["eval(", "exec(", "subprocess", "os.system", "pickle"],
        sensitive_globs=["src/billing_rules.py"],
    )
    return repo


def decoy_edit(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED)
    r.write("src/legacy_pricing.py", DECOY)


def forbidden_token(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED + "\n\nCHECK = eval('1')\n")


def large_hunk(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED)
    r.write("tests/test_pricing.py", TEST.replace("\n\nif __name__", "\n" + EXTRA_TESTS + "\nif __name__"))


def env_file(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED)
    r.write(".env", "DISCOUNT_API=on\n")


def weakened_test(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED)
    r.write("tests/test_pricing.py", TEST.replace("self.assertEqual(discount(80, 0), 80)", "pass"))


def sensitive_without_trailers(r: GitRepo) -> None:
    r.write("src/pricing.py", FIXED)
    r.write("src/billing_rules.py", "RATE = 2\n")
    r.commit("Fix discount and the billing rate")


STATES: dict[str, tuple[Callable[[GitRepo], None], tuple[str, ...], set[str]]] = {
    "decoy-edit": (decoy_edit, (), {"forbidden-path", "forbidden-token"}),
    "forbidden-token": (forbidden_token, (), {"forbidden-token"}),
    "too-large-hunk": (large_hunk, (), {"hunk-too-large"}),
    "dot-env": (env_file, (), {"forbidden-path", "sensitive-path"}),
    "weakened-test": (weakened_test, (), {"test-weakened"}),
    "sensitive-path-without-trailers": (sensitive_without_trailers, ("--base", "main"), {"sensitive-path"}),
}
_FILLED = {
    "<file>:<line>": "src/pricing.py:4",
    "<why>": "the rate feeds discount()",
    "<how to undo it>": "git revert HEAD",
}


def follow(repo: GitRepo, hint: str) -> None:
    """Do what one hint says, and nothing else."""
    if m := re.search(r"e\.g\. `(git commit [^`]+)`", hint):  # the trailers, placeholders filled in
        command = m.group(1)
        for placeholder, value in _FILLED.items():
            command = command.replace(placeholder, value)
        return _sh(repo, command)
    if m := re.search(r"run `([^`]+)`", hint):
        return _sh(repo, m.group(1))
    if m := re.match(r"remove line (\d+) of (\S+) containing", hint):
        path = repo.root / m.group(2)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        del lines[int(m.group(1)) - 1]
        path.write_text("".join(lines), encoding="utf-8")
        if re.search(r"\) and commit; ", hint):  # --base mode: the removal is a commit, through the hook
            _sh(repo, f"git commit -q -am {shlex.quote('Remove what ' + m.group(2) + ' may not hold')}")
        return None
    assert hint.startswith("undoing your change to"), f"a hint the agent cannot act on: {hint}"
    return None


def _sh(repo: GitRepo, command: str) -> None:
    proc = subprocess.run(command, shell=True, cwd=repo.root, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, (command, proc.stderr)


def _line_removals_last(hints: list[str]) -> list[str]:
    """Several line removals in one file go bottom-up, so each line number stays right."""
    removals = [h for h in hints if h.startswith("remove line ")]
    others = [h for h in hints if not h.startswith("remove line ")]
    return others + sorted(removals, key=lambda h: -int(h.split()[2]))


@pytest.mark.parametrize("state", STATES, ids=STATES)
def test_following_the_hints_reaches_pass_in_one_retry(walkthrough: GitRepo, state: str):
    make, args, codes = STATES[state]
    make(walkthrough)
    first: Outcome = walkthrough.score(*args, skip_test=False)
    assert (first.exit_code, first.codes) == (1, codes), first.text
    hints = [v["hint"] for v in first.report["violations"]]
    assert all(hints), first.text
    for hint in _line_removals_last(hints):
        follow(walkthrough, hint)
    retry = walkthrough.score(*args, skip_test=False)
    assert (retry.exit_code, retry.last_line) == (0, "RESULT: PASS"), retry.text
    assert retry.report["test"]["status"] == "passed"
    assert Path(walkthrough.root, "src/pricing.py").read_text(encoding="utf-8") == FIXED + (
        "\n\n" if state == "forbidden-token" else ""
    )


# -- with the hook installed: the same states, from the working tree, --base and the server ------
#
# The fence is committed on main and the hooks are installed with --since main, as init installs
# them. Every commit a hint asks for goes through the hook, so a hint that CI or the server gives
# must lead to a commit the hook accepts: one verdict at every gate (issue 21, item 3).

FENCE = "job_manifest.json"


@pytest.fixture
def gated(repo: GitRepo) -> GitRepo:
    from scorer.main import main

    for path, text in {
        "src/__init__.py": "",
        "src/pricing.py": BUGGY,
        "src/legacy_pricing.py": LEGACY,
        "src/billing_rules.py": "RATE = 1\n",
        "tests/__init__.py": "",
        "tests/test_pricing.py": TEST,
        ".gitignore": "__pycache__/\n",
    }.items():
        repo.write(path, text)
    repo.manifest_path = repo.write_manifest(
        repo.root / FENCE,
        job_id="fix-discount",
        description="Fix discount() in src/pricing.py; its test must pass.",
        allowed_paths=["src/pricing.py", "tests/test_pricing.py", "src/billing_rules.py"],
        forbidden_globs=["**/.env", "src/legacy_pricing.py"],
        max_files_changed=2,
        max_hunk_lines=40,
        required_test=[sys.executable, "-m", "unittest", "tests.test_pricing", "-q"],
        forbidden_substrings=["eval(", "exec(", "subprocess", "os.system", "pickle"],
        sensitive_globs=["src/billing_rules.py"],
    )
    assert main(["pin", "--repo", str(repo.root)], stdout=io.StringIO()) == 0
    repo.commit("pricing, and the fence for job fix-discount")
    installed = subprocess.run(
        [sys.executable, "-m", "scorer", "install-hook", "--since", "main"], cwd=repo.root, capture_output=True
    )
    assert installed.returncode == 0, installed.stdout
    repo.git("checkout", "-q", "-b", "agent-fix-discount")
    return repo


def _commit_through_the_hook(repo: GitRepo, message: str) -> subprocess.CompletedProcess[str]:
    repo.git("add", "-A")
    return repo.git("commit", "-q", "-m", message, check=False)


def _follow_all(repo: GitRepo, hints: list[str]) -> None:
    assert all(hints), hints
    for hint in _line_removals_last(hints):
        follow(repo, hint)


@pytest.mark.parametrize("state", STATES, ids=STATES)
def test_from_the_working_tree_with_the_hook_installed(gated: GitRepo, state: str) -> None:
    make, _, codes = STATES[state]
    make(gated)
    first = gated.score("--since", "main", skip_test=False)  # what the hook runs
    assert (first.exit_code, first.codes) == (1, codes), first.text
    if state != "sensitive-path-without-trailers":
        assert _commit_through_the_hook(gated, "the work").returncode != 0  # the hook blocks it
    _follow_all(gated, [v["hint"] for v in first.report["violations"]])
    gated.git("add", "-A")  # the retry is the commit: what it stages is what the hook scores
    retry = gated.score("--since", "main", skip_test=False)
    assert (retry.exit_code, retry.last_line) == (0, "RESULT: PASS"), retry.text
    if gated.git("status", "--porcelain").stdout.strip():  # the trailer hint committed it already
        done = _commit_through_the_hook(gated, "Fix discount")
        assert done.returncode == 0, done.stdout + done.stderr
    assert gated.score("--base", "main", skip_test=False).exit_code == 0  # and CI agrees


@pytest.mark.parametrize("state", STATES, ids=STATES)
def test_from_base_mode_with_the_hook_installed(gated: GitRepo, state: str) -> None:
    make, _, codes = STATES[state]
    make(gated)
    gated.commit("the work, committed past the hook")  # --no-verify: what CI exists for
    first = gated.score("--base", "main", skip_test=False)
    assert (first.exit_code, first.codes) == (1, codes), first.text
    _follow_all(gated, [v["hint"] for v in first.report["violations"]])  # each commit goes through the hook
    assert not gated.git("status", "--porcelain").stdout.strip() or state == "sensitive-path-without-trailers"
    retry = gated.score("--base", "main", skip_test=False)
    assert (retry.exit_code, retry.last_line) == (0, "RESULT: PASS"), retry.text
    assert gated.score("--since", "main", skip_test=False).exit_code == 0  # and the hook agrees


def test_a_decoy_committed_then_reverted_passes_at_every_gate(gated: GitRepo, tmp_path: Path) -> None:
    gated.write("src/legacy_pricing.py", DECOY)
    gated.commit("decoy, past the hook")
    gated.write("src/pricing.py", FIXED)
    blocked = _commit_through_the_hook(gated, "Fix discount")  # the hook sees the decoy the branch still holds
    assert blocked.returncode != 0 and "FAIL [forbidden-path] src/legacy_pricing.py" in blocked.stderr
    gated.write("src/legacy_pricing.py", LEGACY)  # reverted
    done = _commit_through_the_hook(gated, "Fix discount, and revert the decoy")
    assert done.returncode == 0, done.stderr  # the hook: nothing of the decoy is left
    assert gated.score("--base", "main", skip_test=False).last_line == "RESULT: PASS"  # CI
    server = _server(gated, tmp_path)
    pushed = gated.git("push", "-q", "origin", "agent-fix-discount", check=False)
    assert pushed.returncode == 0, pushed.stderr  # the server
    assert server.is_dir()


def _server(repo: GitRepo, tmp_path: Path) -> Path:
    bare = tmp_path / "server.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    repo.git("remote", "add", "origin", str(bare))
    repo.git("push", "-q", "origin", "main")
    script = bare / "hooks" / "pre-receive"
    script.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m scorer pre-receive\n", encoding="utf-8")
    script.chmod(0o755)
    return bare


_REMOTE_HINT = re.compile(r"^remote:\s+-> do: (.*?)\s*$", re.M)


@pytest.mark.parametrize("state", STATES, ids=STATES)
def test_from_the_server_with_the_hook_installed(gated: GitRepo, state: str, tmp_path: Path) -> None:
    make, _, codes = STATES[state]
    _server(gated, tmp_path)
    make(gated)
    gated.commit("the work, committed past the hook")
    rejected = gated.git("push", "-q", "origin", "agent-fix-discount", check=False)
    assert rejected.returncode != 0, rejected.stderr
    found = {c for c in codes if f"FAIL [{c}]" in rejected.stderr}
    assert found == codes, rejected.stderr
    _follow_all(gated, _REMOTE_HINT.findall(rejected.stderr))
    accepted = gated.git("push", "-q", "origin", "agent-fix-discount", check=False)
    assert accepted.returncode == 0, accepted.stderr
