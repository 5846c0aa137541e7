"""One run of the required test, as the gate needs it: the hardened environment, a snapshot
of HEAD, index and working tree before and after, and notes for the report."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..model import TestOutcome
from . import run_test
from .environment import program_inside, test_environment

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..manifest.load import Manifest


def run_required(
    repo: Repository, manifest: Manifest, environ: Mapping[str, str], watch_tree: bool,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run `required_test` in the repository root; with `watch_tree`, record what it changed there."""
    from ..inspection import snapshot

    argv = manifest.required_test
    env = test_environment(environ, manifest.test_env)
    before = snapshot.take(repo) if watch_tree else None
    test = run_test(argv, repo.work_tree, manifest.test_timeout_s, env, progress=progress)
    if before is not None:
        effects = snapshot.differences(before, snapshot.take(repo))
        test = test._replace(side_effects=tuple((e.path, e.what) for e in effects))
    inside = program_inside(argv[0], env, repo.work_tree)
    if inside is not None:
        test = test._replace(notes=(*test.notes, f"the required test's program {inside} is inside the repository, "
                                    "found through PATH: if git does not track it, the job can rewrite it unseen "
                                    "(CI, on a clean checkout, is the backstop)"))
    return test


def run_in_checkout(
    repo: Repository, manifest: Manifest, environ: Mapping[str, str], commit: str,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run `required_test` in a temporary checkout of `commit` (a server's bare repository has no
    working tree); the checkout is removed afterwards, whatever the test left in it."""
    import os
    import tempfile

    with tempfile.TemporaryDirectory(prefix="score-diff-test-") as scratch:
        tree = os.path.join(scratch, "tree")
        os.mkdir(tree)
        repo.check_out_into(commit, tree, os.path.join(scratch, "index"))
        env = test_environment(environ, manifest.test_env)
        test = run_test(manifest.required_test, tree, manifest.test_timeout_s, env, progress=progress)
    return test._replace(notes=(*test.notes, "the required test ran in a temporary checkout of the pushed commit "
                                "on the git server (--run-test)"))
