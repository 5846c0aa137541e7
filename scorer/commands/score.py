"""`score-diff [score] [options]`: score the working tree (or a commit range with --base)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..context import Context
from ..report import FORMATS
from .shared import add_gate, add_log_db, add_scope, branch_skipped, emit, log_decision, scope_options

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any

    from ..inspection.git import Repository

HELP = "score the change (the default when no subcommand is given)"


class _FormatAction(argparse.Action):
    """`--format F [--output FILE]`, repeatable: each --output binds to the --format before it."""

    def __call__(self, parser: argparse.ArgumentParser, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        ns.outputs = [*(getattr(ns, "outputs", None) or []), [value, None]]


class _OutputAction(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        outputs = getattr(ns, "outputs", None) or []
        if not outputs or outputs[-1][1] is not None:
            parser.error("--output FILE must follow the --format it writes")
        outputs[-1][1] = value


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_scope(p)
    p.add_argument(
        "--format",
        dest="fmt",
        action=_FormatAction,
        choices=sorted(FORMATS),
        help="report format; repeatable, each optionally followed by --output FILE",
    )
    p.add_argument("--output", action=_OutputAction, help="write the preceding --format to FILE")
    p.add_argument("--skip-test", action="store_true", help="do not run required_test (PASS says so)")
    p.add_argument("--shadow", action="store_true", help="report would-fail violations but exit 0")
    # One glob per flag: a hook's trailing message file must never be read as a glob.
    p.add_argument(
        "--branches",
        action="append",
        metavar="GLOB",
        help="score only on branches matching GLOB (e.g. 'agent-*'; repeat the flag for more); "
        "a detached HEAD is always scored",
    )
    p.add_argument(
        "--manifest-sha256",
        metavar="HEX",
        help="refuse to score unless the manifest has this "
        "sha256 (also $SCORE_DIFF_MANIFEST_SHA256, or a <manifest>.sha256 file beside it)",
    )
    p.add_argument(
        "--message-file",
        action="append",
        default=[],
        metavar="FILE",
        help="commit message carrying Blast-Radius trailers (repeatable; the commit-msg hook "
        "passes git's message file here)",
    )
    p.add_argument(
        "--defer-justifications",
        action="store_true",
        help="leave sensitive-path justification to the commit-msg stage hook",
    )
    add_log_db(p, writes=True)
    add_gate(p)
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text report (auto: on a terminal, unless NO_COLOR is set)",
    )


def _opened(args: argparse.Namespace, ctx: Context) -> Callable[[], Repository]:
    """The repository --repo names, opened (git's discovery, one process) on first use and kept for
    the rest of this command: the branch check, the scoring and the decision log's place ask the
    same question. Its discovery reads HEAD for the scoring in the same git call."""
    kept: list[Repository] = []

    def repo() -> Repository:
        if not kept:
            kept.append(_repository(args, ctx))  # a failure raises on every call, as before
        return kept[0]

    return repo


def _repository(args: argparse.Namespace, ctx: Context) -> Repository:
    """`shared.repository`, with HEAD read by the same discovery."""
    import os

    from ..inspection.git import Repository

    return Repository(os.path.join(ctx.cwd, args.repo), ctx.environ, read_head=True)


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..pipeline import could_not_score, score
    from ..terminal import progress_line, use_colour

    outputs = getattr(args, "outputs", None) or [["text", None]]
    opened = _opened(args, ctx)
    with progress_line(ctx.stderr, ctx.environ) as progress:
        try:
            skipped = branch_skipped(args, opened)
            if skipped is not None:
                from ..secrets.redaction import redact  # a branch name is free text the job chose

                ctx.stdout.write(f"score-diff: branch {redact(skipped)!r} does not match --branches; not scored\n")
                return 0
            opts = scope_options(
                args,
                ctx,
                progress,
                skip_test=args.skip_test,
                shadow=args.shadow,
                manifest_sha256=args.manifest_sha256,
                message_files=tuple(args.message_file),
                defer_justifications=args.defer_justifications,
                reuse_test=getattr(args, "reuse_test", False),
            )
            result = score(opts, ctx.environ, repo=opened())
        except Exception as exc:  # ScoreDiffError and anything unexpected: a FAIL report, exit 2
            result = could_not_score(exc, "range" if args.base else "worktree")
    emit(result, outputs, ctx, use_colour(args.color, ctx.stdout, ctx.environ))
    if args.defer_justifications and args.since and not args.message_file:  # the pre-commit stage's shape
        from .stage_record import record

        record(result, args, ctx, opened)
    log_decision(result, args, ctx, opened)
    return result.exit_code
