"""What the guard's fence at HEAD asks git: the branch, a tree's entries and blobs' bytes.

`Repository` (git.py) asks every other question and inherits these. They sit in their own small
class so that a Write whose manifest is committed at HEAD loads neither git.py's one large class
(3.5M instructions of every such tool call, issue 29) nor its module-level state.
"""

from __future__ import annotations

import os
import stat

from ..errors import GitError, UnreadableFile
from .gitprocess import GitProcess

TYPE_CHECKING = False  # typing's, without importing typing on the guard's path (issue 29)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence


class TreeReader(GitProcess):
    """One repository, asked only what the fence needs: the other questions are Repository's."""

    def branch(self) -> str | None:
        """Current branch name, or None when HEAD is detached."""
        return self.finish_branch(self.start_branch())

    def start_branch(self) -> subprocess.Popen[bytes]:
        """`branch` started: git answers while the caller validates the manifest."""
        return self.start("symbolic-ref", "-q", "HEAD")

    def finish_branch(self, proc: subprocess.Popen[bytes]) -> str | None:
        name = self.finish(proc, ok=(0, 1)).decode("utf-8", "replace").strip()
        return name[len("refs/heads/") :] if name.startswith("refs/heads/") else None

    def tree_entries(self, rev: str, paths: Sequence[str]) -> dict[str, tuple[str, str, str]]:
        """(mode, type, object id) at `rev` of each of `paths` that is there, as git's tree lists it."""
        out = self.run("ls-tree", "-z", "--full-tree", rev, "--", *paths, literal=True)
        found = {}
        for rec in out.split(b"\0"):
            meta, tab, name = rec.partition(b"\t")
            if tab and len(fields := meta.decode("ascii", "replace").split()) == 3:
                found[os.fsdecode(name)] = (fields[0], fields[1], fields[2])
        return found

    def blobs(self, shas: Sequence[str]) -> dict[str, bytes]:
        """The bytes of several blobs, from one `cat-file --batch`."""
        out = self.run("cat-file", "--batch", stdin="".join(f"{s}\n" for s in shas).encode())
        found, pos = {}, 0
        while pos < len(out):
            end = out.index(b"\n", pos)
            fields = out[pos:end].split()
            if len(fields) != 3 or fields[1] != b"blob":
                raise GitError(f"git cat-file: not a blob: {out[pos:end][:80]!r}")
            size = int(fields[2])
            found[fields[0].decode()] = out[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return found

    def committed_bytes(self, wanted: Mapping[str, str], limit: int = 1 << 20) -> dict[str, bytes]:
        """{blob id: bytes} for `wanted` ({path: blob id}). A working-tree file at that path whose
        bytes hash to that id holds exactly those bytes, so it is read there, without a git call
        (a symlink, a FIFO, a file over `limit` or one that differs is not); the rest come from
        one `cat-file --batch`."""
        found: dict[str, bytes] = {}
        for path, sha in wanted.items() if self.root is not None else ():
            data = _plain_file(self.root or "", path, limit)
            if data is not None and _small_blob_id(data, sha) == sha:
                found[sha] = data
        rest = sorted({sha for sha in wanted.values() if sha not in found})
        return {**found, **(self.blobs(rest) if rest else {})}


def _plain_file(root: str, path: str, limit: int) -> bytes | None:
    """A regular file's bytes in the working tree, if it is one of at most `limit` bytes."""
    from . import worktree

    try:
        info = worktree.lstat(root, path)
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return worktree.read_worktree_file(root, path)
    except UnreadableFile:
        return None


def _small_blob_id(data: bytes, like: str) -> str:
    """`blob_id` for a file of a few kilobytes (a manifest), without loading OpenSSL (digest.py)."""
    from .. import digest

    algo = digest.sha256 if len(like) == 64 else digest.sha1
    return str(algo(b"blob %d\0" % len(data) + data).hexdigest())
