"""One test run per commit: the required test's outcome, recorded under the git directory for the
change it ran on, so the commit-msg stage reuses the pre-commit stage's run instead of running the
test again.

A record is reused only when the change digest, the head commit, the manifest's sha256 and the
environment digest (what the test inherits, the interpreter, score-diff's version, the program
PATH finds) all match, and only if the file is a regular file this user owns that nobody else can
write, whose content digest holds. Anything else (missing, unreadable, foreign, corrupt, another
change) is ignored and the test runs: never trusted, never an error.

The record is exactly as trustworthy as the hooks: a job that can write `.git/` can also skip
them (`git commit --no-verify`); CI, which scores on a clean checkout, is the backstop.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..model import TEST_FAILED, TEST_PASSED, TEST_TIMEOUT, EnvelopeFacts, TestEvidence, TestOutcome
from . import cache_store

if TYPE_CHECKING:
    from ..manifest.load import Manifest
    from ..model import Inspection

RAN = (TEST_PASSED, TEST_FAILED, TEST_TIMEOUT)  # outcomes of a run: only these are recorded
REUSED_NOTE = (
    "the required test was not run again: this is the outcome of its run on this same change by the "
    "pre-commit stage (change, manifest and environment digests match; docs/hooks-and-ci.md)"
)


class Key(NamedTuple):
    """What a recorded outcome must match to be reused."""

    change: str  # Inspection.change_digest
    head: str | None
    base: str | None
    manifest: str  # the manifest's sha256
    environment: str  # environment_digest


def record_path(git_dir: str) -> Path:
    return Path(git_dir, "score-diff", "test-verdict.json")


def key_for(ins: Inspection, manifest: Manifest, environ: Mapping[str, str]) -> Key:
    return Key(ins.change_digest, ins.head, ins.base, manifest.sha256, environment_digest(manifest, environ))


def environment_digest(manifest: Manifest, environ: Mapping[str, str]) -> str:
    """sha256 over what the test inherits and what runs it: its environment, the interpreter and
    score-diff's version, the program PATH finds for the test's first word (path and stat), and the
    jail that will run it (its backend and the kernel settings that decide what it can hold)."""
    import shutil

    from .. import __version__
    from .envelope import backend_facts
    from .environment import test_environment

    env = test_environment(environ, manifest.test_env)
    found = shutil.which(manifest.required_test[0], path=env.get("PATH", "")) if manifest.required_test else None
    program: list[Any] = []
    if found:
        st = os.stat(found)
        program = [os.path.realpath(found), st.st_size, st.st_mtime_ns, st.st_ino]
    facts = {"env": env, "python": [sys.executable, sys.version], "score-diff": __version__, "program": program}
    facts["jail"] = backend_facts(manifest.test_envelope)
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()


def run_once(
    git_dir: str,
    ins: Inspection,
    manifest: Manifest,
    environ: Mapping[str, str],
    run: Callable[[], TestOutcome],
    reuse: bool,
) -> TestOutcome:
    """The recorded outcome for this change when `reuse` and it matches; otherwise `run()`, recorded."""
    try:
        key = key_for(ins, manifest, environ)
    except (OSError, ValueError):
        return run()
    if reuse:
        found = load(git_dir, key)
        if found is not None:
            return found._replace(notes=(*found.notes, REUSED_NOTE))
    outcome = run()
    if outcome.status in RAN:
        store(git_dir, key, outcome)
    return outcome


def store(git_dir: str, key: Key, outcome: TestOutcome) -> bool:
    """Write the record (atomically); False if it could not be. The test's output is stored with
    its secrets masked, as every report shows it (the record outlives the run)."""
    from ..secrets.redaction import redact

    kept = outcome._replace(output_tail=redact(outcome.output_tail), reason=redact(outcome.reason))
    return cache_store.write_entry(record_path(git_dir), key._asdict(), plain_outcome(kept))


def load(git_dir: str, key: Key) -> TestOutcome | None:
    """The recorded outcome if the record is ours, whole, and for exactly `key`; else None."""
    plain = cache_store.read_entry(record_path(git_dir), key._asdict())
    try:
        outcome = outcome_from_plain(plain) if isinstance(plain, dict) else None
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return outcome if outcome is not None and outcome.status in RAN else None


def plain_outcome(outcome: TestOutcome) -> dict[str, Any]:
    out = outcome._asdict()
    for name in ("evidence", "envelope"):
        if out[name] is not None:
            out[name] = out[name]._asdict()
    return json.loads(json.dumps(out))  # tuples as lists: exactly what is read back


def outcome_from_plain(plain: dict[str, Any]) -> TestOutcome:
    """A TestOutcome from its plain form; raises unless it is exactly one `_plain` wrote."""

    def pairs(items: list[list[Any]]) -> tuple[tuple[Any, ...], ...]:
        return tuple(tuple(item) for item in items)

    evidence = plain["evidence"] and TestEvidence(**plain["evidence"])
    facts: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in (plain["envelope"] or {}).items()}
    envelope = plain["envelope"] and EnvelopeFacts(**facts)
    outcome = TestOutcome(
        **{
            **plain,
            "argv": tuple(plain["argv"]),
            "notes": tuple(plain["notes"]),
            "side_effects": pairs(plain["side_effects"]),
            "missing": pairs(plain["missing"]),
            "evidence": evidence or None,
            "envelope": envelope or None,
        }
    )
    if plain_outcome(outcome) != plain:
        raise ValueError("not a recorded outcome")
    return outcome
