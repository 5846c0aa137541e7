"""No hint destroys what exists nowhere else (issue 21, item 2).

Every hint's command is run in a repository where the file it names has no other copy: an
untracked file, a staged file never committed, an unstaged edit, the fence before it is
committed. Afterwards every version that was there (on disk or staged) must still exist: in
the working tree, or in an object a ref reaches (a commit, the stash).
"""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.testing.hints import WORKTREE_STATUSES, _setup_worktree
from tests.testing.repo import GitRepo, Outcome


def _versions(repo: GitRepo) -> set[str]:
    """Blob ids of every file version on disk or in the index that HEAD does not hold."""
    at_head = set(repo.git("ls-tree", "-r", "--format=%(objectname)", "HEAD").stdout.split())
    staged = {line.split()[1] for line in repo.git("ls-files", "-s").stdout.splitlines()}
    listed = repo.git("ls-files", "-z", "-c", "-o", "--exclude-standard").stdout.split("\0")
    on_disk = set()
    for path in filter(None, listed):
        if (repo.root / path).is_file():
            on_disk.add(repo.git("hash-object", "--", path).stdout.strip())
    return (staged | on_disk) - at_head


def _kept(repo: GitRepo) -> set[str]:
    """Blob ids a ref reaches (the stash included), and those on disk or staged now."""
    reachable = {line.split()[0] for line in repo.git("rev-list", "--all", "--objects").stdout.splitlines()}
    return reachable | _versions(repo)


def _run_every_hint(repo: GitRepo, out: Outcome) -> list[str]:
    commands = []
    for v in out.report["violations"]:
        for command in re.findall(r"run `([^`]+)`", v["hint"]):
            commands.append(command)
            proc = subprocess.run(command, shell=True, cwd=repo.root, capture_output=True, text=True, check=False)
            assert proc.returncode == 0, (command, proc.stderr)
    return commands


@pytest.mark.parametrize("status", WORKTREE_STATUSES)
def test_no_worktree_hint_loses_a_version(committed: GitRepo, status: str) -> None:
    committed.manifest()
    _setup_worktree(committed, status)
    before = _versions(committed)
    out = committed.score()
    assert out.exit_code == 1, out.text
    assert _run_every_hint(committed, out)
    assert before <= _kept(committed), out.text


def test_an_undone_untracked_file_is_in_the_stash(committed: GitRepo) -> None:
    committed.manifest()
    committed.write("notes.txt", "the user's only copy\n")
    out = committed.score()
    [v] = out.report["violations"]
    assert v["hint"].startswith("undo your change to notes.txt (untracked): run `git stash push --include-untracked")
    _run_every_hint(committed, out)
    assert not (committed.root / "notes.txt").exists()
    shown = committed.git("show", "stash@{0}^3:notes.txt").stdout
    assert shown == "the user's only copy\n"


def _fence_in_repo(repo: GitRepo, **fields: object) -> None:
    repo.manifest_path = repo.write_manifest(repo.root / "job_manifest.json", **fields)


@pytest.mark.parametrize("staged", [False, True], ids=["untracked", "staged"])
def test_an_uncommitted_manifest_and_pin_are_not_part_of_the_change(committed: GitRepo, staged: bool) -> None:
    from scorer.main import main

    _fence_in_repo(committed)
    assert main(["pin", "--repo", str(committed.root)]) == 0
    if staged:
        committed.git("add", "job_manifest.json", "job_manifest.json.sha256")
    committed.write("allowed/a.py", "fixed\n")
    out = committed.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text
    state = "staged but never committed" if staged else "untracked"
    assert any(f"job_manifest.json is {state}" in w for w in out.report["warnings"]), out.report["warnings"]


def test_an_uncommitted_pin_beside_a_committed_manifest_is_never_removed(committed: GitRepo) -> None:
    from scorer.main import main

    _fence_in_repo(committed)
    committed.commit("the manifest, not yet pinned")
    assert main(["pin", "--repo", str(committed.root)]) == 0
    committed.write("allowed/a.py", "fixed\n")
    before = _versions(committed)
    out = committed.score()
    hints = {v["code"]: v["hint"] for v in out.report["violations"] if v["path"] == "job_manifest.json.sha256"}
    assert set(hints) == {"manifest-changed", "unlisted-path", "sensitive-path"}, out.text
    for hint in hints.values():
        assert hint.startswith("commit the fence on the base branch first"), hint
        assert "`git stash" not in hint and "rm " not in hint and "git restore" not in hint
    _run_every_hint(committed, out)
    assert before <= _kept(committed)
    assert (committed.root / "job_manifest.json.sha256").is_file()


def test_a_stale_pin_on_an_uncommitted_manifest_stops_without_touching_it(committed: GitRepo) -> None:
    from scorer.main import main

    _fence_in_repo(committed)
    assert main(["pin", "--repo", str(committed.root)]) == 0
    _fence_in_repo(committed, allowed_paths=["**"])  # edited after pinning: the pin no longer matches
    committed.write("allowed/a.py", "fixed\n")
    before = _versions(committed)
    out = committed.score()
    assert (out.exit_code, out.codes) == (2, {"manifest-hash-mismatch"}), out.text
    [v] = out.report["violations"]
    assert v["hint"].startswith("stop and tell the user"), v["hint"]
    assert not _run_every_hint(committed, out)
    assert before <= _kept(committed)


def test_an_edited_committed_manifest_is_set_aside_not_lost(committed: GitRepo) -> None:
    _fence_in_repo(committed)
    committed.commit("the fence")
    _fence_in_repo(committed, allowed_paths=["**"])
    before = _versions(committed)
    out = committed.score()
    assert "manifest-changed" in out.codes
    _run_every_hint(committed, out)
    assert before <= _kept(committed)
    assert committed.score().codes == {"empty-diff"}


def test_a_pin_edit_is_manifest_changed(committed: GitRepo) -> None:
    """The README calls a pin edit a change to the fence: it is reported as one, never as a path to list."""
    from scorer.main import main

    _fence_in_repo(committed)
    assert main(["pin", "--repo", str(committed.root)]) == 0
    committed.commit("the fence, pinned")
    committed.write("job_manifest.json.sha256", "0" * 64 + "  job_manifest.json\n")
    committed.write("allowed/a.py", "fixed\n")
    out = committed.score("--manifest-sha256", "0" * 64)
    assert out.exit_code == 2  # the pin given must match: nothing to judge
    committed.git("checkout", "-q", "--", "job_manifest.json.sha256")
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("job_manifest.json.sha256", "1" * 64 + "  job_manifest.json\n")
    committed.commit("the agent re-pins")
    ranged = committed.score("--base", "main")
    assert "manifest-changed" in ranged.codes and ranged.paths("manifest-changed") == {"job_manifest.json.sha256"}
