"""`score-diff log`: list logged decisions, newest first."""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_log_db, add_repo, log_path

HELP = "list logged decisions, newest first"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_log_db(p)
    add_repo(p)
    p.add_argument("--job", help="only this job_id")
    p.add_argument("--verdict", choices=("PASS", "FAIL"), help="only decisions with this verdict")
    p.add_argument("--limit", type=_count, metavar="N", help="at most N decisions (N >= 1)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _count(text: str) -> int:
    """A positive whole number: argparse turns the ValueError into a usage error that names --limit."""
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..decision_log import format_records, read

    ctx.stdout.write(
        format_records(read(log_path(args, ctx), job=args.job, limit=args.limit, verdict=args.verdict), args.format)
    )
    return 0
