"""One run of the required test, as the gate needs it: in temporary checkouts of the scored content
(the spec pass with the base's tests, then the job's own versions when they differ), the hardened
environment, evidence that tests ran, a snapshot of HEAD, index and working tree before and after,
and notes for the report."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from .. import pytest_config
from ..errors import ScoreDiffError
from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import base_cache, basetests, checkout, comparisons, configfile, envelope, evidence, junit, stream
from .environment import NEVER_PASSED, program_inside, test_environment
from .run import run_test

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..manifest.load import Manifest
    from ..model import Inspection

SPEC = "the base's tests"
JOB = "the job's own tests"
UNRUNNABLE = "test-base-unrunnable"
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


def run_required(
    repo: Repository,
    manifest: Manifest,
    environ: Mapping[str, str],
    ins: Inspection,
    fence: checkout.SpecSource,
    watch_tree: bool,
    progress: Callable[[float], None] | None = None,
    spec_only: bool = False,
) -> TestOutcome:
    """Run `required_test` in temporary checkouts of what was scored (docs/required-test.md); with
    `watch_tree`, record what it changed in the repository's own HEAD, index and working tree;
    with `spec_only` (`score-diff test --spec`), the spec pass alone."""
    from ..inspection import snapshot

    scratch = _scratch(repo.root)
    kept = checkout.kept_key(repo.git_dir, manifest.job_id)  # one checkout per repository and job, reused
    try:
        trees = checkout.plan(repo, ins, fence, scratch)
        before = snapshot.take(repo) if watch_tree else None
        changed = frozenset(p for c in ins.changed for p in (c.path, c.old_path) if p)
        with checkout.workdir(repo, scratch, kept) as work:
            run = Session(repo, manifest, environ, progress, work, scratch, trees.base, changed, fence.granted)
            collect = partial(_base_tests, run, trees, fence)
            base = base_cache.collected(repo.git_dir, trees.base, manifest, environ, repo.root, collect, work.root)
            # paid once per base; what pytest autoloaded there is kept in the record (unknown: autoload off, none)
            plugins = None if base is None else (base.plugins if base.plugins is not None else ())
            test = _spec_then_job(run, trees, base, plugins, spec_only)
        if before is not None:
            effects = snapshot.differences(before, snapshot.take(repo), frozenset())
            test = test._replace(side_effects=tuple((e.path, e.what) for e in effects))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    refused = sorted(set(manifest.test_env) & NEVER_PASSED)
    if refused:
        test = _note(test, f"test_env names {', '.join(refused)}: never passed to the required test")
    env = test_environment(environ, manifest.test_env)
    inside = program_inside(manifest.required_test[0], env, repo.root) if repo.root else None
    if inside is not None:
        test = _note(
            test,
            f"the required test's program {inside} is inside the repository, found through PATH: "
            "if git does not track it, the job can rewrite it unseen (CI, on a clean checkout, "
            "is the backstop)",
        )
    return test


def run_in_checkout(
    repo: Repository,
    manifest: Manifest,
    environ: Mapping[str, str],
    ins: Inspection,
    fence: checkout.SpecSource,
    progress: Callable[[float], None] | None = None,
) -> TestOutcome:
    """The same, on a git server (a bare repository has no working tree to watch)."""
    test = run_required(repo, manifest, environ, ins, fence, False, progress)
    return _note(
        test, "the required test ran in a temporary checkout of the pushed commit on the git server (--run-test)"
    )


def _spec_then_job(
    run: Session,
    trees: checkout.Trees,
    base: basetests.Collected | None = None,
    plugins: tuple[str, ...] | None = None,
    spec_only: bool = False,
) -> TestOutcome:
    """The spec pass; then, if the job changed fenced files and the spec passed (and not
    `spec_only`), the job's pass. With `plugins` (what pytest autoloaded at the base), the spec
    pass loads exactly those."""
    _phase(run, "running the spec pass")
    spec = _pass(run, trees.spec, os.path.join(run.scratch, "spec"), base, plugins)
    if base is not None and base.foreign_config:
        # pytest read a file above the repository, which no commit records and any process may write
        return spec._replace(
            status=TEST_FAILED,
            reason=(
                f"pytest read its configuration from {base.foreign_config}, outside the checkout of the "
                "repository, so the tests ran as that file says, not as the repository says; move that "
                "file away (it is not part of the repository) and run again"
            ),
        )
    if base is not None and base.problem:
        why = (
            f"{base.problem}, so what they expect is unknown: the base's own result is the reference, "
            "and a base that cannot run its tests gives none"
        )
        spec = spec._replace(status=TEST_FAILED, reason=why, findings=(*spec.findings, (UNRUNNABLE, why, None)))
    if trees.spec == trees.scored:
        return spec
    more = len(trees.from_base) - 5
    shown = ", ".join(trees.from_base[:5]) + (f" and {more} more" if more > 0 else "")
    if spec.status != TEST_PASSED:
        why = spec.reason or f"exited {spec.exit_code}"
        spec = spec._replace(reason=f"{SPEC} (the base's versions of {shown}): {why}")
        return _note(spec, f"{JOB} (the job's versions of {shown}) were not run: {SPEC} already failed")
    if spec_only:
        return _note(spec, f"{JOB} (the job's versions of {shown}) were not run: --spec runs the spec pass alone")
    _phase(run, "running the job's tests")
    job = _pass(run, trees.scored, os.path.join(run.scratch, "job"))
    if job.status != TEST_PASSED:
        job = job._replace(reason=f"{JOB} (the job's versions of {shown}): {job.reason or f'exited {job.exit_code}'}")
        return job._replace(duration_s=spec.duration_s + job.duration_s, notes=(*spec.notes, *job.notes))
    ran = f" ({job.evidence.tests} executed)" if job.evidence and job.evidence.tests is not None else ""
    note = f"{SPEC} passed with the base's versions of {shown}, and {JOB} passed with the job's versions{ran}"
    return _note(spec._replace(duration_s=spec.duration_s + job.duration_s, notes=(*spec.notes, *job.notes)), note)


def _pass(
    run: Session,
    tree: str,
    reports: str,
    base: basetests.Collected | None = None,
    plugins: tuple[str, ...] | None = None,
) -> TestOutcome:
    """One run in the checkout, made to hold exactly `tree` first; score-diff's report goes to the new
    directory `reports`. With `base`, each of the base's tests must show in the report, run and passed."""
    os.mkdir(reports)
    root = run.work.hold(tree)
    test = _run(run, root, reports, plugins, tree if base is not None else None)
    if base is None or not (base.tests or base.uncollected):
        return test
    test = _every_base_test(test, base)
    return _stability(run, root, reports, test, base, plugins) if test.status == TEST_PASSED else test


