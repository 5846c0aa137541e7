"""`score-diff verify-report REPORT`: is a JSON report a real PASS bound to this manifest, base and head?"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from ..context import Context
from ..errors import UsageError
from .shared import repository

HELP = "check that a JSON report is a real PASS bound to this merge"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("report", help="a report written with --format json --output FILE")
    p.add_argument("--base", help="the target branch; compared with the report's merge-base")
    p.add_argument("--head", help="the commit being merged (default HEAD when --base is given)")
    p.add_argument("--manifest", help="the manifest file whose sha256 the report must name")
    p.add_argument("--repo", default=".")
    p.add_argument(
        "--allow-skipped-test",
        action="store_true",
        help="accept a report whose required test was skipped (--skip-test); by default it must pass",
    )
    p.add_argument(
        "--require-envelope",
        action="store_true",
        help="the required test must have run with its whole envelope enforced (no network, writes confined)",
    )


def _read_report(path: str, shown: str) -> dict[str, object]:
    """The report file as JSON; a file that cannot be read, or is not a score-diff JSON report, is
    the caller's mistake (a usage error naming what to pass), never a report that fails to bind."""
    wanted = "pass the file written by score-diff --format json --output FILE"
    try:
        with open(path, encoding="utf-8") as fh:
            report = json.load(fh)
    except OSError as exc:
        raise UsageError(f"score-diff verify-report: cannot read {shown}: {exc.strerror or exc}; {wanted}") from exc
    except ValueError as exc:
        raise UsageError(f"score-diff verify-report: {shown} is not JSON ({exc}); {wanted}") from exc
    if not isinstance(report, dict) or not {"score_diff_version", "result", "binding"} & set(report):
        raise UsageError(f"score-diff verify-report: {shown} is not a score-diff JSON report; {wanted}")
    return report


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..manifest.load import load_manifest
    from ..verify import verify_report

    report = _read_report(os.path.join(ctx.cwd, args.report), args.report)
    if not (args.base or args.head or args.manifest):
        # With nothing to compare, any PASS-shaped file (head all zeros) would "bind to this merge".
        raise UsageError(
            "score-diff verify-report: nothing to check the report against: give --base (and "
            "--head), --manifest, or both"
        )
    base = head = digest = None
    if args.base or args.head:
        repo = repository(args, ctx)
        head = repo.resolve(args.head or "HEAD")
        base = repo.merge_base(repo.resolve(args.base), head) if args.base else None
    if args.manifest:
        digest = load_manifest(Path(ctx.cwd, args.manifest)).sha256
    problems = verify_report(
        report,
        manifest_sha256=digest,
        base=base,
        head=head,
        allow_skipped_test=args.allow_skipped_test,
        require_envelope=args.require_envelope,
    )
    checked = [
        ("manifest sha256", digest, f"--manifest {args.manifest}"),
        ("base", base, f"merge-base of --base {args.base} and head"),
        ("head", head, f"--head {args.head or 'HEAD'}"),
    ]
    for label, value, source in checked:
        ctx.stdout.write(f"checked {label} {value} ({source})\n" if value else f"not checked: {label}\n")
    ctx.stdout.write(
        "checked test: " + ("passed or skipped (--allow-skipped-test)\n" if args.allow_skipped_test else "passed\n")
    )
    ctx.stdout.write(
        "checked test envelope: observer log digest" + (", every part enforced\n" if args.require_envelope else "\n")
    )
    for problem in problems:
        ctx.stdout.write(f"FAIL {problem}\n")
    ctx.stdout.write(
        "RESULT: FAIL (report does not bind to this merge)\n"
        if problems
        else "RESULT: PASS (report binds to this merge)\n"
    )
    return 1 if problems else 0
