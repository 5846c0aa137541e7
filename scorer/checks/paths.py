"""Checks of what changed: paths, counts, sizes and kinds of file."""

from __future__ import annotations

import posixpath

from .. import model
from ..manifest.globs import drive_rooted
from ..manifest.jobs import JOBS_DIR, is_fence_path
from ..manifest.pin import PIN_SUFFIX
from ..model import ChangedPath, Inspection, Violation
from .job import Job

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Sequence


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
                    found.append(
                        Violation(
                            "hunk-too-large",
                            f"hunk of {hunk.size} lines (+{hunk.new_lines} "
                            f"-{hunk.old_lines}); max_hunk_lines is {m.max_hunk_lines}",
                            change.path,
                            hunk.new_start or None,
                        )
                    )
    if m.max_changed_lines is not None:
        total = sum(c.added + c.removed for c in ins.changed)
        if total > m.max_changed_lines:
            found.append(
                Violation("diff-too-large", f"{total} lines changed; max_changed_lines is {m.max_changed_lines}")
            )
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


def escapes_repo(path: str, target: str) -> bool:
    """Does a symlink at `path` pointing at `target` leave the repository? Pure string logic."""
    if target.startswith("/") or drive_rooted(target):  # no re on the guard's Write path (issue 29)
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
            found.append(Violation("binary-file", _binary_message(c), c.path))
        if c.symlink and c.new_mode in (None, "120000"):
            target = c.symlink_target
            if not target:  # unread is not harmless: it could point anywhere
                found.append(Violation("symlink", "the symlink's target could not be read", c.path))
            elif escapes_repo(c.path, target):
                found.append(Violation("symlink", f"symlink points outside the repository ({target!r})", c.path))
            elif not m.allow_symlinks:
                found.append(Violation("symlink", f"symlink to {target!r}; set allow_symlinks to accept it", c.path))
        if c.submodule and c.new_mode in (None, "160000") and not m.allow_submodules:
            found.append(
                Violation(
                    "submodule", "submodule or nested repository changed; set allow_submodules to accept it", c.path
                )
            )
    return found


def _binary_message(c: ChangedPath) -> str:
    if c.content_filter == "lfs":
        return (
            "an LFS pointer (filter=lfs): every checkout replaces it with the object it names, content "
            "git does not hold and nothing here checked; set allow_binary to accept it"
        )
    if c.content_filter:
        return (
            f"an LFS pointer (filter={c.content_filter}, a git-lfs driver): every checkout replaces it with "
            "the object it names, content git does not hold and nothing here checked; set allow_binary to "
            "accept it"
        )
    return "binary content cannot be checked for tokens; set allow_binary to accept it"


def check_manifest_unchanged(ins: Inspection, job: Job) -> list[Violation]:
    found = []
    own = job.manifest_in_repo
    for c in ins.changed:
        if own is not None and own in c.paths:
            found.append(Violation("manifest-changed", "the job may not edit its own manifest", own))
        elif own is not None and own + PIN_SUFFIX in c.paths:  # the pin is the fence as much as the manifest
            found.append(Violation("manifest-changed", "the job may not edit its manifest's pin", own + PIN_SUFFIX))
        elif any(is_fence_path(p) for p in c.paths):  # another job's fence, or one this branch brings
            found.append(
                Violation(
                    "manifest-changed",
                    f"{c.status}: a job's branch may not add or change a job "
                    f"manifest (they are approved on the base branch, in {JOBS_DIR}/)",
                    c.path,
                )
            )
    return found


def allowed_paths(ins: Inspection, job: Job) -> frozenset[str]:
    """Changed paths the allowlist grants (for the report's table)."""
    return frozenset(c.path for c in ins.changed if all(job.allowed(p) and not job.forbidden(p) for p in c.paths))
