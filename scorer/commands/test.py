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
from .shared import add_scope, scope_options

HELP = "run the required test exactly as the gate does (the base's tests on your code) and print its output"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_scope(p)
    p.add_argument(
        "--spec",
        action="store_true",
        help="the spec pass only: the base's protected tests and test configuration against your code",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..model import TEST_PASSED
    from ..pipeline import test_as_gate
    from ..report.escape import printable
    from ..terminal import progress_line

    # The progress goes where score's does (a terminal, or /dev/tty under pre-commit), never stdout.
    with progress_line(ctx.stderr, ctx.environ) as progress:
        test = test_as_gate(scope_options(args, ctx, progress, spec_only=args.spec), ctx.environ)
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
