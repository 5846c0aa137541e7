"""One jail for the required test and the agent's shell: reads, writes, network and every process.

    from scorer.jail import Policy, argv_for, run

`score-diff jail` (commands/jail.py) and score-diff's test runner (testrun/envelope.py, through
SCRIPT) run runner.py; the guard builds `shlex.join(argv_for(policy, ["bash", "-c", cmd]))`.
Standard library only; nothing of score-diff is imported (docs/required-test.md#the-jail).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from .policy import Policy, argv_for

SCRIPT = str(Path(__file__).with_name("runner.py"))


class JailResult(NamedTuple):
    exit_code: int
    backend: str  # "builtin", or "none" where no namespace could be made
    layers: dict[str, str]  # reads/writes/network/process tree -> "held", "missing: why" or "not asked"


# The kernel settings that decide whether the built-in backend can make its namespaces: the
# limit (user_namespaces(7)), Debian's switch, and Ubuntu's AppArmor restriction (23.10 and later).
USERNS_SETTINGS = (
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


def backend_facts(tried: str) -> dict[str, object]:
    """What decides the backend that runs and the layers it can hold: the backend `tried` and each
    setting in USERNS_SETTINGS (None where this kernel has no such file). A few small reads, no process."""
    settings: dict[str, str | None] = {}
    for path in USERNS_SETTINGS:
        try:
            with open(path, "rb") as fh:
                settings[path] = fh.read(64).decode("ascii", "replace").strip()
        except OSError:
            settings[path] = None
    return {"backend": tried, "settings": settings}


def script_exe() -> tuple[str, ...]:
    """How to start the jail without score-diff's console script and without the caller's environment."""
    return (sys.executable, "-I", "-S", SCRIPT)


def run(policy: Policy, command: Sequence[str], env: Mapping[str, str]) -> JailResult:
    """Run `command` in the jail (stdin, stdout, stderr this process's own) and say what held."""
    read, write = os.pipe()
    try:
        argv = argv_for(_with_status(policy, write), command, script_exe())
        proc = subprocess.run(argv, env=dict(env), pass_fds=(write,), check=False)
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read().decode("utf-8", "replace")
    backend, layers = "none", {}
    for line in said.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if "jail" in record:
            backend, layers = str(record["jail"]), dict(record["layers"])
    return JailResult(proc.returncode, backend, layers)


def _with_status(policy: Policy, fd: int) -> Policy:
    return policy._replace(status_fd=fd)


__all__ = ["SCRIPT", "JailResult", "Policy", "argv_for", "run", "script_exe"]
