"""One root error type, one subclass per domain; `scorer.main` maps them all to exit 2."""

from __future__ import annotations


class ScoreDiffError(Exception):
    """Anything that stops score-diff from establishing a verdict."""

    code = "internal-error"


class ManifestError(ScoreDiffError):
    """The manifest is missing, unreadable, or does not validate."""

    code = "manifest-invalid"


class ManifestHashMismatch(ManifestError):
    """The manifest's bytes do not match the pinned digest."""

    code = "manifest-hash-mismatch"


class GitError(ScoreDiffError):
    """git failed or the repository is not in a state we can score."""

    code = "git-error"


class UsageError(ScoreDiffError):
    """The command line does not say what to do."""

    code = "usage"


class UnreadableFile(GitError):
    """A working-tree file the verdict depends on exists but cannot be read: unreadable is not absent."""
