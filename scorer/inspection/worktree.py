"""Reading the working tree the way the scorer may: never through a symlink, never outside.

No git here: these are the plain-file reads that git.py needs next to git's own answers
(untracked files' content, a file's bytes for justification evidence, the object id of a
working-tree file's bytes).

Every path is reached one component at a time from a descriptor of the repository root
(openat), each directory opened with O_NOFOLLOW: a symlink swapped in for a directory is
never followed, and a path whose absolute spelling passes PATH_MAX reads like any other.
A Walker keeps the descriptors of the directories it last went through for a sorted batch;
tracked paths whose state git reads the same way are looked at with one call each
(quick_lstat, blob_id). Unreadable is never empty: a read that fails says why.
"""

from __future__ import annotations

import errno
import os
import stat

from ..errors import UnreadableFile

TYPE_CHECKING = False  # typing's, without importing typing on the guard's path (issue 29)
if TYPE_CHECKING:
    from typing import Any

BINARY_SNIFF = 8000  # git's own heuristic: a NUL in the first 8000 bytes means binary
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in must not block the open
_AT = {os.open, os.stat, os.readlink} <= os.supports_dir_fd and os.stat in os.supports_follow_symlinks
_ABSENT = (errno.ENOENT, errno.ENOTDIR)


class Untracked:
    """Bytes of one untracked file read without following symlinks."""

    def __init__(
        self, data: bytes = b"", size: int = 0, binary: bool = False, link: str | None = None, error: str = ""
    ) -> None:
        self.data, self.size, self.binary, self.link = data, size, binary, link
        self.error = error  # why the content could not be read ("" when it was)


