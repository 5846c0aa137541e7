"""The guard's tests: a fenced repository, real bash in a throwaway copy of it, and the jail's interface.

`scorer.jail` is another engineer's package (docs/guard.md, "The jail"); until it is installed,
`jail_api` stands in for its documented `Policy` and `argv_for`, so the rewrite the guard
answers with can be asserted word by word. A test that needs the real jail to run skips.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

REAL_JAIL = importlib.util.find_spec("scorer.jail") is not None


@dataclasses.dataclass(frozen=True)
class _Policy:
    write: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    network: str = "off"
    level: str = "auto"
    backend: str = "auto"
    cwd: str | None = None


def _argv_for(policy: _Policy, command: Sequence[str], exe: Sequence[str] = ("score-diff",)) -> list[str]:
    argv = [*exe, "jail"]
    for flag, values in (("--write", policy.write), ("--read", policy.read), ("--read-only", policy.read_only)):
        for value in values:
            argv += [flag, value]
    argv += ["--network", policy.network, "--level", policy.level, "--backend", policy.backend]
    if policy.cwd:
        argv += ["--cwd", policy.cwd]
    return [*argv, "--", *command]


@pytest.fixture
def jail_api(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The real scorer.jail when it is installed, else a stand-in with its documented interface."""
    if REAL_JAIL:
        import scorer.jail

        return scorer.jail
    stub = types.ModuleType("scorer.jail")
    stub.Policy = _Policy  # type: ignore[attr-defined]
    stub.argv_for = _argv_for  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "scorer.jail", stub)
    return stub


def snapshot(top: Path) -> dict[str, str]:
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
                found[rel] = f"{os.stat(full).st_mode:o}:" + hashlib.sha256(Path(full).read_bytes()).hexdigest()
    return found


def run_bash(root: Path, command: str, place: Path) -> set[str]:
    """Run `command` with real bash in a copy of the repository at `place`; the paths it changed."""
    shutil.copytree(root, place, symlinks=True)
    before = snapshot(place)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(place.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    with contextlib.suppress(subprocess.TimeoutExpired):  # what it changed before the timeout still counts
        subprocess.run(
            ["bash", "-c", command], cwd=place, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=20
        )
    after = snapshot(place)
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
