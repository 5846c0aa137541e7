"""Where a write lands: a path as a tool call names it, resolved against the repository.

A path is joined to the call's working directory, `~` is expanded with the HOME the
guard was given, and symlinks are resolved the way the write itself would follow them
(os.path.realpath: existing links, then `..` physically). The result is repo-relative,
in the same form git reports a changed path, or it is outside the repository.
"""

from __future__ import annotations

import os
import posixpath
from typing import NamedTuple

GIT_DIR_NAME = ".git"


class Place(NamedTuple):
    """A resolved write target: `rel` is repo-relative ("" for the root itself), None outside."""

    real: str
    rel: str | None
    named: str  # the path as the call named it, for messages


def expand(path: str, cwd: str, home: str | None) -> str | None:
    """The absolute spelling of `path`; None when `~user` or a missing HOME leaves it unknown."""
    # Backslashes are separators, as the diff gate reads them (globs.normalise_path): a file
    # named `a\\b` is checked as `a/b` here and there.
    text = path.replace("\\", "/")
    if text == "~" or text.startswith("~/"):
        if not home:
            return None
        text = home + text[1:]
    elif text.startswith("~"):
        return None
    if not os.path.isabs(text):
        text = os.path.join(cwd, text)
    return text


def resolve(path: str, cwd: str, root_real: str, home: str | None) -> Place | None:
    """Resolve one target; None when the path cannot be known (see `expand`)."""
    full = expand(path, cwd, home)
    if full is None:
        return None
    real = os.path.realpath(full)
    return Place(real, relative_to(real, root_real), path)


def relative_to(real: str, root_real: str) -> str | None:
    if real == root_real:
        return ""
    prefix = root_real.rstrip(os.sep) + os.sep
    if not real.startswith(prefix):
        return None
    return posixpath.normpath(real[len(prefix) :].replace(os.sep, "/"))


def under(real: str, roots: tuple[str, ...]) -> str | None:
    """The first of `roots` (real paths) that contains `real`, or None."""
    for root in roots:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return root
    return None


def in_git_dir(rel: str) -> bool:
    """Inside the repository's own .git (any spelling a case-folding file system accepts)."""
    first = rel.split("/", 1)[0]
    return first.lower().rstrip(". ") == GIT_DIR_NAME


def nested_repository(root_real: str, rel: str) -> str | None:
    """The repo-relative directory of a nested repository (a submodule) that holds `rel`, if any."""
    parts = rel.split("/")[:-1]
    current = root_real
    for i, part in enumerate(parts):
        current = os.path.join(current, part)
        if os.path.lexists(os.path.join(current, GIT_DIR_NAME)):
            return "/".join(parts[: i + 1])
    return None