def _every_base_test(test: TestOutcome, base: basetests.Collected) -> TestOutcome:
    found = test.evidence
    if found is None or found.kind != "junit-xml" or found.tests is None or found.report is None:
        return test  # no report that could be read: test-empty or test-failed already says so
    try:
        with open(found.report, "rb") as fh:
            cases = junit.cases(fh.read(junit.MAX_BYTES + 1))
    except (OSError, junit.ReportError):
        return test  # collect() read it a moment ago; a report that changed since is not evidence either
    missing = tuple(basetests.missing(base, cases))
    if not missing:
        return test
    test = test._replace(missing=missing)
    if test.status == TEST_PASSED:
        why = f"exited 0, but {len(missing)} of the base's {len(base.tests)} test(s) did not run and pass"
        test = test._replace(status=TEST_FAILED, reason=why)
    return test


def _base_tests(run: Session, trees: checkout.Trees, fence: checkout.SpecSource) -> basetests.Collected | None:
    """The base's protected tests, run once by pytest in the checkout holding the base: each id and
    its outcome there; None when the required test is not pytest or there is no base.

    A pure function of `basetests.base_key(trees.base, config, runner, environment)` (`_base_key`):
    the cost issue's cache wraps it there."""
    repo, manifest, environ, progress, work, scratch = run[:6]
    found = evidence.runner(manifest.required_test)
    if trees.base is None or found is None or found[0] != "pytest":
        return None
    where = os.path.join(scratch, "base")
    probe, private, listing = os.path.join(where, "probe"), os.path.join(where, "run"), os.path.join(where, "ids.json")
    for directory in (where, probe, private):
        os.mkdir(directory)
    root = work.hold(trees.base)
    basetests.write_probe(probe)
    argv = basetests.run_argv(_program(manifest.required_test, root, repo.root), found[1])
    env = _checkout_environment(test_environment(environ, manifest.test_env), root)
    env.update(PYTHONPATH=os.pathsep.join([env["PYTHONPATH"], probe]), **{basetests.COLLECTED_ENV: listing})
    # the base's code, jailed all the same; argv[0] readable, or a virtualenv's python runs as its base
    # interpreter with another site-packages (another pytest, other plugins) than the spec pass's
    launch = envelope.prepare(manifest, root, private, listing, env, argv[0])
    _phase(run, "running the base's tests")
    run_test(argv, root, manifest.test_timeout_s, env, progress=progress, launch=launch)
    return basetests.read_collected(listing, fence.protected, root)


