"""Where a write lands: a path as a tool call names it, resolved against the repository.

A path is joined to the call's working directory, `~` is expanded with the HOME the
guard was given, and symlinks are resolved the way the write itself would follow them
(os.path.realpath: existing links, then `..` physically). The result is repo-relative,
in the same form git reports a changed path, or it is outside the repository. An existing
file is also judged by what it is (`same_files`: a hard link to a protected file is that file).
"""

from __future__ import annotations

import os
import posixpath
import stat

from ..records import NamedTuple

TYPE_CHECKING = False  # typing's; collections.abc (it loads collections) only for annotations (issue 29)
if TYPE_CHECKING:
    from collections.abc import Mapping

GIT_DIR_NAME = ".git"


class Place(NamedTuple):
    """A resolved write target: `rel` is repo-relative ("" for the root itself), None outside."""

    real: str
    rel: str | None
    named: str  # the path as the call named it, for messages


def expand(path: str, cwd: str, home: str | None) -> str | None:
    """The absolute spelling of `path`; None when `~user` or a missing HOME leaves it unknown."""
    # A backslash is a separator only on Windows; on POSIX `a\\b` is one name, and the write lands there.
    text = path.replace("\\", "/") if os.name == "nt" else path
    if text == "~" or text.startswith("~/"):
        if not home:
            return None
        text = home + text[1:]
    elif text.startswith("~"):
        return None
    if not os.path.isabs(text):
        text = os.path.join(cwd, text)
    return text


def resolve(
    path: str, cwd: str, root_real: str, home: str | None, links: Mapping[str, str] | None = None
) -> Place | None:
    """Resolve one target; None when the path cannot be known (see `expand`). `links` are the
    symlinks the same command makes first (absolute link -> absolute target): a write through one
    lands where it points, though it does not exist yet when the guard looks."""
    full = expand(path, cwd, home)
    if full is None:
        return None
    real = os.path.realpath(full)
    for _ in range(8):  # a link to a link the command also makes
        hop = _through(real, links or {})
        if hop is None:
            break
        real = os.path.realpath(hop)
    return Place(real, relative_to(real, root_real), path)


def _through(real: str, links: Mapping[str, str]) -> str | None:
    """`real` with its longest prefix that is a link the command makes replaced by where it points."""
    probe = real
    while probe and probe != os.path.dirname(probe):
        target = links.get(probe)
        if target is not None and target != probe:
            return target + real[len(probe) :]
        probe = os.path.dirname(probe)
    return None


def same_files(real: str, root_real: str, limit: int = 50_000) -> list[str] | None:
    """The other names of an existing file with more than one hard link (by st_dev and st_ino),
    searched under the repository: [] for a file with one name, None when a name is not found
    there (outside it, or past `limit` entries), so the write cannot be placed."""
    try:
        st = os.lstat(real)
    except OSError:
        return []
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return []
    found, seen = [], 0
    for dirpath, dirnames, filenames in os.walk(root_real):
        seen += len(dirnames) + len(filenames)
        if seen > limit:
            return None
        for name in filenames:
            full = os.path.join(dirpath, name)
            if full == real:
                continue
            try:
                other = os.lstat(full)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                found.append(full)
    return found if len(found) + 1 >= st.st_nlink else None


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
