"""`score-diff init`: a starter manifest read off the repository and the hook configuration, in one command.

Idempotent: a file that is already there and differs is kept (pass --force to overwrite).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from ..context import Context
from ..errors import ScoreDiffError, UsageError
from . import install_hook
from .shared import add_repo, repository

HELP = "write a starter manifest and the hook configuration, then print the next steps"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
GITLINK = "160000"  # a submodule's index entry: a commit, not a file


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_repo(p)
    p.add_argument("--job", help="the job's id (default: <directory name>-job)")
    p.add_argument(
        "--hooks",
        choices=("git", "pre-commit", "none"),
        default="git",
        help="git: .git/hooks scripts, working at once (default); pre-commit: a repo: local "
        f"{PRE_COMMIT_CONFIG} for the pre-commit framework; none: the manifest only",
    )
    p.add_argument(
        "--branches",
        action="append",
        metavar="GLOB",
        help="the hooks score branches matching GLOB (repeatable; default agent-*)",
    )
    p.add_argument(
        "--per-job",
        action="store_true",
        help="write the manifest as .score-diff/jobs/JOB.json, one file per job side by side (needs "
        "--job); the hooks then find it from the branch agent-JOB",
    )
    p.add_argument(
        "--base",
        metavar="REF",
        help="the base branch agents start from, where the fence is committed (default: the current branch); "
        "the hooks score the branch since its merge-base with it, as CI's --base does",
    )
    p.add_argument("--force", action="store_true", help="overwrite files that exist and differ")


def run(args: argparse.Namespace, ctx: Context) -> int:
    from ..manifest.jobs import manifest_rel
    from ..manifest.load import parse_manifest
    from ..manifest.locate import DEFAULT_MANIFEST
    from ..setup.detect import starter_manifest
    from ..setup.hooks import describe, write_file

    if args.per_job and not args.job:
        raise UsageError("--per-job needs --job JOB: the file is .score-diff/jobs/JOB.json")
    repo = repository(args, ctx)
    root = repo.work_tree
    found = repo.default_branch()
    base = args.base or (found if found and "/" not in found else None) or repo.branch() or "main"
    args.since = base  # what install-hook's scripts and the pre-commit config pass the hooks
    job = args.job or f"{os.path.basename(root)}-job"
    target = manifest_rel(job) if args.per_job else DEFAULT_MANIFEST
    created = [target + ".sha256", *([PRE_COMMIT_CONFIG] if args.hooks == "pre-commit" else [])]
    files = sorted({*repo.file_names(), *created})
    # Protected tests from git's index, not the disk: an untracked test file is nobody's promise yet.
    tracked = [path for path, (mode, _) in repo.index_entries(()).items() if mode != GITLINK]
    manifest, commands = starter_manifest(files, lambda rel: _read(root, rel), job, target, tracked=tracked)
    text = json.dumps(manifest, indent=2) + "\n"
    parse_manifest(text.encode(), "the starter manifest")  # what init writes always validates
    # A manifest or config already there is the user's (edited, as step 1 says): kept, not an error.
    ctx.stdout.write(describe(write_file(Path(root, target), text, args.force), target) + "\n")
    installed = True
    if args.hooks == "pre-commit":
        installed = _pre_commit(Path(root, PRE_COMMIT_CONFIG), args.branches or ["agent-*"], base, args.force, ctx)
    elif args.hooks == "git":
        installed = install_hook.install(args, ctx)  # a hook of someone else's kept: the gate is not on
    ctx.stdout.write(_next_steps(args, target, manifest, commands, base))
    if os.path.isdir(os.path.join(root, ".venv")):
        ctx.stdout.write(
            f"note: required_test runs `{manifest['required_test'][0]}` from PATH, not .venv/bin/python, which "
            "a fresh CI checkout lacks: commit with the virtualenv activated\n"
        )
    from .doctor import doctor

    ctx.stdout.write("\n")
    doctor(args, ctx, base=base, rel=target)  # what is still missing: the steps above, checked
    return 0 if installed else 1


def _pre_commit(path: Path, branches: list[str], base: str, force: bool, ctx: Context) -> bool:
    """Write the config, or merge score-diff's hooks into the user's; False when it cannot be merged."""
    from ..setup.hooks import describe, pre_commit_config, write_file
    from ..setup.merge import Unmergeable, lines_to_add, merge

    existing = _read(str(path.parent), path.name)
    if existing is None or force:
        ctx.stdout.write(describe(write_file(path, pre_commit_config(branches, base), force), path.name) + "\n")
        return True
    try:
        merged = merge(existing.decode("utf-8"), branches, base)
    except (Unmergeable, UnicodeDecodeError) as exc:
        ctx.stdout.write(
            f"could not merge score-diff's hooks into {path.name} ({exc}); nothing was changed.\n"
            + lines_to_add(branches, base)
        )
        return False
    if not merged.changed:
        ctx.stdout.write(f"{path.name} already runs score-diff's hooks\n")
        return True
    try:
        path.write_text(merged.text, encoding="utf-8")
    except OSError as exc:
        raise ScoreDiffError(f"cannot write {path}: {exc.strerror or exc}") from exc
    ctx.stdout.write(f"merged score-diff's hooks into {path.name} (your hooks, comments and order are kept)\n")
    return True


def _read(root: str, rel: str) -> bytes | None:
    try:
        return Path(root, rel).read_bytes()
    except OSError:
        return None


def _next_steps(
    args: argparse.Namespace,
    target: str,
    manifest: dict[str, object],
    commands: list[tuple[str, ...]],
    base: str,
) -> str:
    import shlex

    test = shlex.join(manifest["required_test"])  # type: ignore[arg-type]
    guarded: list[str] = manifest["protected_tests"]  # type: ignore[assignment]
    protected = (
        f"protected_tests ({', '.join(guarded)}) are the tracked test files the job may add to, never weaken"
        if guarded
        else "git tracks no test file, so protected_tests is empty: list the tests the job may not weaken"
    )
    found = "; also found: " + ", ".join(shlex.join(c) for c in commands[1:]) if len(commands) > 1 else ""
    hooks = {
        "git": "install the hooks: already done in this clone (score-diff install-hook in every other clone)",
        "pre-commit": f"install the hooks: pre-commit install (it reads default_install_hook_types from "
        f"{PRE_COMMIT_CONFIG})",
        "none": "install the hooks: score-diff install-hook (or score-diff init --hooks pre-commit)",
    }
    commit = " ".join([target, f"{target}.sha256", *([PRE_COMMIT_CONFIG] if args.hooks == "pre-commit" else [])])
    pin = f"score-diff pin --manifest {target}" if args.per_job else "score-diff pin"
    branch_for = f"agent-{manifest['job_id']}" if args.per_job else "agent-<job>"
    return f"""next steps:
  1. edit {target}: say what the job is in description, narrow allowed_paths to the files this job may
     change; required_test is `{test}`{found};
     {protected}
  2. pin it: {pin}   (writes {target}.sha256; pin refuses the unedited starter)
  3. commit the fence on the base branch before the agent starts:
     git switch {base} && git add {commit} && git commit -m "score-diff: job fence"
  4. {hooks[args.hooks]}; then score-diff doctor
  5. start the agent on a branch named {branch_for} (git switch -c agent-{manifest["job_id"]});
     CI: score-diff --base {base}; a git server: score-diff pre-receive (docs/teams.md)
"""
