"""`score-diff install-hook`: plain `.git/hooks` scripts (pre-commit and commit-msg), no framework."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..context import Context
from .shared import add_repo, repository

HELP = "write .git/hooks/pre-commit and commit-msg scripts that run score-diff on agent branches"
DEFAULT_BRANCHES = ("agent-*",)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_repo(p)
    p.add_argument(
        "--branches",
        action="append",
        metavar="GLOB",
        help="score commits on branches matching GLOB (repeatable; default agent-*)",
    )
    p.add_argument(
        "--since",
        metavar="REF",
        help="the base branch: the hooks score the branch since its merge-base with REF plus the working "
        "tree, as CI's --base REF will (default: origin's default branch, else main or master)",
    )
    p.add_argument("--force", action="store_true", help="overwrite hook scripts that exist and differ")


def install(args: argparse.Namespace, ctx: Context) -> bool:
    """Write the two scripts; report each; False when one was kept because it differs."""
    from ..setup.hooks import describe, install_git_hooks

    repo = repository(args, ctx)
    repo.work_tree  # noqa: B018 - hooks need a working tree: a bare repository is refused here
    branches = args.branches or DEFAULT_BRANCHES
    since = args.since or repo.default_branch()
    if since is None:
        ctx.stdout.write(
            "no base branch found (no origin/HEAD, main or master): the hooks score the working tree against "
            "HEAD only, not the branch's commits as CI will; pass --since BRANCH\n"
        )
    elif not args.since:
        ctx.stdout.write(f"the hooks score the branch since its merge-base with {since}, as CI's --base {since} will\n")
    written = install_git_hooks(Path(repo.hooks_dir()), sys.executable, branches, args.force, since)
    for w in written:
        ctx.stdout.write(describe(w, str(w.path)) + "\n")
    return all(w.state != "kept" for w in written)


def run(args: argparse.Namespace, ctx: Context) -> int:
    return 0 if install(args, ctx) else 1
