"""One process of the required test in the checkout, as every pass runs it: `Session`, what the
passes of one run share, and `streamed`, one run with the hardened environment, its report planned
and its outcome stream read (session.py runs the passes, flipped.py reruns the tests that flipped)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import checkout, comparisons, envelope, evidence, stream
from .environment import test_environment
from .run import run_test

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..manifest.load import Manifest

TWICE = "SCORE_DIFF_TWICE"  # the first stability run runs each flipped test twice in its one process


class Session(NamedTuple):
    """What every pass of one run shares: the repository, the manifest, the caller's environment,
    the progress line, the checkout the passes take turns in and the scratch directory around it."""

    repo: Repository
    manifest: Manifest
    environ: Mapping[str, str]
    progress: Callable[[float], None] | None
    work: checkout.Workdir
    scratch: str
    base_tree: str | None = None  # the base's tree, for the flipped tests' comparison probe there
    changed: frozenset[str] = frozenset()  # the paths the job added or changed (comparisons.py)
    granted: Callable[[str], bool] | None = None  # allowed_test_config: the job's files in the spec pass
    listings: tuple[tuple[str, Mapping[str, tuple[str, str]]], ...] = ()  # checkout.Trees.listings

    def listing(self, tree: str) -> Mapping[str, tuple[str, str]]:
        """`tree`'s {path: (mode, object id)}: the one this run already read, else git's."""
        known = dict(self.listings).get(tree)
        return known if known is not None else self.repo.tree_listing(tree)


def streamed(
    run: Session,
    root: str,
    scratch: str,
    only: tuple[str, ...] = (),
    plugins: tuple[str, ...] | None = None,
    compare: bool = False,
    twice: bool = False,
) -> tuple[TestOutcome, stream.Stream | None]:
    """One run in the checkout at `root` (only the tests `only`, when given), score-diff's report in
    `scratch`: the outcome with its evidence, and what the outcome stream said (None: no stream)."""
    repo, manifest, environ, progress = run.repo, run.manifest, run.environ, run.progress
    argv = manifest.required_test
    program, extra = resolved_program(argv, root, repo.root), {}
    runner = evidence.runner(argv)
    if plugins is not None and runner is not None and runner[0] == "pytest":
        # the runner's plugins are the environment's as the base used it, never the checkout's
        program, extra = checkout.with_plugins(program, runner[1], plugins), checkout.AUTOLOAD_OFF
    planned = evidence.plan(program, manifest.test_report, root, scratch)
    env = {**checkout_environment(test_environment(environ, manifest.test_env), root), **extra, **planned.env}
    env.update({comparisons.ENV: "1"} if compare else {})  # the profile hook: flipped tests only, never the main pass
    env.update({TWICE: "1"} if twice else {})
    existed = evidence.identity(planned.report)
    channel = stream.Channel.open(planned, os.path.join(run.scratch, "plugin"), env, only)
    env = channel.env if channel else env
    launch = envelope.prepare(manifest, root, scratch, planned.report, env, planned.argv[0])
    try:
        run_argv = channel.argv if channel else planned.argv
        fds = (channel.write,) if channel else ()
        test = run_test(run_argv, root, manifest.test_timeout_s, env, progress=progress, launch=launch, pass_fds=fds)
    finally:
        said = channel.close() if channel else None
    test = envelope.noted(test._replace(argv=argv))
    if test.status in (TEST_PASSED, TEST_FAILED) and test.exit_code is not None:
        found = evidence.collect(planned, existed, manifest.min_tests)
        test = test._replace(evidence=found)
        if test.status == TEST_PASSED and found.problem:
            test = test._replace(status=TEST_FAILED, reason=f"exited 0, but {found.note}")
        if found.kind == "exit-status":
            test = with_note(
                test,
                f"the required test's verdict rests on its exit status alone: {found.note} "
                "(docs/required-test.md#evidence-that-tests-ran)",
            )
    return test, said


def checkout_environment(env: dict[str, str], root: str) -> dict[str, str]:
    """The code under test is the checkout's: its root (and src/, for a src layout) are
    PYTHONPATH, ahead of an editable install's path into the developer's tree (the caller's
    PYTHONPATH never reaches the test: environment.NEVER_PASSED)."""
    lead = [d for d in (os.path.join(root, "src"), root) if os.path.isdir(d) and not os.path.islink(d)]
    return {**env, "PYTHONPATH": os.pathsep.join(lead)}


def resolved_program(argv: tuple[str, ...], root: str, repo_root: str | None) -> tuple[str, ...]:
    """A relative program path the checkout lacks (an ignored `.venv/bin/python`) is the
    developer's tree's: the interpreter, not code under test."""
    program = argv[0]
    if repo_root is None or os.path.isabs(program) or os.sep not in program:
        return argv
    if os.path.lexists(os.path.join(root, program)):
        return argv
    return (os.path.join(repo_root, program), *argv[1:])


def phase(run: Session, name: str) -> None:
    """Tell the progress line which phase the next runs belong to; a plain callable (the hook
    probe's, a test's) has no `enter` and keeps counting runs."""
    enter = getattr(run.progress, "enter", None)
    if callable(enter):
        enter(name)


def with_note(test: TestOutcome, note: str) -> TestOutcome:
    return test._replace(notes=(*test.notes, note))
