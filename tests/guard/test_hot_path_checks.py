"""What the guard's Write path costs in checks/: no pattern compiled and neither fnmatch nor re held
by checks/job.py or checks/sensitive.py, unless the manifest brings its own regexes (issue 29).

A compile is 0.2-0.65M instructions of every agent tool call and `import re` 25M; the forbidden
substrings are found with str.find and the blast-radius table is read with str tests. What still
holds `re` on a Write is written out below (nothing now), so adding it back is a visible diff here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.testing import imports
from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]
BENCHMARK = {"allowed_paths": ["**"], "forbidden_substrings": ["eval(", "exec(", "pickle"]}  # benchmarks/generate.py

# The hook in a fresh interpreter: who compiles each pattern re has not cached, and which of our
# modules hold `re` or `fnmatch` when the answer is written.
HOOK = """
import json, re, sys
compiled = []
real = re._compile
def spy(pattern, flags):
    if (type(pattern), pattern, flags) not in re._cache:
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith(("re", "fnmatch")):
            frame = frame.f_back
        compiled.append(frame.f_globals.get("__name__", "?") if frame is not None else "?")
    return real(pattern, flags)
re._compile = spy
from scorer.entry import main
sys.argv = ["score-diff", *sys.argv[1:]]
try:
    code = main()
finally:
    ours = {n: m for n, m in sys.modules.items() if n.startswith("scorer")}
    held = sorted(n for n, m in ours.items() if "re" in vars(m) or "fnmatch" in vars(m))
    sys.stderr.write("\\nSEEN " + json.dumps([compiled, held]) + "\\n")
sys.exit(code)
"""

# Modules on the Write path that hold `re`: none is left, so re is not loaded on a Write whose manifest
# brings no regex (test_hot_path_imports.py; a glob that needs a regex, `*.pem`, still loads it).
STILL_HOLD_RE: list[str] = []


def _write(repo: GitRepo, content: str) -> bytes:
    """Claude Code's PreToolUse payload for a Write of `content` to allowed/new.py."""
    payload = {
        "session_id": "s",
        "prompt_id": "p",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": f"{repo.root}/allowed/new.py", "content": content},
    }
    return json.dumps(payload).encode()


def seen(repo: GitRepo, content: str, *args: str) -> tuple[int, str, list[str], list[str]]:
    """(exit code, stdout, modules that compiled a pattern, our modules holding re or fnmatch)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(repo.scratch)}
    argv = [sys.executable, "-c", HOOK, "guard", "--agent", "claude", *args]
    proc = subprocess.run(argv, input=_write(repo, content), capture_output=True, env=env, cwd=repo.root)
    compiled, held = json.loads(proc.stderr.decode().rsplit("SEEN ", 1)[1])
    return proc.returncode, proc.stdout.decode(), compiled, held


def test_a_write_compiles_nothing_in_checks_and_no_module_holds_re(committed: GitRepo) -> None:
    manifest = committed.manifest(**BENCHMARK)
    log = ["--manifest", str(manifest), "--log-db", str(committed.scratch / "log.sqlite3")]
    for _ in range(2):  # the session's first call, and a pinned one
        code, out, compiled, held = seen(committed, "x = 1\n", *log)
        assert (code, out) == (0, "")  # allowed
        assert [m for m in compiled if m.startswith("scorer.checks")] == []
        assert held == STILL_HOLD_RE


def test_a_write_that_holds_a_substring_is_denied_as_before(committed: GitRepo) -> None:
    manifest = committed.manifest(**BENCHMARK)
    code, out, compiled, _ = seen(committed, "x = 1\ny = pickle.loads(eval(z))\n", "--manifest", str(manifest))
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 2 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert reason.splitlines()[1:3] == [  # as f7ffbb1 words it: which substring, in order
        "- allowed/new.py added line contains forbidden substring 'pickle' [forbidden-token]",
        "- allowed/new.py added line contains forbidden substring 'eval(' [forbidden-token]",
    ]
    assert [m for m in compiled if m.startswith("scorer.checks")] == []


def test_a_manifests_own_patterns_are_still_compiled(committed: GitRepo) -> None:
    manifest = committed.manifest(**BENCHMARK, forbidden_patterns=["os\\.system"])
    code, out, compiled, _ = seen(committed, "os.system(1)\n", "--manifest", str(manifest), "--no-log")
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert code == 2 and "scorer.checks.job" in compiled  # the user's regex, compiled by the Job


def test_a_write_imports_no_fnmatch(committed: GitRepo) -> None:
    manifest = committed.manifest(**BENCHMARK)
    script = "import sys; from scorer.entry import main; sys.argv[0] = 'score-diff'; sys.exit(main())"
    argv = ["-c", script, "guard", "--agent", "claude", "--manifest", str(manifest), "--no-log"]
    code, out, names = imports.imported(committed, argv, _write(committed, "x = 1\n"))
    assert (code, out) == (0, "")
    assert "fnmatch" not in names
