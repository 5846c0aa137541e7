"""`score-diff doctor`: check the gate end to end and name each missing piece with the command that fixes it.

Exit 0 when every piece is there, 1 when one is missing, 2 when it could not check (not a
repository, a usage error).
"""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_repo, repository

HELP = "check the gate end to end: the committed fence and its pin, both hooks, the agent's hooks, the test"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_repo(p)
    p.add_argument("--base", metavar="REF", help="the base branch the fence is committed on (default: main)")
    p.add_argument("--manifest", metavar="PATH", help="the manifest, repo-relative (default: job_manifest.json)")


def run(args: argparse.Namespace, ctx: Context) -> int:
    return doctor(args, ctx)


def doctor(args: argparse.Namespace, ctx: Context, base: str | None = None, rel: str | None = None) -> int:
    """Print every finding; 0 when nothing is missing, 1 otherwise."""
    from ..manifest.locate import DEFAULT_MANIFEST
    from ..setup.doctor import MISSING, check, render

    repo = repository(args, ctx)
    base = base or getattr(args, "base", None) or "main"
    rel = rel or getattr(args, "manifest", None) or DEFAULT_MANIFEST
    findings = check(repo, base, rel, ctx.environ)
    ctx.stdout.write(f"score-diff doctor: the gate in {repo.work_tree} (base {base}, manifest {rel})\n")
    ctx.stdout.write(render(findings))
    return 1 if any(f.state == MISSING for f in findings) else 0
