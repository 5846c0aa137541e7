"""Command line: `score-diff [options]` scores; `score-diff demo|pin|check-manifest|...` are subcommands."""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from .commands import Progress, use_colour
from .errors import ScoreDiffError
from .model import Result
from .render import RENDERERS


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


def score_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="score-diff",
        description="Decide from git alone whether an agent's change stayed inside its job manifest.",
        epilog="subcommands: " + ", ".join(sorted(SUBCOMMANDS)) + " (score-diff SUBCOMMAND --help)",
    )
    p.add_argument("--manifest", help="job manifest (default: $SCORE_DIFF_MANIFEST, then job_manifest.json "
                   "at the repository root)")
    p.add_argument("--repo", default=".", help="repository to score (default: the current directory)")
    p.add_argument("--base", help="score the commits from merge-base(BASE, HEAD) to HEAD (CI / review mode)")
    p.add_argument("--head", help="with --base: the head commit (default HEAD)")
    p.add_argument("--format", dest="fmt", action=_FormatAction, choices=sorted(RENDERERS),
                   help="report format; repeatable, each optionally followed by --output FILE")
    p.add_argument("--output", action=_OutputAction, help="write the preceding --format to FILE")
    p.add_argument("--skip-test", action="store_true", help="do not run required_test (PASS says so)")
    p.add_argument("--shadow", action="store_true", help="report would-fail violations but exit 0")
    # One glob per flag: a hook's trailing COMMIT_MSG_FILE must never be read as a glob.
    p.add_argument("--branches", action="append", metavar="GLOB",
                   help="score only on branches matching GLOB (e.g. 'agent-*'; repeat the flag for more); "
                   "a detached HEAD is always scored")
    p.add_argument("--manifest-sha256", metavar="HEX", help="refuse to score unless the manifest has this "
                   "sha256 (also $SCORE_DIFF_MANIFEST_SHA256, or a <manifest>.sha256 file beside it)")
    p.add_argument("--message-file", action="append", default=[], metavar="FILE",
                   help="commit message carrying Blast-Radius trailers (repeatable)")
    p.add_argument("--defer-justifications", action="store_true",
                   help="leave sensitive-path justification to the commit-msg stage hook")
    p.add_argument("commit_msg_file", nargs="?", metavar="COMMIT_MSG_FILE",
                   help="the commit message file, as the commit-msg hook passes it")
    p.add_argument("--log-db", metavar="PATH", help="decision log (default: <git dir>/score-diff/decisions.sqlite3)")
    p.add_argument("--no-log", action="store_true", help="do not append this scoring to the decision log")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text report (auto: on a terminal, unless NO_COLOR is set)")
    p.add_argument("--version", action="version", version=f"score-diff {__version__}")
    return p


def _branch_skipped(args: argparse.Namespace, cwd: str) -> str | None:
    """The branch name when --branches says not to score it; None to score."""
    if not args.branches:
        return None
    from .git import Repository

    branch = Repository(os.path.join(cwd, args.repo)).branch()
    if branch is None or any(fnmatch.fnmatchcase(branch, g) for g in args.branches):
        return None  # detaching HEAD must not be a way around the gate
    return branch