def _run(
    run: Session, root: str, scratch: str, plugins: tuple[str, ...] | None = None, spec: str | None = None
) -> TestOutcome:
    """One pass; for pytest, its JUnit report and exit status held against the outcome stream, and
    in the spec pass (`spec`: its tree) the configuration file pytest took against the fence's."""
    test, said = _streamed(run, root, scratch, plugins=plugins)
    if said is None:
        return test
    test = stream.agreed(test, said)
    found = evidence.runner(run.manifest.required_test)
    if spec is None or run.base_tree is None or found is None or test.status != TEST_PASSED:
        return test
    unchanged = partial(_config_unchanged, run, spec)
    return configfile.judged(test, configfile.problem(said, root, run.manifest.required_test[found[1] :], unchanged))


def _config_unchanged(run: Session, spec: str, path: str) -> bool:
    """Whether the spec tree's `path` is the base's (the same entry, or the same pytest section), or granted."""
    if run.granted is not None and run.granted(path):
        return True
    if run.base_tree is None:
        return False
    base, now = run.repo.tree_listing(run.base_tree).get(path), run.repo.tree_listing(spec).get(path)
    if base == now:
        return True
    if base is None or now is None or not pytest_config.has_sections(path):
        return False
    old, new = run.repo.read_file(run.base_tree, path), run.repo.read_file(spec, path)
    return old is not None and new is not None and not pytest_config.config_changed(path, old, new)


def _streamed(
    run: Session,
    root: str,
    scratch: str,
    only: tuple[str, ...] = (),
    plugins: tuple[str, ...] | None = None,
    compare: bool = False,
    twice: bool = False,
) -> tuple[TestOutcome, stream.Stream | None]:
    repo, manifest, environ, progress = run.repo, run.manifest, run.environ, run.progress
    argv = manifest.required_test
    program, extra = _program(argv, root, repo.root), {}
    runner = evidence.runner(argv)
    if plugins is not None and runner is not None and runner[0] == "pytest":
        # the runner's plugins are the environment's as the base used it, never the checkout's
        program, extra = checkout.with_plugins(program, runner[1], plugins), checkout.AUTOLOAD_OFF
    planned = evidence.plan(program, manifest.test_report, root, scratch)
    env = {**_checkout_environment(test_environment(environ, manifest.test_env), root), **extra, **planned.env}
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
            test = _note(
                test,
                f"the required test's verdict rests on its exit status alone: {found.note} "
                "(docs/required-test.md#evidence-that-tests-ran)",
            )
    return test, said


