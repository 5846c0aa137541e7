"""Options and steps several subcommands share: declared once, so they mean the same everywhere."""

from __future__ import annotations

import argparse
import fnmatch
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..context import Context
from ..report import FORMATS, render

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import Any

    from ..inspection.git import Repository
    from ..model import Result
    from ..pipeline import Options

MANIFEST_HELP = "job manifest (default: $SCORE_DIFF_MANIFEST, then job_manifest.json at the repository root)"
LOG_DB_HELP = "decision log (default: <git dir>/score-diff/decisions.sqlite3)"


def add_repo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")


def add_manifest(p: argparse.ArgumentParser) -> None:
    p.add_argument("--manifest", help=MANIFEST_HELP)


def add_log_db(p: argparse.ArgumentParser, writes: bool = False) -> None:
    p.add_argument("--log-db", metavar="PATH", help=LOG_DB_HELP)
    if writes:
        p.add_argument("--no-log", action="store_true", help="do not append this decision to the decision log")


def add_job_branch(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--job-branch",
        default="agent-*",
        metavar="PATTERN",
        help="the branch pattern whose '*' names the job: on branch agent-fix the manifest is "
        ".score-diff/jobs/fix.json when it exists (default agent-*)",
    )


def add_scope(p: argparse.ArgumentParser) -> None:
    """What is scored and against which fence: `score-diff` and `score-diff test` take the same
    options, so the test a hint names runs on exactly the change the gate scored."""
    add_manifest(p)
    p.add_argument(
        "--job",
        help="this job's manifest, .score-diff/jobs/JOB.json (read at --base in --base mode); "
        "default: the job the branch names (--job-branch)",
    )
    add_job_branch(p)
    add_repo(p)
    p.add_argument("--base", help="the commits from merge-base(BASE, HEAD) to HEAD (CI / review mode)")
    p.add_argument("--head", help="with --base: the head commit (default HEAD)")
    p.add_argument(
        "--since",
        metavar="REF",
        help="the hook's mode when the base is known: the working tree against merge-base(REF, HEAD), "
        "so the branch's commits and what is not committed yet are scored together, with REF's tests, "
        "as CI's --base REF will score them (the manifest is read at REF)",
    )


def scope_options(
    args: argparse.Namespace, ctx: Context, progress: Callable[[float], None] | None, **rest: Any
) -> Options:
    """The pipeline's Options for the options `add_scope` declared, plus the command's own `rest`."""
    from ..pipeline import Options

    return Options(
        repo=args.repo,
        manifest=args.manifest,
        base=args.base,
        head=args.head,
        since=args.since,
        cwd=ctx.cwd,
        progress=progress,
        job=args.job,
        job_branch=args.job_branch,
        **rest,
    )


def add_gate(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--gate",
        choices=("hook", "ci", "manual"),
        help="the gate this run is, for the decision log (default: hook when $PRE_COMMIT or "
        "$GIT_INDEX_FILE is set, ci when $CI is, manual otherwise)",
    )


def repository(args: argparse.Namespace, ctx: Context) -> Repository:
    """The repository --repo names, opened with the caller's environment."""
    from ..inspection.git import Repository

    return Repository(os.path.join(ctx.cwd, args.repo), ctx.environ, receiving=getattr(args, "receiving", False))


def branch_skipped(args: argparse.Namespace, repo: Callable[[], Repository]) -> str | None:
    """The branch name when --branches says not to score it; None to score."""
    return skipped_branch(args, repo().branch()) if args.branches else None


def skipped_branch(args: argparse.Namespace, branch: str | None) -> str | None:
    """`branch` (the current one, None when detached) when --branches says not to score it; None to score."""
    if not args.branches:
        return None
    if branch is None or any(fnmatch.fnmatchcase(branch, g) for g in args.branches):
        return None  # detaching HEAD must not be a way around the gate
    return branch


def manifest_file(args: argparse.Namespace, ctx: Context) -> Path:
    """The same manifest, named the same way, that scoring reads (and whose pin it checks)."""
    from ..manifest.locate import manifest_path

    return Path(manifest_path(args.manifest, ctx.cwd, ctx.environ, lambda: repository(args, ctx).work_tree))


def log_path(args: argparse.Namespace, ctx: Context, repo: Callable[[], Repository] | None = None) -> Path:
    """--log-db, else the log in the git directory (of `repo()` when the caller has it open already)."""
    from ..decision_log import default_db_path

    if args.log_db:
        return Path(args.log_db)
    return default_db_path(Path((repo or (lambda: repository(args, ctx)))().git_dir))


def spare_log(db_path: Path, ctx: Context) -> Path | None:
    """Where a row waits when the log's directory refuses it: the user's state directory."""
    from ..decision_journal import spare_journal

    home = ctx.environ.get("HOME")
    state = ctx.environ.get("XDG_STATE_HOME") or (os.path.join(home, ".local", "state") if home else None)
    return spare_journal(db_path, state)


def emit(result: Result, outputs: Sequence[Sequence[str | None]], ctx: Context, colour: bool = False) -> None:
    """Collect-then-render: formats with --output go to files, the rest to stdout."""
    to_terminal = [fmt for fmt, out in outputs if out is None] or ["text"]
    for fmt, out in outputs:
        if out is not None:
            with open(os.path.join(ctx.cwd, out), "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(render(str(fmt), result))
    for fmt in to_terminal:
        text = render(str(fmt), result)
        if fmt == "text" and colour:
            from ..terminal import colourise

            text = colourise(text)
        ctx.stdout.write(text)
    ctx.stdout.flush()
    if any(fmt == "github" for fmt, _ in outputs):
        from ..report.github import append_step_summary

        append_step_summary(result, ctx.environ)


def log_decision(
    result: Result, args: argparse.Namespace, ctx: Context, repo: Callable[[], Repository] | None = None
) -> None:
    """Append to the decision log; a log that cannot be written warns and never changes the verdict."""
    if getattr(args, "no_log", False):
        return
    from ..decision_log import infer_gate, record

    try:
        db = log_path(args, ctx, repo)
        warning = record(db, result, getattr(args, "gate", None) or infer_gate(ctx.environ), spare_log(db, ctx))
    except Exception as exc:
        warning = f"decision log not written: {exc}"
    if warning:
        from ..secrets.redaction import redact  # the message can name a path, and a path can hold a secret

        ctx.stderr.write(f"score-diff: warning: {redact(warning)}\n")


__all__ = [
    "FORMATS",
    "add_gate",
    "add_job_branch",
    "add_log_db",
    "add_manifest",
    "add_repo",
    "add_scope",
    "branch_skipped",
    "emit",
    "log_decision",
    "manifest_file",
    "scope_options",
    "skipped_branch",
    "spare_log",
]
