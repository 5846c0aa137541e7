"""The sidecar's `git ls-tree HEAD`: HEAD asked of git on every request, the listing kept by commit.

guard/fence.py lists the manifest, its pin and the job files at HEAD with one `git ls-tree`:
a process per request, about 2 ms of git's CPU and a fork of the sidecar beside it. What
ls-tree lists for a commit never changes (replace objects and grafts are off for every git
call), so the sidecar keeps that listing by the commit's id. What HEAD is, git is asked on
every request, through one `git cat-file --batch-check` the sidecar keeps running per
repository (inspection.git.ObjectNames): a commit, a checkout or a reset between two requests
is seen by the second. Whatever goes wrong raises, and fence.py then reads the fence the way
scoring does (pipeline.committed_fence), which answers or refuses.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from ..errors import GitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..inspection.git import ObjectNames
    from ..inspection.trees import TreeReader

MAX_LISTINGS = 64  # commits' listings kept per repository; more and the oldest go
MAX_REPOSITORIES = 16  # repositories with a cat-file kept running; more and the oldest is stopped

Entries = dict[str, tuple[str, str, str]]


class HeadListing:
    """`tree_entries(repo, "HEAD", paths)` as `Repository.tree_entries` answers it, for one repository."""

    def __init__(self, root: str, git_dir: str, environ: Mapping[str, str]) -> None:
        self._where = (root, git_dir, environ)
        self._names: ObjectNames | None = None
        self._lock = threading.Lock()
        self._listings: dict[tuple[str, tuple[str, ...]], Entries] = {}
        self._closed = False
        self.listed = 0  # ls-tree calls made (for tests)

    def _object_names(self) -> ObjectNames:
        with self._lock:
            if self._closed:  # stopped (another repository took its place): the slow read answers
                raise GitError("the sidecar's cat-file for this repository was stopped")
            if self._names is None:
                from ..inspection.git import ObjectNames
                from ..inspection.gitprocess import GitProcess

                root, git_dir, environ = self._where
                self._names = ObjectNames(GitProcess(root, environ, discovered=(root, git_dir, False)))
            return self._names

    def tree_entries(self, repo: TreeReader, rev: str, paths: Sequence[str]) -> Entries:
        if rev != "HEAD":
            raise GitError(f"the sidecar lists HEAD only, not {rev}")
        commit = self._object_names().object_id("HEAD")
        if commit is None:
            raise GitError("HEAD names no commit yet")
        key = (commit, tuple(paths))
        found = self._listings.get(key)
        if found is None:
            found = repo.tree_entries(commit, paths)  # the commit HEAD named a moment ago, by id
            self.listed += 1
            if len(self._listings) >= MAX_LISTINGS:
                self._listings.pop(next(iter(self._listings)), None)
            self._listings[key] = found
        return dict(found)

    def close(self) -> None:
        with self._lock:
            names, self._names, self._closed = self._names, None, True
        if names is not None:
            names.close()


class HeadListings:
    """One HeadListing per repository the sidecar is asked about."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_repository: dict[tuple[str, str, int], HeadListing] = {}

    def of(self, root: str, git_dir: str, environ: Mapping[str, str]) -> HeadListing:
        key = (root, git_dir, id(environ))  # one environment per sidecar, as run.load_fence keys it
        with self._lock:
            found = self._by_repository.get(key)
            if found is None:
                if len(self._by_repository) >= MAX_REPOSITORIES:
                    self._by_repository.pop(next(iter(self._by_repository))).close()
                found = self._by_repository[key] = HeadListing(root, git_dir, environ)
            return found

    def close(self) -> None:
        with self._lock:
            listings, self._by_repository = list(self._by_repository.values()), {}
        for listing in listings:
            listing.close()