class Symlinked(OSError):
    """A directory on the way to the path is a symlink: the path is not where it is named."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Walker:
    """Opens paths beneath a root one component at a time, never through a symlink.

    Without openat (Windows) it joins paths instead, and only the last component is checked.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self._root_fd = os.open(root, os.O_RDONLY | _DIRECTORY) if _AT else None
        self._stack: list[tuple[str, int]] = []  # (name, descriptor) of the directories last walked

    def close(self) -> None:
        for _, fd in self._stack:
            os.close(fd)
        self._stack.clear()
        if self._root_fd is not None:
            os.close(self._root_fd)
            self._root_fd = None

    def __enter__(self) -> Walker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parent(self, path: str) -> tuple[int | None, str]:
        """(descriptor of `path`'s directory, last name); raises Symlinked or OSError."""
        parts = path.split("/")
        if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise OSError(errno.EINVAL, "not a plain repository-relative path")
        if self._root_fd is None:
            return None, os.path.join(self.root, *parts)
        dirs, keep = parts[:-1], 0
        while keep < min(len(dirs), len(self._stack)) and self._stack[keep][0] == dirs[keep]:
            keep += 1
        for _, fd in self._stack[keep:]:
            os.close(fd)
        del self._stack[keep:]
        for part in dirs[keep:]:
            at = self._stack[-1][1] if self._stack else self._root_fd
            if stat.S_ISLNK(os.stat(part, dir_fd=at, follow_symlinks=False).st_mode):
                raise Symlinked(errno.ELOOP, f"{part} is a symlink")
            self._stack.append((part, os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=at)))
        return (self._stack[-1][1] if self._stack else self._root_fd), parts[-1]

    def lstat(self, path: str) -> os.stat_result:
        fd, name = self.parent(path)
        return os.lstat(name) if fd is None else os.stat(name, dir_fd=fd, follow_symlinks=False)

    def open(self, path: str) -> Any:
        """A binary file object for a regular file (O_NOFOLLOW, O_NONBLOCK); OSError for anything else."""
        fd, name = self.parent(path)
        flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK
        fh = os.fdopen(os.open(name, flags) if fd is None else os.open(name, flags, dir_fd=fd), "rb")
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            fh.close()
            raise OSError(errno.EINVAL, "not a regular file")
        return fh

    def readlink(self, path: str) -> str:
        fd, name = self.parent(path)
        return os.readlink(name) if fd is None else os.readlink(name, dir_fd=fd)

    def read_checked(self, path: str, plain: set[str]) -> bytes | None:
        """`read_worktree_file` with one call per file: the directories on the way are checked
        for symlinks once per batch (`plain` remembers them), the file opened with O_NOFOLLOW."""
        parts = path.split("/")
        if self._root_fd is None or any(p in ("", ".", "..") for p in parts):
            return read_worktree_file(self.root, path, self)
        try:
            where = ""
            for part in parts[:-1]:
                where = f"{where}/{part}" if where else part
                if where not in plain:
                    if stat.S_ISLNK(os.stat(where, dir_fd=self._root_fd, follow_symlinks=False).st_mode):
                        return None
                    plain.add(where)
            fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=self._root_fd)
        except OSError as exc:
            if exc.errno == errno.ENAMETOOLONG:
                return read_worktree_file(self.root, path, self)
            if exc.errno in _ABSENT or exc.errno == errno.ELOOP:  # ELOOP: the file itself is a symlink
                return None
            raise UnreadableFile(f"cannot read {path} in the working tree: {_why(exc)}") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UnreadableFile(f"cannot read {path} in the working tree: not a regular file")
            chunks = []
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError as exc:
            raise UnreadableFile(f"cannot read {path} in the working tree: {_why(exc)}") from exc
        finally:
            os.close(fd)

    def quick_lstat(self, path: str) -> os.stat_result:
        """lstat of the path as the kernel resolves it from the root: one call, for batches of tracked
        paths whose state git reads the same way (a symlinked directory on the way is git's own
        "beyond a symbolic link" case, which its status reports). A name past PATH_MAX is walked."""
        if self._root_fd is None:
            return os.lstat(os.path.join(self.root, path))
        try:
            return os.stat(path, dir_fd=self._root_fd, follow_symlinks=False)
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
            return self.lstat(path)

    def blob_id(self, path: str, sha256: bool = False) -> str:
        """git's object id of a regular file's bytes as they are (`hash-object --no-filters`)."""
        flags = os.O_RDONLY | _NOFOLLOW | _NONBLOCK
        try:
            fd = (
                os.open(os.path.join(self.root, path), flags)
                if self._root_fd is None
                else os.open(path, flags, dir_fd=self._root_fd)
            )
        except OSError as exc:
            if exc.errno != errno.ENAMETOOLONG:
                raise
            parent, name = self.parent(path)
            fd = os.open(name, flags, dir_fd=parent)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            import hashlib  # here, not at the top: the guard reads its manifest through this module

            digest = hashlib.sha256() if sha256 else hashlib.sha1()  # noqa: S324 - git's object ids
            digest.update(b"blob %d\0" % st.st_size)
            read = 0
            while read < st.st_size and (block := os.read(fd, min(st.st_size - read, 1 << 20))):
                digest.update(block)  # one read for a small file
                read += len(block)
        finally:
            os.close(fd)
        if read != st.st_size:
            raise OSError(errno.EAGAIN, "changed while being read")
        return digest.hexdigest()


class _using:
    """The caller's walker (a batch shares its descriptors), or one for this call alone, closed
    after it. A class, not contextlib.contextmanager: the guard reads its fence at HEAD through this
    module, and contextlib loads collections and functools (issue 29)."""

    __slots__ = ("_own", "_walk")

    def __init__(self, root: str, walk: Walker | None) -> None:
        self._own = walk is None
        self._walk = Walker(root) if walk is None else walk

    def __enter__(self) -> Walker:
        return self._walk

    def __exit__(self, *exc: object) -> None:
        if self._own:
            self._walk.close()


def read_untracked(root: str, path: str, walk: Walker | None = None) -> Untracked:
    """An untracked file's bytes (the first 8000 only if binary), or its link target.

    Any failure, a file that vanished since git listed it included, is an error, not empty content.
    """
    with _using(root, walk) as w:
        try:
            if stat.S_ISLNK(w.lstat(path).st_mode):
                link = w.readlink(path)
                return Untracked(data=os.fsencode(link), size=len(os.fsencode(link)), link=link)
            with w.open(path) as fh:
                size = os.fstat(fh.fileno()).st_size
                head = fh.read(BINARY_SNIFF)
                if b"\0" in head:
                    return Untracked(data=head, size=size, binary=True)
                return Untracked(data=head + fh.read(), size=size)
        except Symlinked as exc:
            return Untracked(error=f"{exc.strerror}: the file is not where git listed it")
        except OSError as exc:
            return Untracked(error=_why(exc))


