"""`score-diff commit-msg [options] MESSAGE_FILE`: the commit-msg hook stage.

git passes the file holding the message it is about to record; its Blast-Radius /
Justification / Rollback trailers count. This is the one place a bare word is a file.

The required test runs once per commit: this stage reuses the pre-commit stage's run of the same
change (testrun/verdict_record.py), and runs the test only when no such record matches. When git
is about to commit exactly the tree the pre-commit stage PASSed, with nothing else changed, the
whole verdict is reused and only the message is read (stage_record.py).
"""

from __future__ import annotations

import argparse

from ..context import Context
from . import score

HELP = "score as the commit-msg hook does, with the message git is about to record"


def add_arguments(p: argparse.ArgumentParser) -> None:
    score.add_arguments(p)
    p.add_argument("message_path", metavar="MESSAGE_FILE", help="the commit message file git passes to the hook")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from .stage_record import reuse

    reused = reuse(args, ctx, args.message_path)
    if reused is not None:
        return reused
    args.message_file = [*args.message_file, args.message_path]
    args.reuse_test = True
    return score.run(args, ctx)
