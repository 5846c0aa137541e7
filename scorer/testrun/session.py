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
from typing import TYPE_CHECKING

from .. import pytest_config
from ..errors import ScoreDiffError
from ..model import TEST_FAILED, TEST_PASSED, TestOutcome
from . import base_cache, basetests, checkout, configfile, envelope, evidence, flipped, junit, stream
from .environment import NEVER_PASSED, program_inside, test_environment
from .passes import Session, checkout_environment, phase, resolved_program, streamed, with_note
from .run import run_test

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from ..manifest.load import Manifest
    from ..model import Inspection

SPEC = "the base's tests"
JOB = "the job's own tests"
UNRUNNABLE = "test-base-unrunnable"


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
            run = Session(
                repo, manifest, environ, progress, work, scratch, trees.base, changed, fence.granted, trees.listings
            )
            collect = partial(_base_tests, run, trees, fence)
            base = base_cache.collected(repo.git_dir, trees.base, manifest, environ, repo.root, collect, work.root)
            # paid once per base; what pytest autoloaded there is kept in the record (unknown: autoload off, none)
            plugins = None if base is None else (base.plugins if base.plugins is not None else ())
            test = _spec_then_job(run, trees, base, plugins, spec_only)._replace(tree=trees.scored)
        if before is not None:
            effects = snapshot.differences(before, snapshot.take(repo), frozenset())
            test = test._replace(side_effects=tuple((e.path, e.what) for e in effects))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    refused = sorted(set(manifest.test_env) & NEVER_PASSED)
    if refused:
        test = with_note(test, f"test_env names {', '.join(refused)}: never passed to the required test")
    env = test_environment(environ, manifest.test_env)
    inside = program_inside(manifest.required_test[0], env, repo.root) if repo.root else None
    if inside is not None:
        test = with_note(
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
    return with_note(
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
    phase(run, "running the spec pass")
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
        return with_note(spec, f"{JOB} (the job's versions of {shown}) were not run: {SPEC} already failed")
    if spec_only:
        return with_note(spec, f"{JOB} (the job's versions of {shown}) were not run: --spec runs the spec pass alone")
    phase(run, "running the job's tests")
    job = _pass(run, trees.scored, os.path.join(run.scratch, "job"))
    if job.status != TEST_PASSED:
        job = job._replace(reason=f"{JOB} (the job's versions of {shown}): {job.reason or f'exited {job.exit_code}'}")
        return job._replace(duration_s=spec.duration_s + job.duration_s, notes=(*spec.notes, *job.notes))
    ran = f" ({job.evidence.tests} executed)" if job.evidence and job.evidence.tests is not None else ""
    note = f"{SPEC} passed with the base's versions of {shown}, and {JOB} passed with the job's versions{ran}"
    return with_note(spec._replace(duration_s=spec.duration_s + job.duration_s, notes=(*spec.notes, *job.notes)), note)


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
    return flipped.stability(run, root, reports, test, base, plugins) if test.status == TEST_PASSED else test


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
    argv = basetests.run_argv(resolved_program(manifest.required_test, root, repo.root), found[1])
    env = checkout_environment(test_environment(environ, manifest.test_env), root)
    env.update(PYTHONPATH=os.pathsep.join([env["PYTHONPATH"], probe]), **{basetests.COLLECTED_ENV: listing})
    # the base's code, jailed all the same; argv[0] readable, or a virtualenv's python runs as its base
    # interpreter with another site-packages (another pytest, other plugins) than the spec pass's
    launch = envelope.prepare(manifest, root, private, listing, env, argv[0])
    phase(run, "running the base's tests")
    run_test(argv, root, manifest.test_timeout_s, env, progress=progress, launch=launch)
    return basetests.read_collected(listing, fence.protected, root)


def _run(
    run: Session, root: str, scratch: str, plugins: tuple[str, ...] | None = None, spec: str | None = None
) -> TestOutcome:
    """One pass; for pytest, its JUnit report and exit status held against the outcome stream, and
    in the spec pass (`spec`: its tree) the configuration file pytest took against the fence's."""
    test, said = streamed(run, root, scratch, plugins=plugins)
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
    base, now = run.listing(run.base_tree).get(path), run.listing(spec).get(path)
    if base == now:
        return True
    if base is None or now is None or not pytest_config.has_sections(path):
        return False
    old, new = run.repo.read_file(run.base_tree, path), run.repo.read_file(spec, path)
    return old is not None and new is not None and not pytest_config.config_changed(path, old, new)


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
