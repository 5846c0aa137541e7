"""The pipeline: manifest -> git inspection -> checks -> required test -> one Result.

Fail closed: whatever cannot be established raises ScoreDiffError, which the caller
turns into a FAIL with exit 2 (`could_not_score`).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path

from . import __version__
from .errors import GitError, ScoreDiffError, UsageError
from .inspection.git import Repository, cut_at_scissors
from .model import (
    FAIL,
    PASS,
    TEST_FAILED,
    TEST_NOT_RUN,
    TEST_PASSED,
    TEST_SKIPPED,
    AddedText,
    CommitMessage,
    Inspection,
    Result,
    TestOutcome,
    Violation,
)
from .records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from .checks.contract import CheckInput, Findings
    from .checks.job import Job
    from .checks.reads import ReadOnce
    from .inspection.git import WorktreeCalls
    from .manifest.load import Manifest
    from .testrun.checkout import SpecSource

# The checks, the manifest loader (jsonschema, pathspec) and the detectors are imported
# inside the functions below, after git has been started: their ~100 ms of imports
# then overlap git's own work instead of preceding it, on every commit.

MAX_PER_CODE = 100  # a 10,000-line paste of `eval(` needs 100 examples, not 10,000


class Options(NamedTuple):
    """What the caller asked for; the CLI builds this from argv."""

    repo: str = "."
    manifest: str | None = None
    base: str | None = None
    head: str | None = None
    skip_test: bool = False
    shadow: bool = False
    cwd: str = "."
    manifest_sha256: str | None = None
    message_files: tuple[str, ...] = ()
    defer_justifications: bool = False
    progress: Callable[[float], None] | None = None  # ticks while the required test runs
    receiving: bool = False  # a server hook: git's quarantine variables are passed through, not refused
    ref: str | None = None  # a server hook: the pushed ref, reported as the branch (a bare HEAD means nothing)
    job: str | None = None  # the job named explicitly: its .score-diff/jobs/<job>.json
    job_branch: str = "agent-*"  # the branch pattern whose `*` names the job
    server_test: bool = False  # a server hook: run the required test in a temporary checkout of the push
    spec_only: bool = False  # `score-diff test --spec`: the spec pass alone, never recorded for reuse
    since: str | None = None  # worktree mode against merge-base(since, HEAD): what CI's --base since scores
    reuse_test: bool = False  # the commit-msg stage: the pre-commit stage's run of this change stands


def now_iso() -> str:
    """UTC to the second, as every report and every decision-log row (scoring or guard) writes it."""
    # time.gmtime, not datetime: the same string, without importing datetime on every scoring (issue 29)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _messages(repo: Repository, ins: Inspection, opts: Options) -> list[CommitMessage]:
    """Commit messages that may carry Blast-Radius trailers, oldest first."""
    found = []
    if ins.base and ins.head:
        found = [
            CommitMessage(f"commit {commit} message", text, text)
            for commit, text in reversed(repo.commit_messages(ins.base, ins.head))
        ]
    for name in opts.message_files:
        try:
            raw = Path(opts.cwd, name).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ScoreDiffError(f"cannot read message file {name}: {exc.strerror or exc}") from exc
        # git cleans the message after the commit-msg hook: trailers count only if they survive.
        found.append(CommitMessage(f"message file {name}", repo.message_as_stored(raw), cut_at_scissors(raw)))
    return found


def _job(manifest: Manifest, rel: str | None) -> Job:
    from .checks.job import Job

    return Job(manifest, manifest_in_repo=rel)


def _check_content(job: Job, into: list[Violation], seen: list[int], added: AddedText) -> None:
    """Run the checks of added lines on one batch, while git is still streaming the rest."""
    from .checks.content import CONTENT_CHECKS

    seen[0] += len(added.text)
    for check in CONTENT_CHECKS:
        into.extend(check(added, job))


def _as_it_streams(job: Job, into: list[Violation], seen: list[int], once: ReadOnce | None, added: AddedText) -> None:
    """Each batch of added lines while git streams the rest: the content checks, then the reads the
    checks after inspection will ask for (`_warm`)."""
    _check_content(job, into, seen, added)
    if once is not None:
        _warm(once, added)


def _warm(once: ReadOnce, added: AddedText) -> None:
    """Read the working tree's Python files with added lines in this batch through the checks' one
    `ReadOnce`, while git is still writing the diff: on large, git's diff is the longest wait, and
    Python waits for most of it. The checks judge the version read first either way
    (checks/reads.py). A read that fails is not cached: the check reads again and meets the error
    itself, so it still stops the scoring where it did. (Parsing here too was measured and left
    out: past pyast's 1,024 remembered blob ids, every check hashed each module once more.)"""
    paths = list(dict.fromkeys(path for path, _ in added.locations if path.endswith((".py", ".pyw"))))
    if paths:
        with contextlib.suppress(Exception):
            once.read_files(None, paths)


def _drop_untracked_manifest(
    ins: Inspection, rel: str | None, content: list[Violation]
) -> tuple[Inspection, list[Violation], list[str]]:
    """A manifest never committed (untracked, or staged for its first commit) is the fence, not
    part of the change: its own forbidden_substrings list must not fail it, and neither it nor its
    pin is a path the job changed. A tracked manifest the job edited stays in, lines and all."""
    from .manifest.pin import PIN_SUFFIX

    fence = {rel, f"{rel}{PIN_SUFFIX}"} if rel else set()
    new = [c for c in ins.changed if c.path in fence and (c.untracked or c.status == "added")]
    if not any(c.path == rel for c in new):
        return ins, content, []
    kept = tuple(c for c in ins.changed if c not in new)
    state = "untracked" if any(c.untracked for c in new if c.path == rel) else "staged but never committed"
    note = (
        f"the manifest {rel} is {state}: it is not scored as part of the change; commit the fence on the "
        "base branch first, or pin it (--manifest-sha256), so the job cannot write its own fence"
    )
    return ins._replace(changed=kept), [v for v in content if v.path not in fence], [note]


def cap_per_code(violations: list[Violation]) -> list[Violation]:
    counts: Counter[str] = Counter()
    kept = []
    for v in violations:
        counts[v.code] += 1
        if counts[v.code] <= MAX_PER_CODE:
            kept.append(v)
    for code, n in counts.items():
        if n > MAX_PER_CODE:
            kept.append(Violation(code, f"... and {n - MAX_PER_CODE} more {code} violations not listed"))
    return kept


def _test_outcome(
    repo: Repository,
    opts: Options,
    job: Job,
    ins: Inspection,
    violations: list[Violation],
    environ: Mapping[str, str],
) -> TestOutcome:
    manifest = job.manifest
    argv = manifest.required_test
    if violations and not manifest.always_run_test:
        return TestOutcome(TEST_NOT_RUN, argv, reason="not run: cheaper checks already failed")
    if opts.skip_test:
        return TestOutcome(TEST_SKIPPED, argv, reason="--skip-test")
    if ins.repo_root is None and opts.receiving and opts.server_test and ins.head is not None:
        from .testrun.session import run_in_checkout

        return run_in_checkout(repo, manifest, environ, ins, _spec_source(ins, job), progress=opts.progress)
    if ins.repo_root is None and opts.receiving:
        return TestOutcome(
            TEST_SKIPPED,
            argv,
            reason="not run on the git server: a bare repository has no "
            "working tree; commits only were scored (CI runs the test)",
        )
    if ins.repo_root is None:  # core.bare set in a clone must not be a way to skip the test
        return TestOutcome(
            TEST_FAILED,
            argv,
            reason="a bare repository has no working tree to run the test "
            "in; score a checkout of --head, or pass --skip-test",
        )
    # The test runs in temporary checkouts of what was scored (the head commit in --base mode,
    # whatever the working tree holds); in worktree mode the commit is still to be made, from
    # the index the test could rewrite, so the repository's own tree is watched.
    from .testrun.session import run_required  # evidence and JUnit parsing: only when a test runs

    fence = _spec_source(ins, job)
    run = partial(
        run_required,
        repo,
        manifest,
        environ,
        ins,
        fence,
        watch_tree=ins.mode == "worktree",
        progress=opts.progress,
        spec_only=opts.spec_only,
    )
    if ins.mode != "worktree" or opts.spec_only:  # half a run is no verdict to hand the commit-msg stage
        return run()
    from .testrun.verdict_record import run_once  # one run per commit: recorded for the commit-msg stage

    return run_once(repo.git_dir, ins, manifest, environ, run, reuse=opts.reuse_test)


def _spec_source(ins: Inspection, job: Job) -> SpecSource:
    """What the spec pass takes from the base (the same base test-weakened compares with)."""
    from .checks.protected import protected_matcher
    from .manifest.globs import PathMatcher
    from .testrun.checkout import SpecSource

    # --since, like --base, scores against the merge-base: the spec comes from there too (one spec at every gate)
    base = ins.base if ins.mode == "range" or ins.base is not None else ins.head
    granted = PathMatcher(job.manifest.allowed_test_config)
    return SpecSource(base, protected_matcher(job), granted)


class Inspected(NamedTuple):
    """The manifest and what git says changed, with the content checks already run on it."""

    manifest: Manifest
    job: Job
    path: str
    rel: str | None
    ins: Inspection
    content: list[Violation]
    committed: str | None = None  # the commit the manifest was read from; None: from disk
    notes: tuple[str, ...] = ()  # warnings about where the manifest came from
    trees: ReadOnce | None = None  # the checks' reader, with what was read while git streamed


def score(
    opts: Options,
    environ: Mapping[str, str],
    clock: Callable[[], float] = time.monotonic,
    repo: Repository | None = None,
) -> Result:
    """Score one change. Raises ScoreDiffError when it cannot establish a verdict.

    `repo` is the repository opts name, already opened by the caller (`open_repository`), so
    that the command's later questions (the decision log's place) need no discovery of their own."""
    started, started_at = clock(), now_iso()
    repo = repo or open_repository(opts, environ)
    try:
        inspected = inspect(repo, opts, environ)
        result = judge(repo, inspected, opts, environ)
    finally:
        repo.close()  # git calls an error left running are stopped, never left behind
    return result._replace(duration_s=clock() - started, started_at=started_at)


def open_repository(opts: Options, environ: Mapping[str, str]) -> Repository:
    """The repository opts name; its discovery reads HEAD in the same git call (`_head`)."""
    return Repository(Path(opts.cwd, opts.repo), environ, receiving=opts.receiving, read_head=True)


def _head(repo: Repository) -> str | None:
    """HEAD's commit: as the repository's discovery read it, if it did and nobody took it yet;
    else asked now."""
    known, head = repo.discovered_head()
    return head if known else repo.head()


def inspect(repo: Repository, opts: Options, environ: Mapping[str, str]) -> Inspected:
    """Read the manifest and ask git what changed; content checks run while git streams."""
    base_sha = repo.resolve(opts.base) if opts.base is not None else None
    tip, since, compared = _since(repo, opts)
    # The working tree's git calls, the diff (git's longest answer) first, are started before the
    # modules below are imported.
    # HEAD is read once, before the diff starts: the diff, the fence and the report name that commit.
    head, diff = _diff_started(repo, opts, compared) if base_sha is None else (None, None)
    from .inspection import changes  # not for `committed_fence`, which the guard calls on every tool call
    from .manifest.locate import ENV_MANIFEST, from_environment, read_manifest
    from .manifest.pin import PIN_SUFFIX

    path, rel, job_name = _manifest_for(repo, opts, environ, base_sha or tip)
    by_env = job_name is None and from_environment(opts.manifest, environ)
    content: list[Violation] = []
    seen = [0]  # characters of added text the content checks have read
    once: ReadOnce | None = None
    if base_sha is not None:
        fence = read_manifest(repo, path, rel, base_sha, opts.manifest_sha256, environ, chosen_by_env=by_env)
        manifest, committed = _job_checked(fence.manifest, job_name), fence.commit
        job = _job(manifest, rel)
        ins = changes.inspect_range(
            repo,
            base_sha,
            opts.head,
            need_sizes=manifest.max_file_bytes is not None,
            watch=partial(_check_content, job, content, seen),
        )
        if opts.ref is not None:
            ins = ins._replace(branch=opts.ref.removeprefix("refs/heads/"))
    else:
        if opts.head is not None:
            raise GitError("--head needs --base")
        # git runs while the manifest is validated; a manifest or pin read from disk must be what git records.
        pending = changes.start_worktree(repo, head, (rel, rel + PIN_SUFFIX) if rel else (), since, diff)
        # The fence is the committed fence: tracked at HEAD, the manifest is read from HEAD, and
        # an edited copy on disk is part of the change (manifest-changed), judged by HEAD's. With
        # --since it is read where CI reads it, at the base.
        reads: dict[str, bytes] = {}
        fence = read_manifest(
            repo, path, rel, tip, opts.manifest_sha256, environ, head=head, chosen_by_env=by_env, reads=reads
        )
        manifest, committed = _job_checked(fence.manifest, job_name), fence.commit
        job = _job(manifest, rel)
        from .checks.reads import ReadOnce

        once = ReadOnce(repo)  # the checks' reader, filled while the diff streams (`_warm`)
        ins = pending(partial(_as_it_streams, job, content, seen, once), reads)
    if seen[0] != len(ins.added.text):  # every added line must have been checked, once
        raise ScoreDiffError(f"content checks read {seen[0]} of {len(ins.added.text)} characters of added lines")
    notes = [f"the manifest {rel} was chosen by ${ENV_MANIFEST}"] if by_env else []
    return Inspected(manifest, job, path, rel, ins, content, committed, tuple(notes), once)


def _diff_started(
    repo: Repository, opts: Options, since: tuple[str, str] | None
) -> tuple[str | None, WorktreeCalls | None]:
    """(HEAD's commit, the git calls `changes.start_worktree` would start, the diff first, started):
    against --since's merge-base with the HEAD it was computed from (`since`: (merge-base, HEAD)),
    else against HEAD. None for the calls where worktree mode will refuse to score (--head, a bare
    repository), so that refusal comes where it always did."""
    if opts.head is not None:
        return None, None
    head = since[1] if since is not None else _head(repo)
    if repo.root is None:
        return head, None
    return head, repo.start_worktree_calls(since[0] if since is not None else head or repo.empty_tree())


def _since(repo: Repository, opts: Options) -> tuple[str | None, str | None, tuple[str, str] | None]:
    """(the base's tip, the merge-base with HEAD, (that merge-base, that HEAD)) for --since: the
    diff is taken from the HEAD the merge-base was found from; (None, None, None) without it."""
    if opts.since is None:
        return None, None, None
    if opts.base is not None:
        raise UsageError("--since and --base each name the base; pass one (--since scores the working tree too)")
    head = _head(repo)
    if head is None:
        raise GitError(f"--since {opts.since}: this branch has no commit yet, so it has no merge-base with it")
    tip = repo.resolve(opts.since)
    merge_base = repo.merge_base(tip, head)
    return tip, merge_base, (merge_base, head)


def committed_fence(repo: Repository, opts: Options, environ: Mapping[str, str]) -> tuple[Manifest, str | None]:
    """The manifest worktree scoring would judge against, and its repo-relative path (`score-diff fence`)."""
    from .manifest.locate import from_environment, read_manifest

    path, rel, job_name = _manifest_for(repo, opts, environ, None)
    by_env = job_name is None and from_environment(opts.manifest, environ)
    head = repo.head() if rel is not None else None  # a manifest outside the repository needs no commit
    fence = read_manifest(repo, path, rel, None, opts.manifest_sha256, environ, head=head, chosen_by_env=by_env)
    return _job_checked(fence.manifest, job_name), rel


def _manifest_for(
    repo: Repository, opts: Options, environ: Mapping[str, str], base: str | None
) -> tuple[str, str | None, str | None]:
    """(file, repo-relative path, job name): the job's own manifest when the job is named (--job)
    or its branch names one that exists, read where the single manifest would be read (at base in
    --base mode); otherwise --manifest / job_manifest.json as before."""
    from .manifest import jobs
    from .manifest.locate import bare_manifest_location, manifest_location

    if opts.manifest is None:
        branch = opts.ref.removeprefix("refs/heads/") if opts.ref is not None else repo.branch()
        name = opts.job or jobs.job_from_branch(branch, opts.job_branch)
        if name is not None:
            rel = jobs.manifest_rel(name)
            if opts.job or _job_file_exists(repo, rel, base):
                return str(Path(repo.root or repo.git_dir, rel)), rel, name
    elif opts.job is not None:
        raise UsageError("--job and --manifest each name a manifest; pass one")
    if repo.root is None:
        return (*bare_manifest_location(opts.manifest), None)
    return (*manifest_location(opts.manifest, opts.cwd, repo.root, environ), None)


def _job_file_exists(repo: Repository, rel: str, base: str | None) -> bool:
    """Committed: at base in --base mode, at HEAD in the working tree. A job file that exists only
    on disk is one the job's branch brings: it is never the fence (it is flagged manifest-changed,
    and the single manifest, if any, judges the change)."""
    if base is not None:
        return repo.read_file(base, rel) is not None
    if repo.root is None:  # worktree mode refuses a bare repository once it starts
        return False
    return repo.head() is not None and repo.read_file("HEAD", rel) is not None


def _job_checked(manifest: Manifest, job_name: str | None) -> Manifest:
    if job_name is not None:
        from .manifest.jobs import check_job_id

        check_job_id(job_name, manifest.job_id, manifest.source or job_name)
    return manifest


def judge(repo: Repository, inspected: Inspected, opts: Options, environ: Mapping[str, str]) -> Result:
    """Four steps: every check, then the required test, then the hints, into one Result."""
    from .checks.required_test import check_test

    given, found = _checks(repo, inspected, opts)
    ins = given.ins
    # A manifest the job edited (read from disk in worktree mode) cannot switch itself to shadow.
    edited = any(v.code == "manifest-changed" for v in found.violations)
    shadow = opts.shadow or (inspected.manifest.mode == "shadow" and not edited)
    # In shadow mode every check runs, the test included, so the report shows all that would fail.
    test = _test_outcome(repo, opts, inspected.job, ins, [] if shadow else list(found.violations), environ)
    after = _after_test(given, test)
    violations = _with_hints(
        repo, ins, inspected.manifest, inspected.rel, [*found.violations, *check_test(test), *after]
    )
    return _result(inspected, ins, found, test, violations, shadow, _given_secrets(inspected.job, environ))


def _given_secrets(job: Job, environ: Mapping[str, str]) -> frozenset[str]:
    """The secret values the required test is given (test_env): masked in every report field."""
    from .testrun.environment import secrets_given, test_environment

    return secrets_given(test_environment(environ, job.manifest.test_env))


def _after_test(given: CheckInput, test: TestOutcome) -> list[Violation]:
    """The registry's AFTER_TEST checks, on the same input with the tests that flipped in the run."""
    from .checks.registry import AFTER_TEST

    if not test.flipped:
        return []
    flipped = given._replace(flipped=test.flipped)
    return cap_per_code([v for check in AFTER_TEST for v in check(flipped).violations])


def _checks(repo: Repository, inspected: Inspected, opts: Options) -> tuple[CheckInput, Findings]:
    """Every check of the registry on one CheckInput: the violations capped per code, with every
    note and accepted justification; and the input they judged (its inspection the one judged)."""
    from .checks.contract import CheckInput, Findings
    from .checks.pyast import one_scoring
    from .checks.reads import ReadOnce
    from .checks.registry import CHECKS

    job, rel, ins, content = inspected.job, inspected.rel, inspected.ins, inspected.content
    ins, content, notes = (
        _drop_untracked_manifest(ins, rel, content)
        if ins.mode == "worktree" and ins.base is None and inspected.committed is None
        else (ins, content, [])
    )
    from .testrun.cache_store import Store

    messages = tuple(_messages(repo, ins, opts))
    kept = partial(Store, repo.git_dir)  # the checks' results kept by content across scorings
    given = CheckInput(ins, job, messages, tuple(content), repo, opts.defer_justifications, kept=kept)
    # each file read once for every check (checks/reads.py), some of them while git streamed
    once = given._replace(trees=inspected.trees or ReadOnce(repo))
    with one_scoring():  # one parse and one walk of each changed module, for every check
        found = [check(once) for check in CHECKS]
    violations = _on_the_base(cap_per_code([v for f in found for v in f.violations]), ins, opts)
    return given, Findings(
        tuple(violations),
        (*inspected.notes, *notes, *(n for f in found for n in f.notes)),
        tuple(j for f in found for j in f.accepted),
    )


def _result(
    inspected: Inspected,
    ins: Inspection,
    found: Findings,
    test: TestOutcome,
    violations: list[Violation],
    shadow: bool,
    known: frozenset[str] = frozenset(),
) -> Result:
    from .checks.paths import allowed_paths

    manifest = inspected.manifest
    failed = bool(violations) and not shadow
    return redacted(
        Result(
            verdict=FAIL if failed else PASS,
            exit_code=1 if failed else 0,
            job_id=manifest.job_id,
            mode=ins.mode,
            violations=tuple(violations),
            changed=ins.changed,
            test=test,
            base=ins.base,
            head=ins.head,
            branch=ins.branch,
            change_digest=ins.change_digest,
            manifest_path=inspected.rel or str(inspected.path),
            manifest_sha256=manifest.sha256,
            allowed=allowed_paths(ins, inspected.job),
            justifications=found.accepted,
            warnings=(*manifest.warnings, *found.notes, *test.notes),
            shadow=shadow,
            version=__version__,
            description=manifest.description,
        ),
        known,
    )


def _on_the_base(violations: list[Violation], ins: Inspection, opts: Options) -> list[Violation]:
    """`--base main` run on main itself: the empty diff says so, not "make the change"."""
    branch, base = ins.branch, opts.base or opts.since
    if ins.base is None or ins.base != ins.head or not branch or base not in (branch, f"refs/heads/{branch}"):
        return violations
    why = (
        f"nothing changed: you are on the base branch ({branch}): head is the base commit itself, so there are "
        "no commits to score; score the agent's branch (switch to it, or pass --head)"
    )
    return [v._replace(message=why) if v.code == "empty-diff" else v for v in violations]


def _with_hints(
    repo: Repository, ins: Inspection, manifest: Manifest, rel: str | None, violations: list[Violation]
) -> list[Violation]:
    """Every violation with what the agent should do next (one place: feedback.hints). In --base
    mode each path is named with the commit that brought it in: one git call, only on a FAIL."""
    if not violations:  # annotate([]) is [] whatever the scene: a clean change loads no hints (issue 29)
        return []
    from .feedback import hints

    introduced: dict[str, str] = {}
    paths = sorted({v.path for v in violations if v.path})
    if ins.base and ins.head and paths:
        introduced = repo.first_commits(ins.base, ins.head, paths[:500])
    mode = hints.RANGE if ins.mode == "range" else hints.WORKTREE
    scene = hints.scene_of(mode, ins.changed, ins.head, ins.base, introduced, manifest, rel)
    return hints.annotate(violations, scene)


def redacted(result: Result, known: Iterable[str] = ()) -> Result:
    """Every free text a report can carry, paths included, with secret shapes masked, and every
    form of a secret found in it or `known` (the secrets the test was given)."""
    from .secrets.redaction import redacted_result

    return redacted_result(result, known)


def could_not_score(exc: BaseException, mode: str, started_at: str = "") -> Result:
    """Exit 2: printed as RESULT: FAIL with the reason. Never PASS, never a bare traceback."""
    if isinstance(exc, ScoreDiffError):
        code, message = exc.code, str(exc)
    elif isinstance(exc, KeyboardInterrupt):
        code, message = "internal-error", "interrupted before a verdict was reached"
    else:
        code, message = "internal-error", f"unexpected {type(exc).__name__}: {exc}"
    from .feedback import hints

    [violation] = hints.annotate([Violation(code, message)], hints.Scene(mode))
    return redacted(
        Result(
            verdict=FAIL,
            exit_code=2,
            job_id=None,
            mode=mode,
            violations=(violation,),
            version=__version__,
            started_at=started_at or now_iso(),
        )
    )


__all__ = ["TEST_PASSED", "Options", "could_not_score", "score"]


def test_as_gate(opts: Options, environ: Mapping[str, str]) -> TestOutcome:
    """The required test exactly as `judge` runs it, whatever the other checks say (`score-diff test`):
    the same inspection, the same spec source, the same session."""
    repo = open_repository(opts, environ)
    try:
        inspected = inspect(repo, opts, environ)
        return _test_outcome(repo, opts, inspected.job, inspected.ins, [], environ)
    finally:
        repo.close()
