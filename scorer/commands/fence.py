"""`score-diff fence [--format markdown|json]`: the job's fence as instructions for the agent, before it starts.

The manifest is found, pinned and validated exactly as scoring does; put the output in the
agent's prompt (or let the guard hand it over at session start, docs/agent-feedback.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..context import Context
from .shared import add_job_branch, add_manifest, repository

HELP = "print the job's fence as instructions an agent can follow before it starts"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_manifest(p)
    p.add_argument(
        "--job", help="this job's manifest, .score-diff/jobs/JOB.json; default: the job the branch names (--job-branch)"
    )
    add_job_branch(p)
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("markdown", "json"),
        default="markdown",
        help="markdown for a prompt (default), json for a program",
    )


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..feedback.fence import fence_facts, render_json, render_markdown
    from ..pipeline import Options, committed_fence
    from ..setup.hooks import hooks_since

    repo = repository(args, ctx)
    opts = Options(repo=args.repo, manifest=args.manifest, cwd=ctx.cwd, job=args.job, job_branch=args.job_branch)
    try:
        manifest, rel = committed_fence(repo, opts, ctx.environ)
        hooks, since = hooks_since(Path(repo.hooks_dir()), repo.work_tree) if repo.root else (False, None)
    finally:
        repo.close()
    facts = {**fence_facts(manifest, rel), "gate": {"hooks": hooks, "since": since}}
    ctx.stdout.write(render_json(facts) if args.fmt == "json" else render_markdown(facts))
    return 0
