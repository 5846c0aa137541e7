"""Checks: plain functions from the inspected change and the job to violations.

A check never prints and never raises for a finding; it returns Violations. The
scorer runs every function in CHECKS, in order.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Sequence
from itertools import accumulate

from . import model
from .globs import ForbiddenMatcher, PathMatcher
from .manifest import Manifest
from .model import AddedText, ChangedPath, Inspection, Violation


class Job:
    """The manifest plus the facts about this scoring the checks need."""

    __slots__ = ("allowed", "forbidden", "manifest", "manifest_in_repo", "tokens")

    def __init__(self, manifest: Manifest, manifest_in_repo: str | None = None) -> None:
        self.manifest = manifest
        self.manifest_in_repo = manifest_in_repo  # the manifest's repo-relative path, if it lives in the repo
        self.allowed = PathMatcher(manifest.allowed_paths)
        self.forbidden = ForbiddenMatcher(manifest.forbidden_globs)
        self.tokens = token_patterns(manifest)  # compiled once, used on every streamed batch


Check = Callable[[Inspection, Job], Sequence[Violation]]


def check_empty(ins: Inspection, job: Job) -> list[Violation]:
    if ins.changed:
        return []
    return [Violation("empty-diff", "nothing changed: an empty result is not a finished job")]


def check_paths(ins: Inspection, job: Job) -> list[Violation]:
    """Both sides of renames and copies, and deletions, must be allowed and not forbidden."""
    found = []
    for change in ins.changed:
        for path in change.paths:
            if job.forbidden(path):
                found.append(Violation("forbidden-path", f"{change.status}: matches forbidden_globs", path))
            elif not job.allowed(path):
                found.append(Violation("unlisted-path", f"{change.status}: not in allowed_paths", path))
    return found


def check_file_count(ins: Inspection, job: Job) -> list[Violation]:
    limit = job.manifest.max_files_changed
    if limit is None or len(ins.changed) <= limit:
        return []
    return [Violation("too-many-files", f"{len(ins.changed)} paths changed; max_files_changed is {limit}")]


def check_sizes(ins: Inspection, job: Job) -> list[Violation]:
    m = job.manifest
    found = []
    if m.max_hunk_lines is not None:
        for change in ins.changed:
            for hunk in change.hunks:
                if hunk.size > m.max_hunk_lines:
                    found.append(Violation("hunk-too-large", f"hunk of {hunk.size} lines (+{hunk.new_lines} "
                                           f"-{hunk.old_lines}); max_hunk_lines is {m.max_hunk_lines}",
                                           change.path, hunk.new_start or None))
    if m.max_changed_lines is not None:
        total = sum(c.added + c.removed for c in ins.changed)
        if total > m.max_changed_lines:
            found.append(Violation("diff-too-large", f"{total} lines changed; max_changed_lines is "
                                   f"{m.max_changed_lines}"))
    if m.max_file_bytes is not None:
        found += _file_sizes(ins.changed, m.max_file_bytes)
    return found


def _file_sizes(changed: Sequence[ChangedPath], limit: int) -> list[Violation]:
    found = []
    for change in changed:
        if change.status == model.DELETED or change.submodule:
            continue
        if change.size is None:
            found.append(Violation("file-too-large", "size of the new content could not be established", change.path))
        elif change.size > limit:
            found.append(Violation("file-too-large", f"{change.size} bytes; max_file_bytes is {limit}", change.path))
    return found


def token_patterns(manifest: Manifest) -> list[tuple[str, re.Pattern[str]]]:
    """(label, compiled pattern) for every forbidden substring and pattern."""
    found = []
    if manifest.forbidden_substrings:
        alternation = "|".join(re.escape(s) for s in sorted(manifest.forbidden_substrings, key=len, reverse=True))
        found.append(("substring", re.compile(alternation)))
    found += [(f"pattern {p!r}", re.compile(p, re.M)) for p in manifest.forbidden_patterns]
    return found


def check_added_tokens(added: AddedText, job: Job) -> list[Violation]:
    """Forbidden substrings and patterns in added lines (and all lines of new files): never in
    content the job did not add. Run on each batch of lines as git streams them."""
    found = []
    read = as_read(added)
    for label, pattern in job.tokens:
        hits = list(added.search(pattern))
        if read is not None:  # lines only the languages' reading shows
            seen = {(h.path, h.line) for h in hits}
            hits += [h for h in read[0].search(pattern, read[1]) if (h.path, h.line) not in seen]
        for hit in hits:
            what = f"forbidden substring {hit.match!r}" if label == "substring" else f"forbidden {label}"
            found.append(Violation("forbidden-token", f"added line contains {what}", hit.path, hit.line))
    return found


_LINE_ENDS = str.maketrans(dict.fromkeys("\r\x85\u2028\u2029", "\n"))


def as_read(added: AddedText) -> tuple[AddedText, str] | None:
    """The added lines as the languages they are written in read them, where that differs from git:
    Python folds identifiers with NFKC (fullwidth `eval(` calls eval), and ends a line at a lone CR as
    JavaScript does at U+2028 (so `^import ctypes` must match after one). Returns the NFKC text and
    a same-length view of it whose line ends are all newlines; None when that is the text itself.
    """
    text = added.text
    if text.isascii() and "\r" not in text:
        return None
    if not text.isascii():  # NFKC never adds or removes a newline: each block keeps its line numbers
        ends = (*added.starts[1:], len(text))
        blocks = [unicodedata.normalize("NFKC", text[a:b]) for a, b in zip(added.starts, ends, strict=True)]
        starts = tuple(accumulate((len(b) for b in blocks[:-1]), initial=0))
        added = AddedText("".join(blocks), starts, added.locations)
    view = added.text.translate(_LINE_ENDS)
    return None if view == text else (added, view)


def escapes_repo(path: str, target: str) -> bool:
    """Does a symlink at `path` pointing at `target` leave the repository? Pure string logic."""
    if target.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", target):
        return True
    named = False
    for part in target.replace("\\", "/").split("/"):
        # `name/..` is the parent of whatever `name` resolves to: when `name` is itself a link
        # (`up -> ..`), `up/../x` is beside the repository, though the text says inside.
        if part == ".." and named:
            return True
        named = named or part not in ("", ".", "..")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target.replace("\\", "/")))
    return joined == ".." or joined.startswith("../")


def check_kinds(ins: Inspection, job: Job) -> list[Violation]:
    """Binary content cannot be token-checked; symlinks and submodules point elsewhere."""
    m = job.manifest
    found = []
    for c in ins.changed:
        if c.status == model.DELETED:
            continue
        if c.binary and not m.allow_binary:
            found.append(Violation("binary-file", "binary content cannot be checked for tokens; "
                                   "set allow_binary to accept it", c.path))
        if c.symlink and c.new_mode in (None, "120000"):
            target = c.symlink_target
            if not target:  # unread is not harmless: it could point anywhere
                found.append(Violation("symlink", "the symlink's target could not be read", c.path))
            elif escapes_repo(c.path, target):
                found.append(Violation("symlink", f"symlink points outside the repository ({target!r})", c.path))
            elif not m.allow_symlinks:
                found.append(Violation("symlink", f"symlink to {target!r}; set allow_symlinks to accept it", c.path))
        if c.submodule and c.new_mode in (None, "160000") and not m.allow_submodules:
            found.append(Violation("submodule", "submodule or nested repository changed; "
                                   "set allow_submodules to accept it", c.path))
    return found


def check_inspection(ins: Inspection, job: Job) -> list[Violation]:
    """Unmerged paths and hidden changes the inspector found."""
    return list(ins.anomalies)


def check_manifest_unchanged(ins: Inspection, job: Job) -> list[Violation]:
    if job.manifest_in_repo is None:
        return []
    return [
        Violation("manifest-changed", "the job may not edit its own manifest", job.manifest_in_repo)
        for c in ins.changed if job.manifest_in_repo in c.paths
    ]


CHECKS: tuple[Check, ...] = (
    check_empty,
    check_inspection,
    check_manifest_unchanged,
    check_paths,
    check_file_count,
    check_sizes,
    check_kinds,
)

# Checks of added lines alone: the scorer runs them on each batch of lines as git streams
# the diff, so their regex scans overlap git's work. Together with CHECKS they are every check.
ContentCheck = Callable[[AddedText, Job], Sequence[Violation]]


def check_secrets(added: AddedText, job: Job) -> list[Violation]:
    """The built-in secret and risky-shell detectors (scorer.detectors)."""
    from . import detectors

    m = job.manifest
    return detectors.scan(added, disabled=frozenset(m.disabled_detectors),
                          allowed_fingerprints=frozenset(m.allowed_fingerprints))


CONTENT_CHECKS: tuple[ContentCheck, ...] = (check_added_tokens, check_secrets)


def allowed_paths(ins: Inspection, job: Job) -> frozenset[str]:
    """Changed paths the allowlist grants (for the report's table)."""
    return frozenset(
        c.path for c in ins.changed if all(job.allowed(p) and not job.forbidden(p) for p in c.paths)
    )
