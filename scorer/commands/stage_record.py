"""The commit-msg stage's fast path: the pre-commit stage's verdict on the very tree git will commit.

A pre-commit stage (`score --since REF --defer-justifications`, worktree mode) that PASSes with
no violation, its required test passed, and no sensitive path changed records under the git
directory what it judged: the tree its test ran on (`TestOutcome.tree`), HEAD, the branch, the
tip of REF and the merge-base, the manifest's sha256 (read at that tip), the environment digest,
the options and the git and score-diff variables. The commit-msg stage reuses that verdict only if
each of them is the same now and the index's tree (`git write-tree`: what `git commit` records)
is that tree; with no sensitive path, trailers decide nothing, so the message is left to the
secret detectors alone. Anything else (no record, one not ours, any mismatch, a secret-shaped
line, an error) scores the whole change again, as before: this path can only say PASS.

The record is as trustworthy as the hooks themselves (testrun/verdict_record.py): a job that can
write `.git/` can skip them; CI, on a clean checkout, is the backstop.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from .. import __version__
from ..context import Context

TYPE_CHECKING = False  # typing's, without importing typing on the commit-msg stage (issue 29)
if TYPE_CHECKING:
    from typing import Any

    from ..inspection.git import Repository
    from ..model import Result

NOTE = (
    "the commit-msg stage reused the pre-commit stage's verdict: git is about to commit the tree its "
    "test ran on (head, base, manifest and environment unchanged); the message was read for secrets"
)


class _Fence:
    """What the environment digest reads of a manifest (verdict_record.environment_digest)."""

    def __init__(self, required_test: Any, test_env: Any, test_envelope: Any) -> None:
        self.required_test, self.test_env, self.test_envelope = tuple(required_test), tuple(test_env), test_envelope


def record_path(git_dir: str) -> Path:
    return Path(git_dir, "score-diff", "commit-stage.json")


def _options(args: argparse.Namespace, ctx: Context) -> list[Any]:
    """What both hooks must have been given alike (each stage's own flags left out)."""
    names = ("manifest", "job", "job_branch", "since", "manifest_sha256", "branches", "gate", "log_db", "no_log")
    repo = os.path.realpath(os.path.join(ctx.cwd, args.repo))
    return [ctx.cwd, repo, *(getattr(args, n, None) for n in names)]


def _variables(environ: Mapping[str, str]) -> list[list[str]]:
    """git's and score-diff's own variables: each can change what is read or how (GIT_DIR, the manifest)."""
    return sorted([k, v] for k, v in environ.items() if k.startswith(("GIT_", "SCORE_DIFF_")))


def _key(
    args: argparse.Namespace, ctx: Context, repo: Repository, tip: str, branch: str | None
) -> dict[str, Any] | None:
    """The facts a reuse must find unchanged, read from git now (`tip`: --since resolved, `branch`:
    the current one, both already asked); None when there is no tree to commit."""
    head, tree = repo.head(), repo.index_tree()
    if head is None or tree is None:
        return None
    return {
        "stage": "pre-commit",
        "version": __version__,
        "options": _options(args, ctx),
        "variables": _variables(ctx.environ),
        "head": head,
        "branch": branch,
        "tip": tip,
        "base": repo.merge_base(tip, head),
        "tree": tree,
    }


def record(result: Result, args: argparse.Namespace, ctx: Context, opened: Callable[[], Repository]) -> bool:
    """After a pre-commit stage's PASS: what the commit-msg stage may reuse. False when nothing was
    recorded (not such a PASS, or any doubt); never an error."""
    if result.exit_code != 0 or result.test.tree is None:
        return False
    try:
        repo = opened()
        tip = repo.resolve(args.since)
        value = _recordable(result, args, ctx, repo, tip)
        key = _key(args, ctx, repo, tip, repo.branch()) if value is not None else None
    except Exception:  # a record is an optimisation: any doubt leaves the commit-msg stage to score
        return False
    if key is None or value is None or key["tree"] != result.test.tree or key["head"] != result.head:
        return False
    if key["base"] != result.base or key["branch"] != result.branch:
        return False
    from ..testrun import cache_store

    return cache_store.write_entry(record_path(repo.git_dir), key, value)


def _recordable(
    result: Result, args: argparse.Namespace, ctx: Context, repo: Repository, tip: str
) -> dict[str, Any] | None:
    """The record's value for a clean PASS whose manifest was read at the tip of --since; else None."""
    from ..model import TEST_PASSED

    if result.exit_code != 0 or result.violations or result.shadow or result.test.status != TEST_PASSED:
        return None
    rel = result.manifest_path
    if not args.since or rel is None or os.path.isabs(rel) or result.test.tree is None:
        return None
    import hashlib

    from ..manifest.load import parse_manifest

    raw = repo.read_file(tip, rel)
    if raw is None or hashlib.sha256(raw).hexdigest() != result.manifest_sha256:
        return None
    manifest = parse_manifest(raw, f"{rel} at base {tip[:12]}")  # the name read_manifest gave it: parsed once
    if _sensitive(result, manifest, rel):
        return None  # trailers decide sensitive paths: the commit-msg stage judges the whole change
    from ..testrun import verdict_record

    return {
        "result": _plain_result(result),
        "environment": verdict_record.environment_digest(manifest, ctx.environ),
        "fence": [list(manifest.required_test), list(manifest.test_env), manifest.test_envelope],
        "detectors": [sorted(manifest.disabled_detectors), sorted(manifest.allowed_fingerprints)],
    }


def _sensitive(result: Result, manifest: Any, rel: str) -> bool:
    from ..checks import sensitive

    exempt = frozenset(manifest.sensitive_exempt)
    return any(
        sensitive.classify(p, extra_globs=manifest.sensitive_globs, exempt=exempt, manifest_path=rel) is not None
        for c in result.changed
        for p in c.paths
    )


def _plain_result(result: Result) -> dict[str, Any]:
    from ..testrun.verdict_record import plain_outcome

    fields = ("job_id", "mode", "base", "head", "branch", "change_digest", "manifest_path", "manifest_sha256")
    plain: dict[str, Any] = {name: getattr(result, name) for name in fields}
    plain["changed"] = [[*c._replace(hunks=())] for c in result.changed]
    plain["allowed"] = sorted(result.allowed)
    plain["warnings"] = [w for w in result.warnings if w not in result.test.notes]
    plain["description"] = result.description
    plain["test"] = plain_outcome(result.test)
    return plain


def reuse(args: argparse.Namespace, ctx: Context, message: str) -> int | None:
    """The commit-msg stage's answer from the pre-commit stage's record: the exit code, once the
    report is written and the decision logged; None to score the whole change instead."""
    if not _plain_stage(args):
        return None
    from .shared import repository

    started, clock = _now(), time.monotonic()
    try:
        repo = repository(args, ctx)
        try:
            result = _reused(args, ctx, repo, message)
        finally:
            repo.close()
    except Exception:  # whatever went wrong, the full scoring decides (and reports it)
        return None
    if result is None:
        return None
    from ..terminal import use_colour
    from .shared import emit, log_decision

    result = result._replace(started_at=started, duration_s=time.monotonic() - clock)
    emit(result, [["text", None]], ctx, use_colour(args.color, ctx.stdout, ctx.environ))
    log_decision(result, args, ctx, lambda: repo)
    return result.exit_code


def _plain_stage(args: argparse.Namespace) -> bool:
    """The installed commit-msg hook's shape: --since, the text report, no other scope or mode."""
    plain = not (args.base or args.head or args.shadow or getattr(args, "outputs", None))
    return bool(plain and args.since and not args.message_file)


def _reused(args: argparse.Namespace, ctx: Context, repo: Repository, message: str) -> Result | None:
    from .shared import skipped_branch

    branch = repo.branch()
    if repo.root is None or skipped_branch(args, branch) is not None:
        return None
    key = _key(args, ctx, repo, repo.resolve(args.since), branch)
    if key is None:
        return None
    from ..testrun import cache_store

    value = cache_store.read_entry(record_path(repo.git_dir), key)
    if not isinstance(value, dict):
        return None
    # The environment decides the test's outcome only: under --skip-test this stage reports none.
    if not args.skip_test and _environment(value["fence"], ctx.environ) != value["environment"]:
        return None
    disabled, allowed = value["detectors"]
    if _message_secrets(os.path.join(ctx.cwd, message), message, frozenset(disabled), frozenset(allowed)):
        return None
    return _result(value["result"], args.skip_test)


def _environment(fence: list[Any], environ: Mapping[str, str]) -> str:
    from ..testrun.verdict_record import environment_digest

    return environment_digest(_Fence(*fence), environ)  # type: ignore[arg-type]


def _message_secrets(path: str, name: str, disabled: frozenset[str], allowed: frozenset[str]) -> bool:
    """Whether the message file holds something the secret detectors flag, read as checks/names.py
    reads it (every line git might keep); a file that cannot be read says yes (score it all)."""
    from ..inspection.git import cut_at_scissors
    from ..model import AddedText
    from ..secrets import detectors

    try:
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    scanned = cut_at_scissors(raw)
    # one message as one block from its line 1 (names._as_text; checks.names itself brings the manifest's loader)
    text = AddedText(scanned if scanned.endswith("\n") else scanned + "\n", (0,), ((f"message file {name}", 1),))
    risky = {d.id for d in detectors.DETECTORS if d.code != detectors.SECRET}
    return bool(detectors.scan(text, disabled=disabled | risky, allowed_fingerprints=allowed))


def _result(plain: dict[str, Any], skip_test: bool) -> Result:
    """The pre-commit stage's Result, with the test as this stage reports it: skipped under
    --skip-test (as the full scoring would say), else the pre-commit stage's run, reused."""
    from ..model import PASS, TEST_SKIPPED, ChangedPath, Result, TestOutcome
    from ..testrun.verdict_record import REUSED_NOTE, outcome_from_plain

    ran = outcome_from_plain(plain["test"])
    test = (
        TestOutcome(TEST_SKIPPED, ran.argv, reason="--skip-test")
        if skip_test
        else ran._replace(notes=(*ran.notes, REUSED_NOTE))
    )
    changed = tuple(ChangedPath(*c)._replace(hunks=()) for c in plain["changed"])
    fields = ("job_id", "mode", "base", "head", "branch", "change_digest", "manifest_path", "manifest_sha256")
    return Result(
        verdict=PASS,
        exit_code=0,
        changed=changed,
        test=test,
        allowed=frozenset(plain["allowed"]),
        warnings=(*plain["warnings"], *test.notes, NOTE),
        version=__version__,
        description=plain["description"],
        **{name: plain[name] for name in fields},
    )


def _now() -> str:
    """pipeline.now_iso's string, without importing the pipeline."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