def read_worktree_file(root: str, path: str, walk: Walker | None = None) -> bytes | None:
    """A tracked-or-not file's bytes from the working tree; None if absent or a symlink anywhere.

    Raises UnreadableFile when it is there but cannot be read: unreadable is not absent.
    """
    if path.startswith("/") or ".." in path.split("/"):
        return None
    with _using(root, walk) as w:
        try:
            if stat.S_ISLNK(w.lstat(path).st_mode):
                return None
            with w.open(path) as fh:
                data: bytes = fh.read()
                return data
        except Symlinked:
            return None
        except OSError as exc:
            if exc.errno in _ABSENT:
                return None
            raise UnreadableFile(f"cannot read {path} in the working tree: {_why(exc)}") from exc


def read_worktree_files(root: str, paths: list[str]) -> dict[str, bytes | None]:
    """`read_worktree_file` for many paths, each directory checked for a symlink once, not once per
    file under it. A file that cannot be read is None here: these are changed files, which the
    inspection has named already when unreadable (an untracked one fails hidden-change; git diff
    itself stops on a tracked one)."""
    found: dict[str, bytes | None] = {}
    plain: set[str] = set()  # directories found not to be symlinks
    with Walker(root) as walk:
        for path in paths:
            try:
                found[path] = walk.read_checked(path, plain)
            except UnreadableFile:
                found[path] = None
    return found


def lstat(root: str, path: str, walk: Walker | None = None, quick: bool = False) -> os.stat_result | None:
    """`path`'s own status (a symlink is not followed); None if it is not there. `quick`: resolved
    by the kernel from the root (see Walker.quick_lstat), for batches of tracked paths.

    Raises UnreadableFile when it cannot be established: a file that cannot be looked at
    is not a file that is absent (a sparse checkout's skip-worktree path, say).
    """
    if walk is None:
        with Walker(root) as w:
            return lstat(root, path, w, quick)
    try:
        return walk.quick_lstat(path) if quick else walk.lstat(path)
    except Symlinked:
        return None  # the path itself is not there: a link to elsewhere stands in a directory's place
    except OSError as exc:
        if exc.errno in _ABSENT:
            return None
        raise UnreadableFile(f"cannot look at {path} in the working tree: {_why(exc)}") from exc


def readlink(root: str, path: str, walk: Walker | None = None) -> str | None:
    with _using(root, walk) as w:
        try:
            return w.readlink(path)
        except OSError:
            return None


def sha256(root: str, path: str, walk: Walker | None = None) -> tuple[str, int] | None:
    """(sha256 hex digest, size) of a regular file's bytes, read in blocks; None if it cannot be read."""
    with _using(root, walk) as w:
        try:
            with w.open(path) as fh:
                import hashlib  # here, not at the top: the guard reads its manifest through this module

                digest, size = hashlib.sha256(), 0
                while block := fh.read(1 << 20):
                    digest.update(block)
                    size += len(block)
                return digest.hexdigest(), size
        except OSError:
            return None


def fingerprint(root: str, path: str, walk: Walker | None = None) -> str:
    """What is at `path` now, by content (never by stat data, never through a symlink)."""
    with _using(root, walk) as w:
        try:
            st = w.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                return f"symlink {w.readlink(path)!r}"
            if not stat.S_ISREG(st.st_mode):
                return f"{stat.filemode(st.st_mode)[0]} (not a regular file)"
            with w.open(path) as fh:
                import hashlib  # here, not at the top: the guard reads its manifest through this module

                digest = hashlib.sha256()
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
        except OSError as exc:
            if isinstance(exc, Symlinked) or exc.errno in _ABSENT:
                return "absent"
            return f"unreadable ({_why(exc)})"
        return f"{'executable' if st.st_mode & 0o100 else 'file'} {digest.hexdigest()}"
