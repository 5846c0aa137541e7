"""`score-diff review --base B`: score a range; show the diff only when it PASSes."""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_log_db, emit, log_decision, repository

HELP = "score a range and show its diff only after a PASS"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--base", required=True, help="the target branch, e.g. main")
    p.add_argument("--head", help="the head commit (default HEAD)")
    p.add_argument("--manifest", help="job manifest (read at --base when it lives in the repository)")
    p.add_argument("--repo", default=".")
    p.add_argument("--skip-test", action="store_true")
    add_log_db(p, writes=True)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..pipeline import Options, could_not_score, score
    from ..report.escape import printable_lines
    from ..terminal import page

    opts = Options(
        repo=args.repo, manifest=args.manifest, base=args.base, head=args.head, skip_test=args.skip_test, cwd=ctx.cwd
    )
    try:
        result = score(opts, ctx.environ)
    except Exception as exc:  # ScoreDiffError and anything unexpected: exit 2, never a diff
        result = could_not_score(exc, "range")
    emit(result, [["text", None]], ctx)
    log_decision(result, args, ctx)
    if result.exit_code != 0 or result.shadow:
        ctx.stdout.write("The change did not PASS: restore the tree; do not read the patch.\n")
        return result.exit_code or 1
    assert result.base and result.head
    # The reviewer reads this to judge the change: escape sequences in it must not hide lines.
    page(printable_lines(repository(args, ctx).display_diff(result.base, result.head)), ctx.stdout, ctx.environ)
    return 0
