"""Blast-radius paths and pinned manifests: the checks that need more than the diff.

Sensitive paths need justifications read from commit messages; a pinned manifest
needs its digest from the command line, the environment or a `.sha256` file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from . import justify, sensitive
from .errors import ManifestError, ManifestHashMismatch
from .manifest import Manifest
from .model import Inspection, Justification, Violation

PIN_SUFFIX = ".sha256"
_HEX = re.compile(r"^[0-9a-f]{64}$")


def count_lines(data: bytes | None) -> int | None:
    if data is None:
        return None
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def check_blast_radius(
    ins: Inspection,
    manifest: Manifest,
    messages: Sequence[str],
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
    claims = justify.parse_trailers(messages)
    violations, accepted = justify.evaluate(
        ins.changed, claims, allowed_paths=manifest.allowed_paths, is_sensitive=is_sensitive,
        line_count=lambda path: count_lines(read_file(path)),
    )
    if defer:  # the pre-commit stage has no message yet: the commit-msg stage decides
        violations = [v for v in violations if v.code not in ("sensitive-path", "bad-justification")]
    return violations, accepted


def parse_pin(text: str, source: str) -> str:
    """A digest as given on the command line or in a `sha256sum`-format file."""
    token = text.strip().split()[0].lower() if text.strip() else ""
    token = token.removeprefix("sha256:")
    if not _HEX.match(token):
        raise ManifestError(f"{source}: not a sha256 digest (64 hex characters)")
    return token


def expected_digest(
    flag: str | None, environ: Mapping[str, str], pin_file: Callable[[], bytes | None], pin_name: str
) -> str | None:
    """--manifest-sha256, then $SCORE_DIFF_MANIFEST_SHA256, then the .sha256 file beside the manifest."""
    if flag:
        return parse_pin(flag, "--manifest-sha256")
    if environ.get("SCORE_DIFF_MANIFEST_SHA256"):
        return parse_pin(environ["SCORE_DIFF_MANIFEST_SHA256"], "SCORE_DIFF_MANIFEST_SHA256")
    raw = pin_file()
    if raw is None:
        return None
    return parse_pin(raw.decode("utf-8", "replace"), pin_name)


def verify_pin(raw: bytes, expected: str | None, source: str) -> None:
    """Before anything else runs: the manifest's bytes must match the pinned digest."""
    if expected is None:
        return
    actual = hashlib.sha256(raw).hexdigest()
    if actual != expected:
        raise ManifestHashMismatch(
            f"{source} has sha256 {actual}, but it is pinned to {expected}: "
            "the manifest is not the one that was approved"
        )


def pin_line(raw: bytes, name: str) -> str:
    """The `sha256sum` line for a manifest."""
    return f"{hashlib.sha256(raw).hexdigest()}  {name}\n"
