"""The fence is pinned to the session (issue 28, item 4) and paths are judged by identity (item 5).

The repository and manifest come from the session's first call; a later call whose cwd is in
another repository, or in a repository nested inside the fence with a manifest of its own,
is still judged by the session's fence.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scorer.guard.decide import ALLOW
from scorer.guard.run import GuardOptions, evaluate
from tests.testing.repo import GitRepo


@pytest.fixture
def fenced(committed: GitRepo) -> GitRepo:
    committed.write("tests/test_pricing.py", "def test_price():\n    assert True\n")
    committed.write("src/x/keep.py", "\n")
    committed.write("job_manifest.json", json.dumps({"job_id": "fence", "allowed_paths": ["allowed/**", "src/**"],
                                                     "forbidden_globs": ["tests/**", "**/conftest.py"], "required_test": ["true"]}))  # fmt: skip
    committed.commit("tests")
    committed.manifest(allowed_paths=["allowed/**", "src/**"], forbidden_globs=["tests/**"])
    return committed


def _send(cwd: Path | str, tool: str, tool_input: dict, manifest: str | None = None, session: str = "s1"):
    payload = {"session_id": session, "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": tool,
               "tool_input": tool_input}  # fmt: skip
    opts = GuardOptions("codex" if tool == "Bash" else "claude", manifest=manifest, log=False)
    return evaluate(json.dumps(payload).encode(), opts, dict(os.environ)).decision


def _nested(fenced: GitRepo) -> Path:
    """`cd src/x && git init`, with a manifest of its own that allows everything."""
    nested = fenced.root / "src" / "x"
    fenced.git("init", "-q", "-b", "main", cwd=nested)
    (nested / "job_manifest.json").write_text(json.dumps({"job_id": "mine", "allowed_paths": ["**"],
                                                          "required_test": ["true"]}))  # fmt: skip
    fenced.git("add", "-A", cwd=nested)
    fenced.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "m", cwd=nested)
    return nested


def test_a_call_from_a_nested_repository_is_judged_by_the_sessions_fence(fenced: GitRepo):
    first = _send(fenced.root, "Write", {"file_path": f"{fenced.root}/allowed/a.py", "content": "x\n"})
    assert first.action == ALLOW
    nested = _nested(fenced)
    target = nested / "conftest.py"  # the nested manifest allows it; the session's forbids it
    d = _send(nested, "Write", {"file_path": str(target), "content": "x\n"})  # found from cwd: the nested one
    assert d.action != ALLOW and d.code == "forbidden-path", d.reason
    shell = _send(nested, "Bash", {"command": "git status"})
    assert shell.action != ALLOW and "nested" in shell.reason, shell.reason


def test_a_call_from_another_repository_is_judged_by_the_sessions_fence(fenced: GitRepo, tmp_path: Path):
    _send(fenced.root, "Write", {"file_path": f"{fenced.root}/allowed/a.py", "content": "x\n"})
    other = GitRepo(tmp_path / "other", tmp_path / "other-scratch")
    other.write("f.py", "\n")
    other.write("job_manifest.json", json.dumps({"job_id": "o", "allowed_paths": ["**"], "required_test": ["true"]}))
    other.commit("o")
    d = _send(other.root, "Write", {"file_path": f"{other.root}/f.py", "content": "x\n"})
    assert d.code == "outside-repo", d.reason


def test_the_neighbour_session_in_its_own_repository_is_its_own(fenced: GitRepo, tmp_path: Path):
    other = GitRepo(tmp_path / "other", tmp_path / "other-scratch")
    other.write("allowed/f.py", "\n")
    other.commit("o")
    d = _send(other.root, "Write", {"file_path": f"{other.root}/allowed/f.py", "content": "x\n"},
              str(other.manifest_path), session="s2")  # fmt: skip
    assert d.action == ALLOW, d.reason


def test_a_hard_link_to_a_protected_file_is_that_file(fenced: GitRepo):
    os.link(fenced.root / "tests" / "test_pricing.py", fenced.root / "src" / "t")
    d = _send(fenced.root, "Write", {"file_path": f"{fenced.root}/src/t", "content": "x\n"}, str(fenced.manifest_path))
    assert d.action != ALLOW and d.code == "forbidden-path", d.reason
    shell = _send(fenced.root, "Bash", {"command": "echo x >> src/t"}, str(fenced.manifest_path))
    assert shell.action != ALLOW and shell.code == "forbidden-path", shell.reason
    plain = _send(fenced.root, "Bash", {"command": "echo x >> src/x/keep.py"}, str(fenced.manifest_path))
    assert plain.action == ALLOW, plain.reason  # the neighbour: one name, allowed


def test_making_a_hard_link_to_a_protected_file_is_denied(fenced: GitRepo):
    d = _send(fenced.root, "Bash", {"command": "ln tests/test_pricing.py src/t"}, str(fenced.manifest_path))
    assert d.code == "forbidden-path", d.reason
    ok = _send(fenced.root, "Bash", {"command": "ln src/x/keep.py src/t"}, str(fenced.manifest_path))
    assert ok.action == ALLOW, ok.reason


def test_a_symlink_made_in_the_command_is_followed(fenced: GitRepo):
    fenced.manifest(allowed_paths=["allowed/**", "src/**"], forbidden_globs=["tests/**"], allow_symlinks=True)
    d = _send(fenced.root, "Bash", {"command": "ln -s ../tests/test_pricing.py src/t && echo x > src/t"},
              str(fenced.manifest_path))  # fmt: skip
    assert d.code == "forbidden-path", d.reason
    ok = _send(fenced.root, "Bash", {"command": "ln -s x/keep.py src/t && echo x > src/t"}, str(fenced.manifest_path))
    assert ok.action == ALLOW, ok.reason


@pytest.mark.skipif(os.name == "nt", reason="on Windows a backslash is a separator")
def test_a_backslash_is_part_of_a_name_on_posix(fenced: GitRepo):
    # bash writes one file named `src\..\..\tests\x` inside src/; the guard must not read it as tests/x
    d = _send(
        fenced.root / "src", "Bash", {"command": "echo x > 'x\\\\..\\\\..\\\\tests\\\\y'"}, str(fenced.manifest_path)
    )
    assert d.action == ALLOW, d.reason
