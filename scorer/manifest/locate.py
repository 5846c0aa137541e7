"""Where the manifest is and which bytes of it count: on disk, or at the base commit."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ManifestError
from .pin import PIN_SUFFIX, expected_digest, verify_pin

if TYPE_CHECKING:
    from ..inspection.git import Repository
    from .load import Manifest

DEFAULT_MANIFEST = "job_manifest.json"


def manifest_path(manifest: str | None, cwd: str, environ: Mapping[str, str], root: Callable[[], str]) -> Path:
    """--manifest, then $SCORE_DIFF_MANIFEST, then job_manifest.json at the repository root,
    as named (not through symlinks): its pin is the `.sha256` file beside that name."""
    chosen = manifest or environ.get("SCORE_DIFF_MANIFEST")
    return Path(os.path.abspath(Path(cwd, chosen) if chosen else Path(root(), DEFAULT_MANIFEST)))


def manifest_location(
    manifest: str | None, cwd: str, root: str, environ: Mapping[str, str]
) -> tuple[Path, str | None]:
    """The manifest file, and its repo-relative path when it lives inside the repository."""
    path = manifest_path(manifest, cwd, environ, lambda: root)
    # Inside the repository the name counts, not where a symlink points: a job that turns
    # job_manifest.json into a link to a looser file must still be scored by the one at base.
    rel = _repo_relative(path, root) or _repo_relative(Path(os.path.realpath(path)), root)
    return path, rel


def bare_manifest_location(manifest: str | None) -> tuple[Path, str | None]:
    """In a bare repository (a server) the manifest is a path inside the repository, read at the
    base commit; only an absolute --manifest names a file on the server's own disk."""
    if manifest and os.path.isabs(manifest):
        return Path(manifest), None
    rel = posixpath.normpath((manifest or DEFAULT_MANIFEST).replace(os.sep, "/"))
    if rel in (".", "..") or rel.startswith(("../", "/")):
        raise ManifestError(f"--manifest {manifest!r} is not a path inside the repository")
    return Path(rel), rel


def _repo_relative(path: Path, root: str) -> str | None:
    """`path` relative to the repository, resolving symlinks above the root only (macOS /tmp)."""
    real_root = os.path.realpath(root)
    for top in reversed(path.parents):
        if os.path.realpath(top) == real_root:
            return path.relative_to(top).as_posix()
    return None


def read_manifest(
    repo: Repository, path: Path, rel: str | None, base: str | None, manifest_sha256: str | None,
    environ: Mapping[str, str],
) -> Manifest:
    """From disk, except in --base mode for a manifest inside the repository: then from base.

    A pinned digest is checked against the raw bytes before anything is parsed.
    """
    from .load import parse_manifest  # jsonschema and pathspec: imported while git already runs

    if base is not None and rel is not None:
        raw = repo.read_file(base, rel)
        if raw is None:
            raise ManifestError(f"manifest {rel} does not exist at the base commit; commit it to the base "
                                "branch first (a job must not bring its own fence)")
        source = f"{rel} at base {base[:12]}"
        pin_file = partial(repo.read_file, base, rel + PIN_SUFFIX)
    else:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise ManifestError(f"cannot read manifest {path}: {exc.strerror or exc} "
                                f"(pass --manifest or set SCORE_DIFF_MANIFEST)") from exc
        source = str(path)
        pin_file = partial(_read_optional, Path(str(path) + PIN_SUFFIX))
    expected = expected_digest(manifest_sha256, environ, pin_file, path.name + PIN_SUFFIX)
    verify_pin(raw, expected, source)
    return parse_manifest(raw, source)


def _read_optional(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ManifestError(f"cannot read {path}: {exc.strerror or exc}") from exc