def emit(
    result: Result, outputs: Sequence[Sequence[str | None]], stdout: TextIO,
    environ: Mapping[str, str] | None = None, colour: bool = False,
) -> None:
    """Collect-then-render: formats with --output go to files, the rest to stdout."""
    to_terminal = [fmt for fmt, out in outputs if out is None] or ["text"]
    for fmt, out in outputs:
        if out is not None:
            with open(out, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(RENDERERS[str(fmt)](result))
    for fmt in to_terminal:
        text = RENDERERS[str(fmt)](result)
        if fmt == "text" and colour:
            from .commands import colourise

            text = colourise(text)
        stdout.write(text)
    stdout.flush()
    if environ is not None and any(fmt == "github" for fmt, _ in outputs):
        from .render_github import append_step_summary

        append_step_summary(result, environ)


def run_score(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    from .score import Options, could_not_score, score

    args = score_parser().parse_args(argv)
    outputs = getattr(args, "outputs", None) or [["text", None]]
    mode = "range" if args.base else "worktree"
    cwd = os.getcwd()
    progress = Progress(sys.stderr) if sys.stderr.isatty() else None
    try:
        skipped = _branch_skipped(args, cwd)
        if skipped is not None:
            stdout.write(f"score-diff: branch {skipped!r} does not match --branches; not scored\n")
            return 0
        messages = tuple(args.message_file) + ((args.commit_msg_file,) if args.commit_msg_file else ())
        opts = Options(repo=args.repo, manifest=args.manifest, base=args.base, head=args.head,
                       skip_test=args.skip_test, shadow=args.shadow, cwd=cwd,
                       manifest_sha256=args.manifest_sha256, message_files=messages,
                       defer_justifications=args.defer_justifications, progress=progress)
        result = score(opts, environ)
    except (Exception, KeyboardInterrupt) as exc:  # ScoreDiffError and anything unexpected: exit 2
        result = could_not_score(exc, mode)
    finally:
        if progress is not None:
            progress.done()
    try:
        emit(result, outputs, stdout, environ, use_colour(args.color, stdout, environ))
    except Exception as exc:  # a report that cannot be written is not a verdict anyone saw
        stdout.write(f"score-diff: could not write a report: {exc}\n"
                     "RESULT: FAIL (could not score: internal-error)\n")
        return 2
    if not args.no_log:
        log_decision(result, args.log_db, os.path.join(cwd, args.repo))
    return result.exit_code


def log_decision(result: Result, log_db: str | None, repo: str) -> None:
    """Append to the decision log; a log that cannot be written warns and never changes the verdict."""
    from .decision_log import default_db_path, record

    try:
        if log_db:
            path = Path(log_db)
        else:
            from .git import Repository

            path = default_db_path(Path(Repository(repo).git_dir))
        warning = record(path, result)
    except Exception as exc:
        warning = f"decision log not written: {exc}"
    if warning:
        sys.stderr.write(f"score-diff: warning: {warning}\n")


def run_demo(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    from .demo import demo

    return demo(argv, environ, stdout)


def _manifest_arg(prog: str, description: str, argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=f"score-diff {prog}", description=description)
    p.add_argument("--manifest", help="job manifest (default: $SCORE_DIFF_MANIFEST, then job_manifest.json "
                   "at the repository root)")
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")
    return p.parse_args(argv)


def _manifest_file(args: argparse.Namespace, environ: Mapping[str, str]) -> Path:
    """The same manifest, named the same way, that scoring reads (and whose pin it checks)."""
    from .git import Repository
    from .score import manifest_path

    return manifest_path(args.manifest, os.getcwd(), environ, lambda: Repository(args.repo).root)


def run_check_manifest(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """Validate a manifest and print its digest, for review."""
    from .blast import pin_line
    from .manifest import load_manifest

    args = _manifest_arg("check-manifest", run_check_manifest.__doc__ or "", argv)
    try:
        path = _manifest_file(args, environ)
        manifest = load_manifest(path)
    except ScoreDiffError as exc:
        stdout.write(f"{exc.code}: {exc}\nRESULT: FAIL (could not score: {exc.code})\n")
        return 2
    for warning in manifest.warnings:
        stdout.write(f"warning: {warning}\n")
    stdout.write(f"manifest {path} is valid (job {manifest.job_id})\n")
    stdout.write(pin_line(path.read_bytes(), path.name))
    return 0


def run_pin(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """Validate a manifest and write <manifest>.sha256 beside it."""
    from .blast import PIN_SUFFIX, pin_line
    from .manifest import load_manifest

    args = _manifest_arg("pin", run_pin.__doc__ or "", argv)
    try:
        path = _manifest_file(args, environ)
        load_manifest(path)
        line = pin_line(path.read_bytes(), path.name)
        Path(str(path) + PIN_SUFFIX).write_text(line, encoding="utf-8")
    except (ScoreDiffError, OSError) as exc:
        stdout.write(f"score-diff pin: {exc}\nRESULT: FAIL (could not score: manifest-invalid)\n")
        return 2
    stdout.write(f"wrote {path}{PIN_SUFFIX}: {line}")
    return 0


def _log_args(prog: str, argv: Sequence[str], more: Callable[[argparse.ArgumentParser], None]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=f"score-diff {prog}")
    p.add_argument("--log-db", metavar="PATH", help="decision log (default: <git dir>/score-diff/decisions.sqlite3)")
    p.add_argument("--repo", default=".")
    more(p)
    return p.parse_args(argv)


def _log_path(args: argparse.Namespace) -> Path:
    from .decision_log import default_db_path
    from .git import Repository

    return Path(args.log_db) if args.log_db else default_db_path(Path(Repository(args.repo).git_dir))


def run_log(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """List logged decisions, newest first."""
    from .decision_log import format_records, read

    def more(p: argparse.ArgumentParser) -> None:
        p.add_argument("--job", help="only this job_id")
        p.add_argument("--limit", type=int, help="at most N decisions")
        p.add_argument("--format", choices=("text", "json"), default="text")

    args = _log_args("log", argv, more)
    try:
        stdout.write(format_records(read(_log_path(args), job=args.job, limit=args.limit), args.format))
    except ScoreDiffError as exc:
        stdout.write(f"score-diff log: {exc}\n")
        return 2
    return 0


def run_export(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """Write the decision log as redacted JSON lines; redaction counts go to stderr."""
    from .decision_log import export

    def more(p: argparse.ArgumentParser) -> None:
        p.add_argument("--out", required=True, metavar="FILE.jsonl")

    args = _log_args("export", argv, more)
    try:
        counts = export(_log_path(args), Path(args.out))
    except ScoreDiffError as exc:
        stdout.write(f"score-diff export: {exc}\n")
        return 2
    sys.stderr.write("redacted: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items())) + "\n")
    stdout.write(f"wrote {args.out}\n")
    return 0


SUBCOMMANDS: dict[str, Callable[[Sequence[str], Mapping[str, str], TextIO], int]] = {
    "demo": run_demo,
    "check-manifest": run_check_manifest,
    "pin": run_pin,
    "log": run_log,
    "export": run_export,
    "review": lambda argv, environ, out: _commands().run_review(argv, environ, out),
    "verify-report": lambda argv, environ, out: _commands().run_verify_report(argv, environ, out),
}


def _commands() -> Any:
    from . import commands

    return commands


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit code (0 PASS, 1 FAIL, 2 could not score)."""
    args = list(sys.argv[1:] if argv is None else argv)
    environ = dict(os.environ)
    try:
        if args and args[0] in SUBCOMMANDS:
            return SUBCOMMANDS[args[0]](args[1:], environ, sys.stdout)
        return run_score(args, environ, sys.stdout)
    except KeyboardInterrupt:
        sys.stdout.write("score-diff: interrupted\nRESULT: FAIL (could not score: interrupted)\n")
        return 2
    except SystemExit as exc:  # argparse: --help exits 0, a usage error 2
        code = exc.code if isinstance(exc.code, int) else 2
        if code != 0:
            sys.stdout.write("RESULT: FAIL (could not score: usage)\n")
        return code
