"""The jail's policy and its command line: `score-diff jail [--write PATH]... -- CMD [ARG...]`.

Standard library only and no relative import: runner.py runs this package as plain files
(`python -I -S runner.py ...`), so the test's environment cannot reach into it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import NamedTuple

NETWORKS = ("off", "loopback", "on")
LEVELS = ("auto", "required")
BACKENDS = ("auto", "bwrap", "builtin")
# The layers the jail reports, each "held" or "missing: why" (or "not asked").
LAYERS = ("reads", "writes", "network", "process tree")


# A NamedTuple, not a dataclass: the jail's runner imports this file at every test run, and
# dataclasses brings inspect, ast and dis with it (about a sixth of their import time).
class Policy(NamedTuple):
    """What the command may touch: everything read-only except `write`, `read_only` read-only even there."""

    write: tuple[str, ...] = ()
    read: tuple[str, ...] = ()  # none: reads are not confined
    read_only: tuple[str, ...] = ()
    network: str = "off"
    level: str = "auto"
    backend: str = "auto"
    cwd: str | None = None
    # Not in the agreed interface: how score-diff's own test runner talks to the jail.
    status_fd: int | None = None  # JSON lines saying which layer held, as testrun/launcher.py writes them
    cleanup: tuple[str, ...] = ()  # removed if the jail's caller dies first
    unavailable: tuple[str, ...] = ()  # "namespaces": behave as if the kernel refused them (tests)


def argv_for(policy: Policy, command: Sequence[str], exe: Sequence[str] = ("score-diff",)) -> list[str]:
    """The `score-diff jail` line that runs `command` under `policy`."""
    argv = [*exe, "jail"]
    for flag, paths in (("--write", policy.write), ("--read", policy.read), ("--read-only", policy.read_only)):
        for path in paths:
            argv += [flag, path]
    argv += ["--network", policy.network, "--level", policy.level, "--backend", policy.backend]
    if policy.cwd is not None:
        argv += ["--cwd", policy.cwd]
    if policy.status_fd is not None:
        argv += ["--status-fd", str(policy.status_fd)]
    for path in policy.cleanup:
        argv += ["--cleanup", path]
    for name in policy.unavailable:
        argv += ["--unavailable", name]
    return [*argv, "--", *command]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--write", action="append", default=[], metavar="PATH", help="a directory writable inside")
    p.add_argument(
        "--read",
        action="append",
        default=[],
        metavar="PATH",
        help="confine reads to the system's directories, the interpreter, the write roots and these paths",
    )
    p.add_argument(
        "--read-only", action="append", default=[], metavar="PATH", help="read-only even inside a --write root"
    )
    p.add_argument("--network", choices=NETWORKS, default="off", help="off (default) and loopback: loopback only")
    p.add_argument("--level", choices=LEVELS, default="auto", help="required: exit 125 unless every layer holds")
    p.add_argument("--backend", choices=BACKENDS, default="auto", help="auto: the built-in launcher")
    p.add_argument("--cwd", help="the command's working directory (default: the current one)")
    p.add_argument("--status-fd", type=int, help=argparse.SUPPRESS)
    p.add_argument("--cleanup", action="append", default=[], help=argparse.SUPPRESS)
    p.add_argument("--unavailable", action="append", default=[], help=argparse.SUPPRESS)
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD [ARG...]")


def policy_of(args: argparse.Namespace) -> tuple[Policy, list[str]]:
    """The policy and the command from parsed arguments (paths made absolute and real)."""
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]

    def real(paths: Sequence[str]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(os.path.realpath(p) for p in paths))

    policy = Policy(
        write=real(args.write),
        read=real(args.read),
        read_only=real(args.read_only),
        network=args.network,
        level=args.level,
        backend=args.backend,
        cwd=args.cwd,
        status_fd=args.status_fd,
        cleanup=tuple(args.cleanup),
        unavailable=tuple(args.unavailable),
    )
    return policy, command


def parse(argv: Sequence[str]) -> tuple[Policy, list[str]]:
    """`[jail] OPTIONS -- CMD...` as the script reads it."""
    args = list(argv)
    if args[:1] == ["jail"]:
        args = args[1:]
    p = argparse.ArgumentParser(prog="score-diff jail")
    add_arguments(p)
    return policy_of(p.parse_args(args))
