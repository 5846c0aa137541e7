"""With the jail rewrite on, the unknown commands of the bash-oracle corpus change no denied path.

Each generated command (tests/testing/shell_corpus.py) is decided against a fresh copy of a
small repository as Claude Code's hook decides it; an unknown command comes back rewritten
into the job's jail (`score-diff jail ... -- bash -c CMD`), and that rewrite is run by real
bash in the copy. No allowed command, as it is or rewritten, may change a path outside
allowed_paths. The count of commands is in the output. Needs the real jail (scorer.jail,
issue 26); without it the test is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from scorer.guard.decide import ALLOW
from scorer.guard.run import GuardOptions, evaluate
from tests.testing.jail import REAL_JAIL, snapshot
from tests.testing.repo import GitRepo
from tests.testing.shell_corpus import corpus

COMMANDS = corpus(300)


@pytest.mark.slow
@pytest.mark.skipif(not REAL_JAIL, reason="scorer.jail (the jail, issue 26) is not installed in this build")
def test_no_rewritten_command_changes_a_denied_path(tmp_path: Path, capsys):
    template = GitRepo(tmp_path / "template" / "repo", tmp_path / "scratch")
    template.write("allowed/a.py", "one\ntwo\n")
    template.write("other/b.py", "alpha\n")
    template.write("README.txt", "hello\n")
    template.write("list", "allowed/a.py\n")
    template.commit("initial")
    manifest = template.manifest(allowed_paths=["allowed/**"])
    tally = {"as it is": 0, "jailed": 0, "refused": 0}
    escapes = []
    for i, command in enumerate(COMMANDS):
        place = tmp_path / f"run{i}"
        shutil.copytree(template.root.parent, place, symlinks=True)
        root = place / "repo"
        payload = {"session_id": f"c{i}", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}}  # fmt: skip
        opts = GuardOptions("claude", str(manifest), log=False)
        d = evaluate(json.dumps(payload).encode(), opts, dict(os.environ)).decision
        if d.action != ALLOW:
            tally["refused"] += 1
            shutil.rmtree(place, ignore_errors=True)
            continue
        tally["jailed" if d.rewrite else "as it is"] += 1
        before = snapshot(place)
        subprocess.run(["bash", "-c", d.rewrite or command], cwd=root, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=60, check=False)  # fmt: skip
        after = snapshot(place)
        bad = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p)
                     and not p.startswith("repo/allowed/"))  # fmt: skip
        if bad:
            escapes.append((command, bool(d.rewrite), bad))
        shutil.rmtree(place, ignore_errors=True)
    with capsys.disabled():
        print(f"\njailed corpus: {len(COMMANDS)} commands; {tally}")
    assert escapes == []
