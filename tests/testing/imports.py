"""What a fresh score-diff process imports, as `python -X importtime` lists it, less the interpreter's
own start-up: what `python -c pass` imports in the same environment (a `.pth` file in site-packages
may import certifi, and with it pathlib, tempfile, zipfile and threading, as on CI's machine)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.testing.repo import GitRepo

ROOT = Path(__file__).resolve().parents[2]


def _importtime(argv: Sequence[str], repo: GitRepo, stdin: bytes, site: bool = True) -> tuple[int, str, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(repo.scratch)}
    argv = [sys.executable, *([] if site else ["-S"]), "-X", "importtime", *argv]
    proc = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=repo.root, check=False)
    names = [
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.decode().splitlines()
        if line.startswith("import time:") and "imported package" not in line
    ]
    return proc.returncode, proc.stdout.decode(), names


def imported(repo: GitRepo, argv: Sequence[str], stdin: bytes = b"", site: bool = True) -> tuple[int, str, list[str]]:
    """Run `python ARGV` in `repo`, in a fresh interpreter: (exit code, stdout, the modules it
    imported beyond the interpreter's start-up). `site=False` runs it with `-S`: no `.pth` file then
    loads modules at start-up (CI's loads re), so none of them hides what score-diff imports itself;
    only what the standard library and PYTHONPATH hold can be imported."""
    startup = set(_importtime(["-c", "pass"], repo, b"", site)[2])
    code, out, names = _importtime(argv, repo, stdin, site)
    return code, out, [n for n in names if n not in startup]


def ours(names: Sequence[str]) -> list[str]:
    """The score-diff modules among `names`, sorted."""
    return sorted({n for n in names if n == "scorer" or n.startswith("scorer.")})


def third_party(names: Sequence[str]) -> list[str]:
    """The top-level packages among `names` that are neither the standard library's nor score-diff's."""
    tops = {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"scorer"}
    return sorted(n for n in tops if not n.startswith("_"))
