"""`score-diff jail [--write PATH]... [--read PATH]... -- CMD [ARG...]`: run a command in the jail.

Everything read-only but the --write roots, no network but loopback, every process ended with
the command; exit status the command's own, 125 if --level required cannot be kept.
The interface: docs/required-test.md#the-jail.
"""

from __future__ import annotations

import argparse

from ..context import Context

HELP = "run a command confined: read-only but --write roots, loopback only, every process ended with it"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..jail.policy import add_arguments as jail_arguments

    jail_arguments(p)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..jail import runner
    from ..jail.policy import policy_of

    policy, command = policy_of(args)
    policy = policy._replace(cwd=policy.cwd or ctx.cwd)
    if not command:
        ctx.stderr.write("score-diff jail: no command given (score-diff jail [OPTIONS] -- CMD [ARG...])\n")
        return runner.ABORTED
    ctx.stdout.flush()
    return runner.Jail(policy, command, dict(ctx.environ)).run()
