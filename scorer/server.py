"""The gate a git server enforces: decide each pushed ref from git's ref-update lines.

git's receive-pack runs `hooks/pre-receive` once per push with one `<old> SP <new> SP <ref> LF`
line per ref on stdin, and `hooks/update` once per ref with `<ref> <old> <new>` as arguments; a
created ref has an all-zero old id, a deleted ref an all-zero new id, and a non-zero exit
rejects (git-receive-pack(1), "PRE-RECEIVE HOOK" and "UPDATE HOOK"; githooks(5)).

Only refs matching the agent pattern are scored, each as the commits from the merge-base of
the pushed commit with the server's base branch, exactly as `score-diff --base` does in CI;
every other ref is accepted untouched. Whatever goes wrong scoring an agent ref rejects it.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .errors import ScoreDiffError, UsageError
from .model import Result

DEFAULT_AGENT_REFS = ("refs/heads/agent-*",)
DEFAULT_BASE = "refs/heads/main"
_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ZERO = re.compile(r"0{40}|0{64}")


class RefUpdate(NamedTuple):
    """One ref a push would change, as git reports it."""

    old: str
    new: str
    ref: str

    @property
    def created(self) -> bool:
        return bool(_ZERO.fullmatch(self.old))

    @property
    def deleted(self) -> bool:
        return bool(_ZERO.fullmatch(self.new))


class Policy(NamedTuple):
    """What the server's hook was configured to enforce."""

    repo: str = "."
    agent_refs: tuple[str, ...] = DEFAULT_AGENT_REFS
    base: str = DEFAULT_BASE
    manifest: str | None = None
    manifest_sha256: str | None = None
    deny_delete: bool = False
    job_branch: str = "agent-*"  # the branch pattern whose `*` names the job (.score-diff/jobs/<job>.json)
    run_test: bool = False  # run the required test in a temporary checkout (the pushed code runs here)


class RefDecision(NamedTuple):
    """The answer for one ref: exit code 0 accepts it; `result` is set when it was scored."""

    update: RefUpdate
    exit_code: int
    note: str
    result: Result | None = None


def parse_update(old: str, new: str, ref: str) -> RefUpdate:
    if not (_ID.fullmatch(old) and _ID.fullmatch(new) and ref.startswith("refs/")):
        raise UsageError(f"not a ref update git would send: {old!r} {new!r} {ref!r}")
    return RefUpdate(old, new, ref)


def parse_lines(text: str) -> list[RefUpdate]:
    """pre-receive's stdin: one `<old> SP <new> SP <ref>` line per ref (ref names hold no spaces)."""
    updates = []
    for line in text.splitlines():
        if line.strip():
            fields = line.split(" ")
            if len(fields) != 3:
                raise UsageError(f"not a ref update line: {line!r} (expected '<old> <new> <ref>')")
            updates.append(parse_update(*fields))
    return updates


def is_agent_ref(ref: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(ref, p) for p in patterns)


def decide(update: RefUpdate, policy: Policy, environ: Mapping[str, str], cwd: str) -> RefDecision:
    """Accept, reject or score one ref; an error scoring an agent ref rejects it (fail closed)."""
    if not is_agent_ref(update.ref, policy.agent_refs):
        return RefDecision(update, 0, "not an agent ref; not scored")
    if update.deleted:
        if policy.deny_delete:
            return RefDecision(update, 1, "deleting an agent ref is denied by this server (--deny-delete)")
        return RefDecision(update, 0, "deleted; nothing to score")
    try:
        return _score(update, policy, environ, cwd)
    except Exception as exc:  # ScoreDiffError and anything unexpected: the ref is rejected
        return RefDecision(update, 2, "could not be scored", _unscored(exc, update, policy))


def _unscored(exc: BaseException, update: RefUpdate, policy: Policy) -> Result:
    """A FAIL that still says which push it was: the pushed commit, its branch and the job the
    branch names, so `score-diff log --job` finds the rejected pushes too."""
    from .manifest.jobs import job_from_branch
    from .pipeline import could_not_score

    branch = update.ref.removeprefix("refs/heads/")
    try:
        job = job_from_branch(branch, policy.job_branch)
    except ScoreDiffError:
        job = None
    return could_not_score(exc, "range")._replace(head=update.new, branch=branch, job_id=job)


def _score(update: RefUpdate, policy: Policy, environ: Mapping[str, str], cwd: str) -> RefDecision:
    from .inspection.git import Repository
    from .pipeline import Options, score

    repo = Repository(os.path.join(cwd, policy.repo), environ, receiving=True)
    try:
        base = repo.resolve(policy.base)
        if repo.is_ancestor(repo.resolve(update.new), base):
            # A branch created at (or moved back into) the base adds nothing that could leave the fence.
            return RefDecision(update, 0, f"no commits beyond {policy.base}; nothing to score")
    finally:
        repo.close()
    opts = Options(
        repo=policy.repo,
        manifest=policy.manifest,
        base=policy.base,
        head=update.new,
        cwd=cwd,
        manifest_sha256=policy.manifest_sha256,
        receiving=True,
        ref=update.ref,
        job_branch=policy.job_branch,
        server_test=policy.run_test,
    )
    result = score(opts, environ)
    return RefDecision(update, result.exit_code, "scored", result)


def exit_code(decisions: Sequence[RefDecision]) -> int:
    """0 when every ref is accepted; otherwise the worst code (2 could not score, 1 FAIL)."""
    return max((d.exit_code for d in decisions), default=0)


__all__ = ["Policy", "RefDecision", "RefUpdate", "ScoreDiffError", "decide", "exit_code", "parse_lines"]
