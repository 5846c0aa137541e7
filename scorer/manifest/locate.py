"""Where the manifest is and which bytes of it count: committed (at the base, or at HEAD), or on disk.

The fence is the committed fence: a manifest inside the repository is read from the base
commit in --base mode and from HEAD in worktree mode whenever it is tracked there, so a
job that edits it is judged by the version it edited (and fails manifest-changed). The
environment the job's own session sets may only name such a committed manifest.
"""

from __future__ import annotations

import os
import posixpath

from ..errors import ManifestError
from ..records import NamedTuple
from .pin import PIN_SUFFIX, expected_digest, verify_pin

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ..inspection.trees import TreeReader
    from .load import Manifest

DEFAULT_MANIFEST = "job_manifest.json"
ENV_MANIFEST = "SCORE_DIFF_MANIFEST"


def manifest_path(manifest: str | None, cwd: str, environ: Mapping[str, str], root: Callable[[], str]) -> str:
    """--manifest, then $SCORE_DIFF_MANIFEST, then job_manifest.json at the repository root,
    as named (not through symlinks), absolute and normalised: its pin is the `.sha256` file beside
    that name. Strings and os.path, not pathlib: the guard's hook runs this on every tool call."""
    chosen = manifest or environ.get(ENV_MANIFEST)
    return os.path.abspath(os.path.join(cwd, chosen) if chosen else os.path.join(root(), DEFAULT_MANIFEST))


def manifest_location(manifest: str | None, cwd: str, root: str, environ: Mapping[str, str]) -> tuple[str, str | None]:
    """The manifest file, and its repo-relative path when it lives inside the repository."""
    path = manifest_path(manifest, cwd, environ, lambda: root)
    # Inside the repository the name counts, not where a symlink points: a job that turns
    # job_manifest.json into a link to a looser file must still be scored by the one at base.
    rel = _repo_relative(path, root) or _repo_relative(os.path.realpath(path), root)
    return path, rel


def bare_manifest_location(manifest: str | None) -> tuple[str, str | None]:
    """In a bare repository (a server) the manifest is a path inside the repository, read at the
    base commit; only an absolute --manifest names a file on the server's own disk."""
    if manifest and os.path.isabs(manifest):
        return manifest, None
    rel = posixpath.normpath((manifest or DEFAULT_MANIFEST).replace(os.sep, "/"))
    if rel in (".", "..") or rel.startswith(("../", "/")):
        raise ManifestError(f"--manifest {manifest!r} is not a path inside the repository")
    return rel, rel


def _repo_relative(path: str, root: str) -> str | None:
    """`path` (absolute, normalised) relative to the repository, resolving symlinks above the
    root only (macOS /tmp)."""
    prefix = os.path.abspath(root).rstrip(os.sep) + os.sep
    if path.startswith(prefix):  # spelt under the root: no file system call
        return path[len(prefix) :]
    try:
        real_root = os.stat(root)
    except OSError:
        return None
    for top in _parents(path):  # a parent that is the root's directory, by device and inode
        try:
            found = os.stat(top)
        except OSError:
            return None  # a parent that does not exist has no children that do
        if (found.st_dev, found.st_ino) == (real_root.st_dev, real_root.st_ino):
            return path[len(top.rstrip(os.sep) + os.sep) :]
    return None


def _parents(path: str) -> list[str]:
    """The directories above `path`, outermost first: what reversed(PurePath.parents) lists."""
    found: list[str] = []
    parent = os.path.dirname(path)
    while parent not in found:
        found.append(parent)
        parent = os.path.dirname(parent)
    return found[::-1]


class LocatedManifest(NamedTuple):
    """The validated manifest as found, and the commit its bytes came from (None: read from disk)."""

    manifest: Manifest
    commit: str | None


def from_environment(manifest: str | None, environ: Mapping[str, str]) -> bool:
    """True when $SCORE_DIFF_MANIFEST, not --manifest or the default, names the manifest."""
    return not manifest and bool(environ.get(ENV_MANIFEST))


