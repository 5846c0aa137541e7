"""Content, not stat data: what `git commit` will record, established from bytes.

git decides that a working-tree file is its index entry's blob from the stat data cached
in .git/index, which the job can write: copy a file's stat data into the entry of another
staged blob and `git status` shows nothing, `git diff HEAD` reads the file on disk, and
`git commit` records the blob. So the working-tree bytes of every staged path are hashed
and compared with the index blob, a cost that grows with the change, not with the
repository. Paths git reports as changed but not staged were read from disk by git itself.

Attributes that rewrite content on its way into the index (`ident`, `working-tree-encoding`,
clean filters) are read with git check-attr: what runs in the working tree must be what git
records, unless the rewrite is known and harmless (text/eol line-end normalisation). LFS
content is opaque: a checkout replaces the pointer blob by the object it names, which no
check here has read.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Mapping, Sequence

from ..model import Hidden
from ..records import NamedTuple
from . import gitparse, hidden, worktree
from .git import Repository, blob_id

ATTRIBUTES = ("filter", "ident", "working-tree-encoding")
# The definitions `git lfs install` writes, exactly: anything else is a clean filter of the job's choosing.
LFS_DEFINITIONS = {
    "clean": frozenset({"git-lfs clean -- %f"}),
    "process": frozenset({"git-lfs filter-process", "git-lfs filter-process --skip"}),
}
_UTF8 = re.compile(r"utf-?8", re.IGNORECASE)
POINTER_MAX = 1024  # git-lfs's own bound on a pointer file
_POINTER = re.compile(
    rb"version https://git-lfs\.github\.com/spec/v1\n(?:.*\n)*?oid sha256:([0-9a-f]{64})\n"
    rb"size (\d+)\n"
)


class Attributes(NamedTuple):
    """The rewriting attributes of the paths that were asked about (only set/unset/valued ones kept)."""

    asked: frozenset[str]
    found: dict[str, dict[str, str]]

    @classmethod
    def of(cls, repo: Repository, paths: Sequence[str]) -> Attributes:
        return cls(frozenset(paths), repo.check_attr(paths, ATTRIBUTES))

    def covering(self, repo: Repository, paths: Sequence[str]) -> dict[str, dict[str, str]]:
        """The attributes of `paths`, asking git about any not asked yet."""
        more = Attributes.of(repo, [p for p in paths if p not in self.asked]).found
        return {p: a for p in paths if (a := self.found.get(p) or more.get(p)) is not None}


class Evidence(NamedTuple):
    anomalies: list[Hidden]
    restage: list[str]  # paths whose staged blob is not the working-tree file: score the staged version too
    filters: dict[str, str]  # LFS-tracked path -> its filter driver: content a checkout replaces


def filter_drivers(out: bytes) -> dict[str, dict[str, str]]:
    """`git config -z --get-regexp ^filter\\..*\\.(clean|process)$` as {driver: {clean|process: command}}."""
    drivers: dict[str, dict[str, str]] = {}
    for record in out.split(b"\0"):
        key, _, value = record.decode("utf-8", "replace").partition("\n")
        if key:
            name, _, kind = key[len("filter.") :].rpartition(".")
            drivers.setdefault(name, {})[kind.lower()] = value
    return drivers


def is_lfs(driver: Mapping[str, str]) -> bool:
    """A driver defined exactly as git-lfs defines it (and nothing else rewriting on the way in)."""
    return bool(driver) and all(value in LFS_DEFINITIONS.get(kind, ()) for kind, value in driver.items())


def untrusted_drivers(drivers: Mapping[str, Mapping[str, str]]) -> list[Hidden]:
    """Every configured clean or process filter that is not git-lfs exactly: it can rewrite anything."""
    return [
        Hidden("filter-driver", None, f"filter.{name}.{kind}={value!r}")
        for name, driver in sorted(drivers.items())
        if not is_lfs(driver)
        for kind, value in sorted(driver.items())
    ]


def lfs_tracked(attrs: Mapping[str, Mapping[str, str]], drivers: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """{path: driver} for the paths whose `filter` attribute names git-lfs: `lfs`, which every machine with
    git-lfs installed defines, or a driver configured here exactly as git-lfs defines it.

    Other drivers are each machine's own config: where one is configured here it is refused outright
    (`untrusted_drivers`); what another machine's smudge command does is out of sight (docs/limitations.md).
    """
    return {
        p: a["filter"]
        for p, a in attrs.items()
        if a.get("filter") == "lfs" or is_lfs(drivers.get(a.get("filter", ""), {}))
    }


OnDisk = dict[str, tuple[str, str | None]]  # path -> (mode, object id of its bytes as they are)


def on_disk(repo: Repository, staged: Sequence[gitparse.Staged]) -> OnDisk:
    """What the working tree holds at each staged path (submodules aside), by content."""
    index = {s.path: (s.mode, s.sha) for s in staged if s.mode != gitparse.GITLINK_MODE}
    return hidden.on_disk(repo, sorted(index), index)


def gather(
    repo: Repository,
    staged: Sequence[gitparse.Staged],
    paths: Sequence[str],
    drivers: Mapping[str, Mapping[str, str]],
    known: Attributes | None = None,
    disk: OnDisk | None = None,
) -> Evidence:
    """Compare staged blobs with the working-tree bytes, and look up the rewriting attributes of `paths`
    (the changed and untracked files) and of the staged ones. `known` and `disk` are what was
    already looked up (while the diff streamed)."""
    wanted = sorted(set(paths) | {s.path for s in staged})
    attrs = (known or Attributes(frozenset(), {})).covering(repo, wanted)
    filters = lfs_tracked(attrs, drivers)
    anomalies = _rewritten(repo, {p: a for p, a in attrs.items() if p not in filters})
    mismatched = _staged_mismatches(repo, staged, filters, on_disk(repo, staged) if disk is None else disk)
    for s in staged:
        if s.path in mismatched:
            anomalies.append(Hidden("stat-cache" if s.worktree_clean else "staged-only", s.path))
    return Evidence(anomalies, sorted(mismatched), filters)


def _rewritten(repo: Repository, attrs: Mapping[str, Mapping[str, str]]) -> list[Hidden]:
    """Files that `ident` or `working-tree-encoding` would store other than they are on disk."""
    rewriting = {p: _rewrite(a) for p, a in attrs.items() if _rewrite(a)}
    root = repo.work_tree
    with worktree.Walker(root) as walk:
        regular = [p for p in sorted(rewriting) if (st := worktree.lstat(root, p, walk)) and stat.S_ISREG(st.st_mode)]
    as_is, as_added = repo.hash_files(regular), repo.hash_files(regular, as_added=True)
    return [Hidden("attribute", p, rewriting[p]) for p, a, b in zip(regular, as_is, as_added, strict=True) if a != b]


def _rewrite(attrs: Mapping[str, str]) -> str:
    encoding = attrs.get("working-tree-encoding", "unset")
    if encoding not in ("set", "unset") and not _UTF8.fullmatch(encoding):
        return f"working-tree-encoding={encoding}"
    return "ident" if attrs.get("ident") == "set" else ""


def _staged_mismatches(
    repo: Repository, staged: Sequence[gitparse.Staged], filters: Mapping[str, str], disk: OnDisk
) -> set[str]:
    """Staged paths whose working-tree file is not what the index holds, whatever the stat cache says."""
    index = {s.path: (s.mode, s.sha) for s in staged if s.mode != gitparse.GITLINK_MODE}
    suspects = {p for p, entry in index.items() if disk.get(p) != entry}
    # Same mode, other bytes: maybe only the conversions `git add` applies (CRLF to LF, say).
    converted = [
        p
        for p in sorted(suspects)
        if p in disk and disk[p][0] == index[p][0] != gitparse.SYMLINK_MODE and p not in filters
    ]
    for p, sha in zip(converted, repo.hash_files(converted, as_added=True), strict=True):
        if sha == index[p][1]:
            suspects.discard(p)
    for p in [p for p in sorted(suspects) if p in filters]:
        if _is_lfs_pointer_to(repo, index[p][1], p):
            suspects.discard(p)
    return suspects


def _is_lfs_pointer_to(repo: Repository, sha: str, path: str) -> bool:
    """Is the staged blob the LFS pointer git-lfs would write for the working-tree file?"""
    if repo.blob_sizes([sha]).get(sha, POINTER_MAX + 1) > POINTER_MAX:
        return False  # not a pointer, and not to be read whole to find that out
    m = _POINTER.fullmatch(repo.blob(sha))
    digest = worktree.sha256(repo.work_tree, path)
    return m is not None and digest is not None and (m.group(1).decode(), int(m.group(2))) == digest


def fence_reads(
    repo: Repository, reads: Mapping[str, bytes], index: Mapping[str, tuple[str, str]], shown: set[str]
) -> list[Hidden]:
    """Files read from the working tree to judge the change (the manifest, its pin): when tracked and
    not shown as changed by git, their bytes must be the indexed blob, or a forged stat cache hides
    an edit to the fence itself."""
    found = []
    for path, data in sorted(reads.items()):
        entry = index.get(path)
        if entry is None or path in shown:
            continue  # untracked (the report warns), or a change git shows and the checks judge
        if blob_id(data, entry[1]) != entry[1] and repo.hash_as_added(data, path) != entry[1]:
            found.append(Hidden("stat-cache", path, "read"))
    return found