def _stability(
    run: Session,
    root: str,
    reports: str,
    test: TestOutcome,
    base: basetests.Collected,
    plugins: tuple[str, ...] | None = None,
) -> TestOutcome:
    """The tests that failed at the base and pass now, run again in two fresh processes, in reverse
    order, the first running each twice: a result that changes is `test-unstable` (state kept
    across calls)."""
    found = test.evidence
    if found is None or found.report is None:
        return test
    try:
        with open(found.report, "rb") as fh:
            now = basetests.outcomes(junit.cases(fh.read(junit.MAX_BYTES + 1)))
    except (OSError, junit.ReportError):
        return test
    flipped = tuple(t.nodeid for t in base.flipped(now))
    if not flipped:
        return test
    test = test._replace(flipped=flipped)  # the literals check reads their base source (checks/literals.py)
    changed: list[tuple[str, str]] = []
    probed: stream.Stream | None = None
    _phase(run, "rerunning the tests that flipped")
    for time in ("again-1", "again-2"):  # two fresh processes: pytest cannot run one item twice in a session
        again = os.path.join(reports, time)
        os.mkdir(again)
        first = time == "again-1"
        rerun, said = _streamed(run, root, again, flipped, plugins, compare=first, twice=first)
        probed = probed or said
        runs = 2 if first else 1
        changed += stream.unstable(said, flipped, rerun.exit_code, runs) if said is not None else []
        if changed:
            break
    if not changed:
        test = _note(test, f"the {len(flipped)} test(s) that failed at the base passed again, in reverse order, twice")
        return _compared(run, reports, test, flipped, plugins, probed)
    shown = "; ".join(f"{nodeid}: {why}" for nodeid, why in changed[:5])
    why = (
        f"{len(changed)} of the {len(flipped)} test(s) that failed at the base and pass now did not pass "
        f"again in a fresh process, in reverse order, twice ({shown})"
    )
    return test._replace(status=TEST_FAILED, reason=why, findings=(*test.findings, (stream.UNSTABLE, why, None)))


def _compared(
    run: Session,
    reports: str,
    test: TestOutcome,
    flipped: tuple[str, ...],
    plugins: tuple[str, ...] | None,
    now: stream.Stream | None,
) -> TestOutcome:
    """The flipped tests' comparison probe, run once more on the base tree, held against `now`."""
    if now is None:
        return test  # not pytest with a report: no stream, no probe
    base = None
    if run.base_tree is not None:
        where = os.path.join(reports, "base-compared")
        os.mkdir(where)
        _, base = _streamed(run, run.work.hold(run.base_tree), where, flipped, plugins, compare=True)
    return comparisons.judged(test, flipped, now, base, run.changed)


def _checkout_environment(env: dict[str, str], root: str) -> dict[str, str]:
    """The code under test is the checkout's: its root (and src/, for a src layout) are
    PYTHONPATH, ahead of an editable install's path into the developer's tree (the caller's
    PYTHONPATH never reaches the test: environment.NEVER_PASSED)."""
    lead = [d for d in (os.path.join(root, "src"), root) if os.path.isdir(d) and not os.path.islink(d)]
    return {**env, "PYTHONPATH": os.pathsep.join(lead)}


def _program(argv: tuple[str, ...], root: str, repo_root: str | None) -> tuple[str, ...]:
    """A relative program path the checkout lacks (an ignored `.venv/bin/python`) is the
    developer's tree's: the interpreter, not code under test."""
    program = argv[0]
    if repo_root is None or os.path.isabs(program) or os.sep not in program:
        return argv
    if os.path.lexists(os.path.join(root, program)):
        return argv
    return (os.path.join(repo_root, program), *argv[1:])


def _phase(run: Session, name: str) -> None:
    """Tell the progress line which phase the next runs belong to; a plain callable (the hook
    probe's, a test's) has no `enter` and keeps counting runs."""
    enter = getattr(run.progress, "enter", None)
    if callable(enter):
        enter(name)


def _note(test: TestOutcome, note: str) -> TestOutcome:
    return test._replace(notes=(*test.notes, note))


def _scratch(root: str | None) -> str:
    """A fresh directory for the checkouts and score-diff's own reports, outside the repository."""
    scratch = tempfile.mkdtemp(prefix="score-diff-test-")
    if root is not None and _inside(scratch, root) is not None:
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
