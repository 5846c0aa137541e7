"""The worktree states a hint must never destroy (the work that exists nowhere else)."""

from __future__ import annotations

from tests.testing.repo import GitRepo


def _setup_worktree(repo: GitRepo, status: str) -> None:
    repo.write("allowed/a.py", "one\ntwo\nthree\nfour\n")  # the real work, which must survive
    if status == "modified-unstaged":
        repo.write("other/b.py", "alpha\nBETA\n")
    elif status == "modified-staged":
        repo.write("other/b.py", "alpha\nBETA\n")
        repo.git("add", "other/b.py")
    elif status == "added-staged":
        repo.write("other/new.py", "new\n")
        repo.git("add", "other/new.py")
    elif status == "added-staged-then-edited":
        repo.write("other/new.py", "new\n")
        repo.git("add", "other/new.py")
        repo.write("other/new.py", "newer\n")
        repo.git("add", "other/new.py")
    elif status == "untracked":
        repo.write("other/new.py", "new\n")
    elif status == "deleted-unstaged":
        repo.remove("other/b.py")
    elif status == "deleted-staged":
        repo.git("rm", "-q", "other/b.py")
    elif status == "renamed":
        repo.git("mv", "other/b.py", "other/c.py")
    elif status == "renamed-out-of-allowed":
        repo.git("mv", "allowed/a.py", "other/a.py")
        repo.write("allowed/z.py", "z\n")
    elif status == "odd-name":
        repo.write("other/it's a *.py", "new\n")


WORKTREE_STATUSES = [
    "modified-unstaged",
    "modified-staged",
    "added-staged",
    "added-staged-then-edited",
    "untracked",
    "deleted-unstaged",
    "deleted-staged",
    "renamed",
    "renamed-out-of-allowed",
    "odd-name",
]
