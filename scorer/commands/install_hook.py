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
        "tree, as CI's --base REF will (recommended; without it they score the working tree against HEAD)",
    )
    p.add_argument("--force", action="store_true", help="overwrite hook scripts that exist and differ")


def install(args: argparse.Namespace, ctx: Context) -> bool:
    """Write the two scripts; report each; False when one was kept because it differs."""
    from ..setup.hooks import describe, install_git_hooks

    repo = repository(args, ctx)
    repo.work_tree  # noqa: B018 - hooks need a working tree: a bare repository is refused here
    branches = args.branches or DEFAULT_BRANCHES
    written = install_git_hooks(Path(repo.hooks_dir()), sys.executable, branches, args.force, args.since)
    for w in written:
        ctx.stdout.write(describe(w, str(w.path)) + "\n")
    return all(w.state != "kept" for w in written)


def run(args: argparse.Namespace, ctx: Context) -> int:
    return 0 if install(args, ctx) else 1
