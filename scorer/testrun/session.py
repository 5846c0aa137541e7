"""One run of the required test, as the gate needs it: the hardened environment, evidence that
tests ran, a snapshot of HEAD, index and working tree before and after, and notes for the report."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..errors import ScoreDiffError
from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import evidence, run_test
from .environment import program_inside, test_environment

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..manifest.load import Manifest


def run_required(
    repo: Repository,
    manifest: Manifest,
    environ: Mapping[str, str],
    watch_tree: bool,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run `required_test` in the repository root; with `watch_tree`, record what it changed there."""
    root = repo.work_tree
    scratch = _scratch(root)
    try:
        return _run(repo, root, scratch, manifest, environ, watch_tree, progress)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_in_checkout(
    repo: Repository,
    manifest: Manifest,
    environ: Mapping[str, str],
    commit: str,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """Run `required_test` in a temporary checkout of `commit` (a server's bare repository has no
    working tree); the checkout is removed afterwards, whatever the test left in it."""
    with tempfile.TemporaryDirectory(prefix="score-diff-test-") as scratch:
        tree = os.path.join(scratch, "tree")
        reports = os.path.join(scratch, "reports")
        os.mkdir(tree)
        os.mkdir(reports)
        repo.check_out_into(commit, tree, os.path.join(scratch, "index"))
        test = _run(repo, tree, reports, manifest, environ, False, progress)
    return _note(
        test, "the required test ran in a temporary checkout of the pushed commit on the git server (--run-test)"
    )


def _run(
    repo: Repository,
    root: str,
    scratch: str,
    manifest: Manifest,
    environ: Mapping[str, str],
    watch_tree: bool,
    progress: Callable[[float], None] | None,
) -> TestOutcome:
    from ..inspection import snapshot

    argv = manifest.required_test
    planned = evidence.plan(argv, manifest.test_report, root, scratch)
    env = {**test_environment(environ, manifest.test_env), **planned.env}
    before = snapshot.take(repo) if watch_tree else None
    existed = evidence.identity(planned.report)
    test = run_test(planned.argv, root, manifest.test_timeout_s, env, progress=progress)._replace(argv=argv)
    if test.status in (TEST_PASSED, TEST_FAILED) and test.exit_code is not None:
        found = evidence.collect(planned, existed, manifest.min_tests)
        test = test._replace(evidence=found)
        if test.status == TEST_PASSED and found.problem:
            test = test._replace(status=TEST_FAILED, reason=f"exited 0, but {found.note}")
        if found.kind == "exit-status":
            test = _note(
                test,
                f"the required test's verdict rests on its exit status alone: {found.note} "
                "(docs/required-test.md#evidence-that-tests-ran)",
            )
    if before is not None:
        exempt = frozenset(p for p in [_inside(planned.report, root)] if p is not None)
        effects = snapshot.differences(before, snapshot.take(repo), exempt)
        test = test._replace(side_effects=tuple((e.path, e.what) for e in effects))
    inside = program_inside(argv[0], env, root)
    if inside is not None:
        test = _note(
            test,
            f"the required test's program {inside} is inside the repository, found through PATH: "
            "if git does not track it, the job can rewrite it unseen (CI, on a clean checkout, "
            "is the backstop)",
        )
    return test


def _note(test: TestOutcome, note: str) -> TestOutcome:
    return test._replace(notes=(*test.notes, note))


def _scratch(root: str) -> str:
    """A fresh directory for score-diff's own report, outside the repository the job writes."""
    scratch = tempfile.mkdtemp(prefix="score-diff-test-")
    if _inside(scratch, root) is not None:
        shutil.rmtree(scratch, ignore_errors=True)
        raise ScoreDiffError(
            f"the temporary directory {scratch} is inside the repository (TMPDIR points there); point TMPDIR outside it"
        )
    return scratch


def _inside(path: str | None, root: str) -> str | None:
    """`path` relative to the repository root, or None when it lies outside (or is None)."""
    if path is None:
        return None
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root:
        return None
    return os.path.relpath(real, real_root).replace(os.sep, "/")
