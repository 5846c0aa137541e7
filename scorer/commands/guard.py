"""`score-diff guard`: check one agent tool call (a hook payload on stdin) before the write lands.

The answer is in the agent's own format and exit code (docs/guard.md). Every failure,
a bad command line included, answers with the agent's blocking answer: Claude Code does
not block on exit 1, Codex does not block on exit 2 without a reason on stderr, and
Copilot blocks only on a JSON deny with exit 0.
"""

from __future__ import annotations

from types import SimpleNamespace

from ..context import Context

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any, TextIO

HELP = "check one agent tool call against the job manifest (a hook: payload on stdin)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..guard.payload import AGENTS, CLAUDE

    p.add_argument("--agent", choices=AGENTS, default=CLAUDE, help="whose hook payload and answer format")
    p.add_argument(
        "--manifest", help="job manifest (default: $SCORE_DIFF_MANIFEST, then job_manifest.json at the repository root)"
    )
    p.add_argument("--shadow", action="store_true", help="allow everything; log what would have been blocked or asked")
    p.add_argument("--log-db", metavar="PATH", help="decision log (default: <git dir>/score-diff/decisions.sqlite3)")
    p.add_argument("--no-log", action="store_true", help="do not log this decision")


def guard_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(prog="score-diff guard", description=HELP)
    add_arguments(p)
    return p


def run_argv(words: Sequence[str], ctx: Context) -> int:
    """Parses its own arguments (scorer.main calls this instead of run): a usage error must still block."""
    words = list(words)
    if words[:1] == ["install"]:
        from ..guard.install import run_install

        return run_install(words[1:], ctx.environ, ctx.stdout, ctx.cwd)
    mistyped = bool(words) and not words[0].startswith("-")
    if mistyped or (not {"-h", "--help"} & set(words) and _from_a_terminal(ctx)):
        return _usage(words[:1] if mistyped else [], ctx)  # a person at a prompt, not an agent's hook
    opts: Any = _hook_options(words)
    try:
        opts = opts or guard_parser().parse_args(words)
    except SystemExit as exc:  # --help exits 0; a usage error blocks the call
        if exc.code == 0:
            return 0
        return _blocked(words, "bad command line (see score-diff guard --help)", ctx.stdout, ctx.stderr)
    return run(opts, ctx)


def _from_a_terminal(ctx: Context) -> bool:
    try:
        return bool(ctx.stdin.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _usage(words: Sequence[str], ctx: Context) -> int:
    """A mistyped subcommand, or no payload because stdin is a terminal: usage, exit 2 (still blocking)."""
    from ..guard.payload import AGENTS

    agents = "|".join(AGENTS)
    what = f"unknown guard subcommand {words[0]!r} (did you mean 'install'?)" if words else "no payload on stdin"
    ctx.stdout.write(
        f"score-diff guard: {what}\n"
        f"usage: score-diff guard [--agent {agents}] [--manifest PATH] [--shadow] "
        "[--log-db PATH] [--no-log] < payload.json\n"
        f"       score-diff guard install --agent {agents} [--repo DIR] [--print]\n"
        "The agent's hook runs `score-diff guard` with one tool-call payload on stdin; to set that up, "
        "run score-diff guard install --agent claude (docs/guard.md).\n"
        "score-diff guard: failed (usage)\n"
    )
    return 2


_VALUED = {"--agent": "agent", "--manifest": "manifest", "--log-db": "log_db"}
_FLAGS = {"--shadow": "shadow", "--no-log": "no_log"}


def _hook_options(words: Sequence[str]) -> SimpleNamespace | None:
    """The options of a command line spelt exactly as the hooks spell it, without argparse.

    Importing argparse and building the parser is 4 to 13 ms of every tool call; anything
    this does not read exactly (help, abbreviations, an unknown agent, a missing value)
    goes to argparse, which decides.
    """
    from ..guard.payload import AGENTS, CLAUDE

    found: dict[str, Any] = {"agent": CLAUDE, "manifest": None, "log_db": None, "shadow": False, "no_log": False}
    rest = list(words)
    while rest:
        word = rest.pop(0)
        name, eq, value = word.partition("=")
        if name in _VALUED and (eq or (rest and not rest[0].startswith("-"))):
            found[_VALUED[name]] = value if eq else rest.pop(0)
        elif word in _FLAGS:
            found[_FLAGS[word]] = True
        else:
            return None
    ok = found["agent"] in AGENTS and all(found[k] is None or found[k] for k in ("manifest", "log_db"))
    return SimpleNamespace(**found) if ok else None


def _blocked(words: Sequence[str], why: str, stdout: TextIO, stderr: TextIO) -> int:
    """The blocking answer when the guard could not run: the agent's own, if the words name one."""
    agent = next((w.split("=", 1)[1] for w in words if w.startswith("--agent=")), None)
    if agent is None and "--agent" in words[:-1]:
        agent = words[list(words).index("--agent") + 1]
    try:
        from ..guard.answer import render
        from ..guard.decide import refuse

        answer = render(refuse("guard-failed", why), agent or "claude")
        stdout.write(answer.stdout)
        stdout.flush()
        stderr.write(answer.stderr)
    except BaseException:  # the plain blocking exit still stands
        stderr.write(f"score-diff guard: {why}; the call is blocked\n")
        return 2
    return answer.exit_code


def run(opts: argparse.Namespace | SimpleNamespace, ctx: Context) -> int:
    import time

    from ..guard.payload import MAX_PAYLOAD_BYTES
    from ..guard.run import GuardOptions, evaluate_in_time, log

    raw = _read(ctx, MAX_PAYLOAD_BYTES + 1)
    options = GuardOptions(
        agent=opts.agent,
        manifest=opts.manifest,
        cwd=ctx.cwd,
        shadow=opts.shadow,
        log=not opts.no_log,
        log_db=opts.log_db,
    )
    started = time.monotonic()
    outcome = evaluate_in_time(raw, options, ctx.environ)
    ctx.stdout.write(outcome.answer.stdout)
    ctx.stdout.flush()
    ctx.stderr.write(outcome.answer.stderr)
    ctx.stderr.flush()
    # The answer is out before the log is written; a log that cannot be written waits a short
    # busy timeout once (decision_log.GUARD_BUSY_TIMEOUT_S) and says so on stderr, once.
    warning = log(outcome, options, time.monotonic() - started)
    if warning:
        ctx.stderr.write(f"score-diff guard: {warning}\n")
        ctx.stderr.flush()
    return outcome.answer.exit_code


def _read(ctx: Context, limit: int) -> bytes:
    """The payload's bytes: from the binary buffer under a text stdin when there is one."""
    buffer = getattr(ctx.stdin, "buffer", None)
    if buffer is not None:
        return bytes(buffer.read(limit))
    return ctx.stdin.read(limit).encode("utf-8", "surrogateescape")


def run_hook(words: Sequence[str]) -> int:
    """`score-diff guard` from the console entry, without scorer.main: the same answer, fewer imports."""
    import os
    import sys

    ctx = Context(environ=dict(os.environ), stdout=sys.stdout, stderr=sys.stderr, stdin=sys.stdin, cwd=os.getcwd())
    try:
        return run_argv(words, ctx)
    except BaseException as exc:  # a hook that crashes does not block in Claude Code: block here
        if isinstance(exc, SystemExit) and exc.code == 0:
            return 0
        return _blocked(words, f"unexpected {type(exc).__name__}", sys.stdout, sys.stderr)
