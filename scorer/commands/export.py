"""`score-diff export`: the decision log as redacted JSON lines; redaction counts go to stderr."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..context import Context
from ..errors import UsageError
from .shared import add_log_db, add_repo, log_path

HELP = "write the decision log as redacted JSON lines"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_log_db(p)
    add_repo(p)
    p.add_argument("--out", required=True, metavar="FILE.jsonl")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..decision_log import export

    out = Path(os.path.join(ctx.cwd, args.out))
    if out.is_dir():
        raise UsageError(
            f"score-diff export: --out {args.out} is a directory; name the file to write, "
            f"e.g. {os.path.join(args.out, 'decisions.jsonl')}"
        )
    counts = export(log_path(args, ctx), out)
    ctx.stderr.write("redacted: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) + "\n")
    ctx.stdout.write(f"wrote {args.out}\n")
    return 0
