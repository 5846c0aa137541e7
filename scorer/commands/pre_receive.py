"""`score-diff pre-receive`: the server hook; scores each pushed agent ref, non-zero rejects the push.

Install it as `hooks/pre-receive` of the bare repository; git feeds one `<old> <new> <ref>`
line per pushed ref on stdin. Only refs matching --agent-ref are scored; the report and hints
go to stderr, which git relays to the pusher as `remote:` lines.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..context import Context
from .shared import add_job_branch, add_log_db, log_decision

if TYPE_CHECKING:
    from ..server import Policy, RefDecision, RefUpdate

HELP = "server hook (pre-receive): score each pushed agent ref read from stdin; non-zero rejects the push"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..server import DEFAULT_AGENT_REFS, DEFAULT_BASE

    p.add_argument(
        "--repo", default=".", help="the bare repository (default: the current directory, where git runs its hooks)"
    )
    p.add_argument(
        "--agent-ref",
        dest="agent_refs",
        action="append",
        metavar="GLOB",
        help=f"full ref names to score (repeatable; default {DEFAULT_AGENT_REFS[0]}); "
        "every other ref is accepted unscored",
    )
    p.add_argument(
        "--base",
        default=DEFAULT_BASE,
        metavar="REF",
        help=f"the approved branch: changes are scored from the merge-base with it, and the "
        f"manifest is read from its tip (default {DEFAULT_BASE})",
    )
    p.add_argument(
        "--manifest",
        help="the manifest's path inside the repository, read at --base "
        "(default job_manifest.json); an absolute path is a file on the server",
    )
    p.add_argument("--manifest-sha256", metavar="HEX", help="refuse unless the manifest has this sha256")
    p.add_argument("--deny-delete", action="store_true", help="reject the deletion of an agent ref")
    add_job_branch(p)
    p.add_argument(
        "--run-test",
        action="store_true",
        help="run the required test in a temporary checkout of each pushed agent commit; this runs "
        "the agent's code on the server, so only where that is sandboxed (default: skipped, said so)",
    )
    add_log_db(p, writes=True)
    # The decision log's repository is opened as the scoring one is; its rows say gate server.
    p.set_defaults(receiving=True, gate="server")


def policy(args: argparse.Namespace) -> Policy:
    """The options above are named as Policy's fields, so a new field is one option, not a copy."""
    from ..server import DEFAULT_AGENT_REFS, Policy

    given = {field: getattr(args, field) for field in Policy._fields}
    return Policy(**{**given, "agent_refs": tuple(given["agent_refs"] or DEFAULT_AGENT_REFS)})


def enforce(updates: Sequence[RefUpdate], args: argparse.Namespace, ctx: Context) -> int:
    """Decide every ref, tell the pusher why, log what was scored; the worst exit code."""
    from ..server import decide, exit_code

    chosen = policy(args)
    decisions = [decide(u, chosen, ctx.environ, ctx.cwd) for u in updates]
    for d in decisions:
        _tell(d, chosen.base, ctx)
        if d.result is not None:
            log_decision(d.result, args, ctx)
    return exit_code(decisions)


def _tell(d: RefDecision, base: str, ctx: Context) -> None:
    from ..report.escape import one_line
    from ..report.text import render

    ref = one_line(d.update.ref)
    if d.result is None:
        verdict = "accepted" if d.exit_code == 0 else "rejected"
        if d.exit_code or d.note != "not an agent ref; not scored":
            ctx.stderr.write(f"score-diff: {ref}: {verdict}: {d.note}\n")
        return
    since = f" (merge-base {d.result.base[:12]})" if d.result.base else ""
    ctx.stderr.write(f"score-diff: {ref}: the commits it adds to {one_line(base)}{since}\n")
    ctx.stderr.write(render(d.result))
    if d.exit_code:  # the report's own `-> do:` lines tell the agent what to change
        ctx.stderr.write(f"score-diff: {ref}: rejected; fix the commits on the branch and push again\n")
    else:
        ctx.stderr.write(f"score-diff: {ref}: accepted\n")
    ctx.stderr.flush()


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..server import parse_lines

    return enforce(parse_lines(ctx.stdin.read()), args, ctx)
