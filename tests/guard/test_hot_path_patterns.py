"""Which regular expressions the guard's Write path compiles, and where: none in manifest/ or secrets/.

Each pattern compiled is 0.2-0.65M instructions of every agent tool call (issue 29). The manifest's
schema patterns and its `**` globs are read with str tests, and the log row's redaction compiles
nothing for fields without a secret's literal or a line end; a pattern compiled there again is a
visible failure here. (What checks/ compiles is that folder's own.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.testing.guard import write_payload
from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]

# The hook in a fresh interpreter, with re's compiler told who asks for each pattern it has not cached.
HOOK = """
import json, re, sys
compiled = []
real = re._compile
def spy(pattern, flags):
    if (type(pattern), pattern, flags) not in re._cache:
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith("re"):
            frame = frame.f_back
        compiled.append(frame.f_globals.get("__name__", "?") if frame is not None else "?")
    return real(pattern, flags)
re._compile = spy
from scorer.entry import main
sys.argv = ["score-diff", *sys.argv[1:]]
try:
    code = main()
finally:
    sys.stderr.write("\\nCOMPILED " + json.dumps(compiled) + "\\n")
sys.exit(code)
"""


def compiled_by(repo: GitRepo, *args: str) -> tuple[int, str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(repo.scratch)}
    argv = [sys.executable, "-c", HOOK, "guard", "--agent", "claude", *args]
    payload = write_payload(repo, "allowed/new.py")
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, cwd=repo.root, check=False)
    line = proc.stderr.decode().rsplit("COMPILED ", 1)[1]
    return proc.returncode, proc.stdout.decode(), json.loads(line)


def ours(modules: list[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith(("scorer.manifest", "scorer.secrets")))


def test_a_logged_write_compiles_no_pattern_in_manifest_or_secrets(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])
    log = ["--log-db", str(committed.scratch / "log.sqlite3")]
    for _ in range(2):  # the session's first call, and a pinned one
        code, out, modules = compiled_by(committed, "--manifest", str(manifest), *log)
        assert (code, out) == (0, "")  # allowed
        assert ours(modules) == []


def test_a_write_with_everything_allowed_compiles_no_glob(committed: GitRepo) -> None:
    manifest = committed.manifest(allowed_paths=["**"], forbidden_globs=["secrets/**"])
    code, out, modules = compiled_by(committed, "--manifest", str(manifest), "--no-log")
    assert (code, out) == (0, "")
    assert ours(modules) == []


def test_a_glob_with_a_class_is_still_compiled(committed: GitRepo) -> None:
    """The str readers stand in for the patterns they were proven against, and for nothing else."""
    manifest = committed.manifest(allowed_paths=["allowe[d]/**"])
    code, out, modules = compiled_by(committed, "--manifest", str(manifest), "--no-log")
    assert (code, out) == (0, "")
    assert "scorer.manifest.globs" in modules
