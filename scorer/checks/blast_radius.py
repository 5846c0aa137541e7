"""Blast radius: sensitive paths must be named exactly and justified with evidence from
commit messages (Blast-Radius / Justification / Rollback trailers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from ..manifest.load import Manifest
from ..model import CommitMessage, Inspection, Justification, Violation
from . import justify, sensitive
from .contract import CheckInput, Findings


def count_lines(data: bytes | None) -> int | None:
    if data is None:
        return None
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def check_blast_radius(
    ins: Inspection,
    manifest: Manifest,
    messages: Sequence[CommitMessage],
    read_file: Callable[[str], bytes | None],
    manifest_in_repo: str | None,
    defer: bool = False,
) -> tuple[list[Violation], list[Justification]]:
    """Sensitive paths must be named exactly in allowed_paths and justified with evidence."""
    is_sensitive = partial(
        sensitive.classify,
        extra_globs=manifest.sensitive_globs,
        exempt=frozenset(manifest.sensitive_exempt),
        manifest_path=manifest_in_repo,
    )
    claims = justify.parse_trailers([m.stored for m in messages], sources=[m.source for m in messages])
    violations, accepted = justify.evaluate(
        ins.changed,
        claims,
        allowed_paths=manifest.allowed_paths,
        is_sensitive=is_sensitive,
        line_count=lambda path: count_lines(read_file(path)),
    )
    if defer:  # the pre-commit stage has no message yet: the commit-msg stage decides
        violations = [v for v in violations if v.code not in ("sensitive-path", "bad-justification")]
    return violations, accepted


def check_sensitive(given: CheckInput) -> Findings:
    """`check_blast_radius` with the messages' trailers, line counts read from the scored tree."""
    job = given.job
    read = partial(given.trees.read_file, given.scored_rev)
    found, accepted = check_blast_radius(
        given.ins, job.manifest, given.messages, read, job.manifest_in_repo, given.defer_justifications
    )
    return Findings(tuple(found), accepted=tuple(accepted))
