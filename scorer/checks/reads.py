"""Each file the checks read, read once per scoring.

Several checks read the same changed files (the new source for the cheat checks, runner_reach,
the whole-file token checks, the protected tests; the base versions for most of them): on a
change of 5,000 files that was each file read three times and hashed as often. `ReadOnce` stands
between the checks and the repository for one run of the registry's checks and answers a file it
has read before from what it read.

A commit's tree never changes, so its answers stay true. For the working tree (`rev` None) the
checks all judge the one version read first, as they judge the one diff git gave; a file rewritten
while the checks run was never what the diff showed either. The cache lives as long as the checks
of one scoring: the checks after the test run read the repository again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # typing's, without importing typing on every scoring (issue 29)
if TYPE_CHECKING:
    from .contract import Trees


class ReadOnce:
    """A `Trees` that asks `trees` for each (rev, path) at most once.

    `read_file` and `read_files` are cached apart: a symlink at a commit reads as None through
    the one and as its target through the other, and a working-tree file that cannot be read
    raises through the one and is None through the other (`Repository.read_file(s)`)."""

    def __init__(self, trees: Trees) -> None:
        self._trees = trees
        self._one: dict[tuple[str | None, str], bytes | None] = {}
        self._many: dict[tuple[str | None, str], bytes | None] = {}
        self._names: dict[tuple[str, str], list[str]] = {}
        self._files: dict[str, list[str]] = {}

    def read_file(self, rev: str | None, path: str) -> bytes | None:
        key = (rev, path)
        if key not in self._one:
            self._one[key] = self._trees.read_file(rev, path)  # an error is raised, never cached
        return self._one[key]

    def read_files(self, rev: str | None, paths: Sequence[str]) -> Mapping[str, bytes | None]:
        missing = list(dict.fromkeys(p for p in paths if (rev, p) not in self._many))
        if missing:
            found = self._trees.read_files(rev, missing)
            for path in missing:
                self._many[(rev, path)] = found[path]  # a path it did not answer is an error here
        return {p: self._many[(rev, p)] for p in paths}

    def names_under(self, rev: str, directory: str) -> list[str]:
        key = (rev, directory)
        if key not in self._names:
            self._names[key] = self._trees.names_under(rev, directory)
        return list(self._names[key])

    def files_at(self, rev: str) -> list[str]:
        if rev not in self._files:
            self._files[rev] = self._trees.files_at(rev)
        return list(self._files[rev])
