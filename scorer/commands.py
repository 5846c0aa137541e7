"""Subcommands beside scoring: review, verify-report, and terminal niceties for the text report."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO

from .errors import ScoreDiffError

_ANSI = {"red": "\033[31m", "green": "\033[32m", "yellow": "\033[33m", "bold": "\033[1m", "reset": "\033[0m"}
_LINE_COLOURS = (
    (re.compile(r"^RESULT: PASS \(shadow"), "yellow"),
    (re.compile(r"^RESULT: PASS"), "green"),
    (re.compile(r"^RESULT: FAIL"), "red"),
    (re.compile(r"^(FAIL|WOULD-FAIL) \["), "red"),
    (re.compile(r"^warning: "), "yellow"),
)


def use_colour(choice: str, stream: TextIO, environ: Mapping[str, str]) -> bool:
    """--color auto|always|never; auto means a terminal and no NO_COLOR."""
    if choice == "always":
        return True
    if choice == "never" or environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def colourise(text: str) -> str:
    """Colour whole lines of a text report; the words stay exactly the same."""
    out = []
    for line in text.split("\n"):
        for pattern, colour in _LINE_COLOURS:
            if pattern.match(line):
                line = f"{_ANSI[colour]}{line}{_ANSI['reset']}"
                break
        out.append(line)
    return "\n".join(out)


class Progress:
    """Shows that the required test is running, and for how long, on a terminal only."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, elapsed: float) -> None:
        self.stream.write(f"\r  running required test ... {elapsed:.0f}s ")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def page(text: str, stdout: TextIO, environ: Mapping[str, str]) -> None:
    """Through the user's pager on a terminal; straight out otherwise."""
    pager = environ.get("GIT_PAGER") or environ.get("PAGER") or "less -R"
    if not getattr(stdout, "isatty", lambda: False)() or pager in ("", "cat"):
        stdout.write(text)
        return
    stdout.flush()
    env = {**environ, "LESS": environ.get("LESS", "FRX")}
    try:
        subprocess.run(shlex.split(pager), input=text.encode("utf-8", "replace"), env=env, check=False)
    except OSError:
        stdout.write(text)


def run_review(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """Score a range; show the diff only when it PASSes."""
    from .cli import emit, log_decision
    from .git import Repository
    from .score import Options, could_not_score, score

    p = argparse.ArgumentParser(prog="score-diff review", description=run_review.__doc__)
    p.add_argument("--base", required=True, help="the target branch, e.g. main")
    p.add_argument("--head", help="the head commit (default HEAD)")
    p.add_argument("--manifest", help="job manifest (read at --base when it lives in the repository)")
    p.add_argument("--repo", default=".")
    p.add_argument("--skip-test", action="store_true")
    p.add_argument("--log-db", metavar="PATH", help="decision log (default: <git dir>/score-diff/decisions.sqlite3)")
    p.add_argument("--no-log", action="store_true", help="do not append this review to the decision log")
    args = p.parse_args(argv)
    opts = Options(repo=args.repo, manifest=args.manifest, base=args.base, head=args.head,
                   skip_test=args.skip_test, cwd=os.getcwd())
    try:
        result = score(opts, environ)
    except Exception as exc:  # ScoreDiffError and anything unexpected: exit 2, never a diff
        result = could_not_score(exc, "range")
    emit(result, [["text", None]], stdout)
    if not args.no_log:
        log_decision(result, args.log_db, os.path.join(os.getcwd(), args.repo))
    if result.exit_code != 0 or result.shadow:
        stdout.write("The change did not PASS: restore the tree; do not read the patch.\n")
        return result.exit_code or 1
    from .render import printable_lines

    repo = Repository(os.path.join(os.getcwd(), args.repo))
    assert result.base and result.head
    # The reviewer reads this to judge the change: escape sequences in it must not hide lines.
    page(printable_lines(repo.display_diff(result.base, result.head)), stdout, environ)
    return 0


def run_verify_report(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO) -> int:
    """Check that a JSON report is a real PASS bound to this manifest, base and head."""
    from .git import Repository
    from .manifest import load_manifest
    from .verify import verify_report

    p = argparse.ArgumentParser(prog="score-diff verify-report", description=run_verify_report.__doc__)
    p.add_argument("report", help="a report written with --format json --output FILE")
    p.add_argument("--base", help="the target branch; compared with the report's merge-base")
    p.add_argument("--head", help="the commit being merged (default HEAD when --base is given)")
    p.add_argument("--manifest", help="the manifest file whose sha256 the report must name")
    p.add_argument("--repo", default=".")
    args = p.parse_args(argv)
    try:
        with open(args.report, encoding="utf-8") as fh:
            report = json.load(fh)
        base = head = digest = None
        repo = Repository(os.path.join(os.getcwd(), args.repo)) if args.base or args.head else None
        if repo is not None:
            head = repo.resolve(args.head or "HEAD")
            base = repo.merge_base(repo.resolve(args.base), head) if args.base else None
        if args.manifest:
            digest = load_manifest(Path(os.getcwd(), args.manifest)).sha256
        problems = verify_report(report, manifest_sha256=digest, base=base, head=head)
    except (OSError, ValueError, ScoreDiffError) as exc:
        stdout.write(f"score-diff verify-report: {exc}\nRESULT: FAIL (could not verify)\n")
        return 2
    for problem in problems:
        stdout.write(f"FAIL {problem}\n")
    stdout.write("RESULT: FAIL (report does not bind to this merge)\n" if problems else
                 "RESULT: PASS (report binds to this merge)\n")
    return 1 if problems else 0
