"""The command line: `score-diff [SUBCOMMAND] [options]`, one error handler, one verdict line.

With no subcommand, score-diff scores (`score-diff --base main` is `score-diff score --base main`).
A word in the subcommand's place that is not one is a usage error, never a file name.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType

from . import __version__
from .context import Context
from .errors import ScoreDiffError, UsageError
from .report.facts import could_not_score_line

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from typing import NoReturn, TextIO

# The one table of subcommands: name -> module in scorer.commands with HELP, add_arguments()
# and run(). A module is imported only when its subcommand runs: the hook pays for `score` alone.
COMMANDS: dict[str, str] = {
    "score": "score",
    "commit-msg": "commit_msg",
    "demo": "demo",
    "check-manifest": "check_manifest",
    "pin": "pin",
    "log": "log",
    "export": "export",
    "review": "review",
    "verify-report": "verify_report",
    "fence": "fence",
    "guard": "guard",
    "jail": "jail",
    "serve": "serve",
    "pre-receive": "pre_receive",
    "update": "update",
    "init": "init",
    "install-hook": "install_hook",
    "jobs": "jobs",
    "doctor": "doctor",
    "test": "test",
}


# The subcommands whose output ends in a verdict; a failure of any other one (pin, log, init,
# ...) is an error of that command, not a score that could not be reached.
VERDICTS = frozenset({"score", "commit-msg", "review", "verify-report", "pre-receive", "update"})


def failed_line(name: str | None, code: str) -> str:
    """The last line of a run that stopped with an error: a verdict's, or the command's own."""
    if name is None or name in VERDICTS:
        return could_not_score_line(code)
    return f"score-diff {name}: failed ({code})"


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.commands.{COMMANDS[name]}")


def terminal_columns(environ: Mapping[str, str], stdout: TextIO | None) -> int:
    """The width `shutil.get_terminal_size()` reports: $COLUMNS when a positive number, else the
    terminal's, else 80. Read here because argparse makes a help formatter for every option added,
    and its default one imports shutil (with zlib, bz2 and lzma) for this number (issue 29)."""
    try:
        columns = int(environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(stdout.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's own layout, at the width shutil would give it, without importing shutil."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        if width is None:
            width = terminal_columns(os.environ, sys.__stdout__) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error raises UsageError for the one handler instead of exiting."""

    def error(self, message: str) -> NoReturn:
        extra = [w for w in message.split("unrecognized arguments: ", 1)[1:] for w in w.split()]
        words = [w for w in extra if w in COMMANDS]
        if words:
            message += f" ('{words[0]}' is a subcommand: put it first, as in score-diff {words[0]} --help)"
        raise UsageError(f"{self.prog}: {message}")


def parser(name: str) -> argparse.ArgumentParser:
    module = command_module(name)
    prog = "score-diff" if name == "score" else f"score-diff {name}"
    p = _Parser(prog=prog, description=(module.__doc__ or "").strip().splitlines()[0], formatter_class=_HelpFormatter)
    module.add_arguments(p)
    if name == "score":
        p.epilog = "subcommands: " + ", ".join(COMMANDS) + " (score-diff SUBCOMMAND --help)"
        p.add_argument("--version", action="version", version=f"score-diff {__version__}")
    return p


def _command(args: list[str]) -> tuple[str, list[str]]:
    """The subcommand and its arguments; options first means `score`."""
    if not args or args[0].startswith("-"):
        return "score", args
    if args[0] in COMMANDS:
        return args[0], args[1:]
    import difflib

    close = difflib.get_close_matches(args[0], list(COMMANDS), n=1)
    hint = f"; did you mean 'score-diff {close[0]}'?" if close else f"; subcommands: {', '.join(COMMANDS)}"
    raise UsageError(f"score-diff: unknown subcommand {args[0]!r}{hint}")


def _redact(text: str) -> str:
    from .secrets.redaction import redact

    return redact(text)


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    stdout: TextIO | None = None,
    stdin: TextIO | None = None,
    cwd: str | None = None,
) -> int:
    """Entry point: returns the exit code (0 PASS, 1 FAIL, 2 could not score)."""
    args = list(sys.argv[1:] if argv is None else argv)
    ctx = Context(
        environ=dict(os.environ) if environ is None else environ,
        stdout=stdout or sys.stdout,
        stderr=sys.stderr,
        stdin=stdin or sys.stdin,
        cwd=cwd or os.getcwd(),
        score_diff=main,
    )
    name: str | None = None
    try:
        name, rest = _command(args)
        module = command_module(name)
        own = getattr(module, "run_argv", None)
        if own is not None:  # a hook that must answer in its agent's format even for a usage error
            return int(own(rest, ctx))
        return int(module.run(parser(name).parse_args(rest), ctx))
    except SystemExit as exc:  # --help and --version exit 0 through argparse
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        ctx.stdout.write(f"{exc}\n{failed_line(name, exc.code)}\n")
    except ScoreDiffError as exc:  # a message can name a file, and a file name can hold a secret
        ctx.stdout.write(f"score-diff: {_redact(str(exc))}\n{failed_line(name, exc.code)}\n")
    except KeyboardInterrupt:
        ctx.stdout.write(f"score-diff: interrupted\n{failed_line(name, 'interrupted')}\n")
    except Exception as exc:  # never a bare traceback, never exit 0
        ctx.stdout.write(f"score-diff: unexpected {type(exc).__name__}: {_redact(str(exc))}\n")
        ctx.stdout.write(failed_line(name, "internal-error") + "\n")
    return 2