def read_manifest(
    repo: TreeReader | None,  # None only for a manifest outside the repository (rel None): git is not asked
    path: str,
    rel: str | None,
    base: str | None,
    manifest_sha256: str | None,
    environ: Mapping[str, str],
    head: str | None = None,
    chosen_by_env: bool = False,
    reads: dict[str, bytes] | None = None,
    entries: Mapping[str, tuple[str, str, str]] | None = None,
) -> LocatedManifest:
    """At `base` (--base mode) or at `head` (worktree mode) for a manifest inside the repository
    that is committed there; from disk otherwise. The pin comes from the same place.

    A pinned digest is checked against the raw bytes before anything is parsed. `reads`, if
    given, receives the repo-relative name and bytes of each file read from the working tree
    (a manifest not committed at HEAD, and its pin), so the inspection can hold them to what
    git records. `entries`, if given, is what `git ls-tree` lists at `head` for the manifest and
    its pin (the guard's one call, guard/fence.py); `head` may then be the name HEAD.
    """
    from .load import parse_manifest  # jsonschema and pathspec: imported while git already runs

    if chosen_by_env and rel is None:
        raise ManifestError(
            f"${ENV_MANIFEST} names {path}, outside the repository: the environment (which the "
            "job's own session sets) may only name a manifest committed in the repository; pass "
            "--manifest to score against another file"
        )
    commit = base if base is not None else head
    committed = None
    if commit is not None and rel is not None:
        if repo is None:
            raise ManifestError(f"{rel}: a manifest in the repository is read through git, and none was given")
        committed = _committed(repo, commit, rel, entries)
    if committed is None and (base is not None and rel is not None):
        raise ManifestError(
            f"manifest {rel} does not exist at the base commit; commit it to the base "
            "branch first (a job must not bring its own fence)"
        )
    if committed is None and chosen_by_env:
        raise ManifestError(
            f"${ENV_MANIFEST} names {rel}, which is not committed at HEAD: the environment may "
            "only name a manifest committed in the repository; commit it, or pass --manifest"
        )
    if committed is not None and commit is not None:
        raw, pin = committed
        source = f"{rel} at {'base' if base is not None else 'HEAD'}" + (f" {commit[:12]}" if commit != "HEAD" else "")
        pin_file: Callable[[], bytes | None] = lambda: pin  # noqa: E731
    else:
        try:
            raw = _read(path)
        except OSError as exc:
            raise ManifestError(
                f"cannot read manifest {path}: {exc.strerror or exc} (pass --manifest or set {ENV_MANIFEST})"
            ) from exc
        source = path
        pin_path = path + PIN_SUFFIX
        pin_file = lambda: _read_optional(pin_path)  # noqa: E731
        if reads is not None and rel is not None:
            reads[rel] = raw
            pin_file = _recording(pin_file, reads, rel + PIN_SUFFIX)
    expected = expected_digest(manifest_sha256, environ, pin_file, os.path.basename(path) + PIN_SUFFIX)
    verify_pin(raw, expected, source)
    return LocatedManifest(parse_manifest(raw, source), commit if committed is not None else None)


def _committed(
    repo: TreeReader, commit: str, rel: str, listed: Mapping[str, tuple[str, str, str]] | None
) -> tuple[bytes, bytes | None] | None:
    """The manifest's bytes and its pin's bytes (None if absent) at `commit`; None if the
    manifest is not there. A symlink or a directory there is refused, never followed."""
    entries = repo.tree_entries(commit, [rel, rel + PIN_SUFFIX]) if listed is None else listed
    wanted = {}
    for name in (rel, rel + PIN_SUFFIX):
        if name not in entries:
            continue
        mode, kind, sha = entries[name]
        if kind != "blob" or mode == "120000":
            raise ManifestError(
                f"{name} at {commit[:12]} is {'a symlink' if kind == 'blob' else 'a ' + kind}, not "
                "a file: a committed manifest or pin must be the file itself"
            )
        wanted[name] = sha
    if rel not in wanted:
        return None
    blobs = repo.committed_bytes(wanted)  # the working tree's copy when it is byte for byte the same
    pin_sha = wanted.get(rel + PIN_SUFFIX)
    return blobs[wanted[rel]], blobs[pin_sha] if pin_sha is not None else None


def _recording(read: Callable[[], bytes | None], reads: dict[str, bytes], name: str) -> Callable[[], bytes | None]:
    """`read`, keeping what it read in `reads` under `name`."""

    def recorded() -> bytes | None:
        data = read()
        if data is not None:
            reads[name] = data
        return data

    return recorded


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _read_optional(path: str) -> bytes | None:
    try:
        return _read(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ManifestError(f"cannot read {path}: {exc.strerror or exc}") from exc
