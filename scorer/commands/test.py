"""`score-diff test`: run the required test exactly as the gate runs it, and print what it printed.

The same manifest, the same temporary checkouts (the spec pass with the base's protected tests and
test configuration, then the job's own tests when they differ), the same environment and jail as
`score-diff` itself: a test failure's hint names this command, because running the test by hand
in the working tree uses the job's own tests and configuration, and may pass where the gate failed.

`--spec` stops after the spec pass (the gate's first pass, the one whose failure says the job's
code does not meet the base's tests), even when the job changed fenced files.

Exit 0 when the test passed, 1 when it did not, 2 when it could not be run.
"""

from __future__ import annotations

import argparse

from ..context import Context
from .shared import add_job_branch, add_manifest

HELP = "run the required test exactly as the gate does (the base's tests on your code) and print its output"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_manifest(p)
    p.add_argument("--job", help="this job's manifest, .score-diff/jobs/JOB.json (default: the branch's job)")
    add_job_branch(p)
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")
    p.add_argument("--since", metavar="REF", help="as the hook with --since REF: the base's tests from the merge-base")
    p.add_argument("--base", help="as CI's --base: the commits from merge-base(BASE, HEAD) to HEAD")
    p.add_argument("--head", help="with --base: the head commit (default HEAD)")
    p.add_argument(
        "--spec",
        action="store_true",
        help="the spec pass only: the base's protected tests and test configuration against your code",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..model import TEST_PASSED
    from ..pipeline import Options, test_as_gate
    from ..report.escape import printable
    from ..terminal import Progress

    progress = Progress(ctx.stderr) if ctx.stderr.isatty() else None
    opts = Options(
        repo=args.repo,
        manifest=args.manifest,
        base=args.base,
        head=args.head,
        since=args.since,
        cwd=ctx.cwd,
        progress=progress,
        job=args.job,
        job_branch=args.job_branch,
        spec_only=args.spec,
    )
    try:
        test = test_as_gate(opts, ctx.environ)
    finally:
        if progress is not None:
            progress.done()
    shown = " ".join(test.argv)
    lines = [f"score-diff test: `{shown}`, as the gate runs it ({test.duration_s:.1f}s)"]
    if test.output_tail:
        lines += ["--- the test's output (its last lines) ---", test.output_tail, "---"]
    lines += [f"note: {n}" for n in test.notes]
    lines += [f"missing: {path}: {why}" for path, why in test.missing]
    verdict = "PASS" if test.status == TEST_PASSED else "FAIL"
    lines.append(f"TEST: {verdict} ({test.status}{': ' + test.reason if test.reason else ''})")
    ctx.stdout.write(printable("\n".join(lines)) + "\n")
    return 0 if test.status == TEST_PASSED else 1
