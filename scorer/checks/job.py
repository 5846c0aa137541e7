"""The job as the checks see it: the manifest, its compiled matchers and token patterns."""

from __future__ import annotations

import re

from ..manifest.globs import ForbiddenMatcher, grant_matcher
from ..manifest.load import Manifest


class Job:
    """The manifest plus the facts about this scoring the checks need."""

    __slots__ = ("allowed", "forbidden", "manifest", "manifest_in_repo", "tokens")

    def __init__(self, manifest: Manifest, manifest_in_repo: str | None = None) -> None:
        self.manifest = manifest
        self.manifest_in_repo = manifest_in_repo  # the manifest's repo-relative path, if it lives in the repo
        self.allowed = grant_matcher(manifest.allowed_paths)
        self.forbidden = ForbiddenMatcher(manifest.forbidden_globs)
        self.tokens = token_patterns(manifest)  # compiled once, used on every streamed batch


def token_patterns(manifest: Manifest) -> list[tuple[str, re.Pattern[str]]]:
    """(label, compiled pattern) for every forbidden substring and pattern."""
    found = []
    if manifest.forbidden_substrings:
        alternation = "|".join(re.escape(s) for s in sorted(manifest.forbidden_substrings, key=len, reverse=True))
        found.append(("substring", re.compile(alternation)))
    found += [(f"pattern {p!r}", re.compile(p, re.M)) for p in manifest.forbidden_patterns]
    return found
