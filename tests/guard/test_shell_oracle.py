"""bash as the oracle: no command the guard allows changes a path the fence denies when bash runs it.

Each generated command (shell_corpus.py) is decided by the guard against a small repository,
then run by real bash in a throwaway copy of it (PATH pinned to a directory of the real
programs the corpus uses, HOME and the copy's parent in the temp dir, stdin empty, each run
bounded by a timeout), and the files that changed are compared: an allowed command may
change only paths inside allowed_paths. The count of commands tried is in the test's name.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from scorer.guard.decide import ALLOW, TurnView, decide
from scorer.guard.payload import SHELL, ToolCall
from scorer.guard.run import GuardOptions, Loaded, load_fence
from tests.testing.repo import GitRepo
from tests.testing.shell_corpus import corpus

COMMANDS = corpus(300)
PROGRAMS = [
    *("bash", "sh", "cat", "echo", "printf", "tee", "cp", "mv", "rm", "ln", "touch", "truncate", "sed"),
    *("sort", "find", "xargs", "env", "timeout", "nice", "install", "dd", "git", "python3", "true"),
    *("false", "ls", "head", "mkdir"),
]


def _snapshot(top: Path) -> dict[str, str]:
    """Every file and link under `top` (git's own directory aside), by what it holds."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, top)
            if os.path.islink(full):
                found[rel] = "link:" + os.readlink(full)
            else:
                data = Path(full).read_bytes()
                found[rel] = f"{os.stat(full).st_mode:o}:" + hashlib.sha256(data).hexdigest()
    return found


def _changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


class Oracle(NamedTuple):
    repo: GitRepo
    top: Path
    environ: dict[str, str]
    loaded: Loaded


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Oracle:
    top = tmp_path_factory.mktemp("oracle")
    repo = GitRepo(top / "template" / "repo", top / "scratch")
    repo.write("allowed/a.py", "one\ntwo\n")
    repo.write("other/b.py", "alpha\n")
    repo.write("README.txt", "hello\n")
    repo.write("list", "allowed/a.py\n")
    repo.commit("initial")
    repo.manifest(allowed_paths=["allowed/**"])
    bin_dir = top / "bin"
    bin_dir.mkdir()
    for name in PROGRAMS:
        real = shutil.which(name)
        if real:
            (bin_dir / name).symlink_to(real)
    root, git_dir = str(repo.root), str(repo.root / ".git")
    environ = {"PATH": str(bin_dir), "HOME": str(top / "home")}
    loaded = load_fence(root, git_dir, GuardOptions("claude", manifest=str(repo.manifest_path)), dict(os.environ), None)
    return Oracle(repo, top, environ, loaded)


def _decide(oracle: Oracle, command: str) -> str:
    call = ToolCall("claude", "PreToolUse", "Bash", "s", "p", str(oracle.repo.root), None, SHELL, command=command)
    return decide(call, oracle.loaded.fence, TurnView(), frozenset()).action


def _run(oracle: Oracle, command: str, i: int) -> set[str]:
    repo, top = oracle.repo, oracle.top
    place = top / f"run{i}"
    shutil.copytree(repo.root.parent, place, symlinks=True)
    (top / "home").mkdir(exist_ok=True)
    before = _snapshot(place)
    with contextlib.suppress(subprocess.TimeoutExpired):  # what it changed before the timeout still counts
        subprocess.run(
            ["bash", "-c", command],
            cwd=place / "repo",
            env=oracle.environ,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
        )
    changed = _changed(before, _snapshot(place))
    shutil.rmtree(place, ignore_errors=True)
    return changed


def _denied(path: str) -> bool:
    """Whether the fence denies a path (relative to the copy's parent: repo/... is inside)."""
    return not (path.startswith("repo/allowed/") and ".." not in path.split("/"))


@pytest.mark.slow
@pytest.mark.parametrize("count", [len(COMMANDS)], ids=lambda n: f"{n}-commands")
def test_no_allowed_command_changes_a_denied_path(oracle: Oracle, count: int, capsys):
    tally = {"allow": 0, "ask": 0, "deny": 0}
    escapes = []
    ran_a_write = 0
    for i, command in enumerate(COMMANDS):
        action = _decide(oracle, command)
        tally[action] += 1
        changed = _run(oracle, command, i)
        ran_a_write += bool(changed)
        bad = sorted(p for p in changed if _denied(p))
        if action == ALLOW and bad:
            escapes.append((command, bad))
    with capsys.disabled():
        print(f"\nbash oracle: {count} commands, {ran_a_write} changed files; guard {tally}")
    assert escapes == []
    assert tally["allow"] and tally["deny"] and tally["ask"]  # the corpus exercises every answer
