"""`score-diff log`: list logged decisions, newest first."""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_log_db, add_repo, log_path, spare_log

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
    """The database's rows and the journal's; a database that cannot be read still shows the journal's."""
    from ..decision_log import DecisionLogError, format_records, read, waiting_rows

    db = log_path(args, ctx)
    spare = spare_log(db, ctx)
    try:
        records = read(db, job=args.job, limit=args.limit, verdict=args.verdict, spare=spare)
    except DecisionLogError as e:
        waiting = waiting_rows(db, job=args.job, verdict=args.verdict, spare=spare)
        records = [{k: v for k, v in r.items() if k != "row_uid"} for r in reversed(waiting)][: args.limit]
        ctx.stdout.write(format_records(records, args.format))
        from ..secrets.redaction import redact

        ctx.stderr.write(f"score-diff: {redact(str(e))}; shown: the {len(records)} rows waiting in its journal\n")
        return 1
    ctx.stdout.write(format_records(records, args.format))
    return 0
