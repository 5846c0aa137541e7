"""The git processes one worktree scoring starts (issue 29): each question asked once.

Every git process goes through `GitProcess.start` or the discovery (`gitprocess._discover`), so
wrapping both counts them all; the verdicts are the ones the other tests hold.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from scorer.inspection import gitprocess
from tests.testing.repo import GitRepo

HEAD_COMMIT = ("rev-parse", "--verify", "-q", "HEAD^{commit}")


def git_questions(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, ...]]:
    """The argv (past the pinned options) of every git process started from now on, counted."""
    asked: Counter[tuple[str, ...]] = Counter()
    start, discover = gitprocess.GitProcess.start, gitprocess._discover

    def counting_start(self: gitprocess.GitProcess, *args: str, **options: Any) -> Any:
        asked[args] += 1
        return start(self, *args, **options)

    def counting_discover(where: str, environ: Any, head: Any = None) -> Any:
        asked[("discover",)] += 1
        if head is not None:  # the same rev-parse resolves HEAD too: a read of HEAD like any other
            asked[HEAD_COMMIT] += 1
        return discover(where, environ, head)

    monkeypatch.setattr(gitprocess.GitProcess, "start", counting_start)
    monkeypatch.setattr(gitprocess, "_discover", counting_discover)
    return asked


def test_a_worktree_scoring_reads_head_once(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The diff, the manifest's place at HEAD and the report name one commit, read once: a second
    read only asked whether HEAD moved between two reads that nothing else separates."""
    base.write("allowed/t.py", "one\ntwo\n")
    asked = git_questions(monkeypatch)
    out = base.score("--no-log")
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (with test skipped)", out.text
    assert asked[HEAD_COMMIT] == 1
    assert out.report["binding"]["head"] == base.git("rev-parse", "HEAD").stdout.strip()


def test_a_scoring_and_its_log_row_discover_the_repository_once(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision log's place is asked of the repository the scoring opened, and HEAD is read by
    that discovery: one rev-parse for the git dir, the work tree and HEAD."""
    base.write("allowed/t.py", "one\ntwo\n")
    asked = git_questions(monkeypatch)
    out = base.score()
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (with test skipped)", out.text
    assert asked[("discover",)] == 1 and asked[HEAD_COMMIT] == 1
    assert out.report["binding"]["head"] == base.git("rev-parse", "HEAD").stdout.strip()
    assert (base.root / ".git" / "score-diff").is_dir()  # the log went where it always did


def test_an_unborn_branch_reads_head_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """No commit yet: HEAD is None once, and the change is scored against the empty tree."""
    repo.write("allowed/t.py", "one\n")
    manifest = repo.manifest(allowed_paths=["allowed/**"])
    asked = git_questions(monkeypatch)
    out = repo.score("--no-log", manifest=manifest)
    assert asked[HEAD_COMMIT] == 1
    assert out.report["binding"]["head"] is None and "allowed/t.py" in out.text


# -- the new sources read while git's diff still streams ------------------------------

SPECIAL_CASE = "def area(w, h):\n    if w == 3 and h == 4:\n        return 12\n    return w * h\n"
DEEP = "x = " + " + ".join(["1"] * 2500) + "\n"


def cheat_change(repo: GitRepo) -> Path:
    """A worktree change of Python files the checks read: a special-cased answer, a test, a file
    that is not Python, one nested deep, a symlink, an untracked module and many plain ones."""
    repo.write("allowed/area.py", "def area(w, h):\n    return w * h\n")
    repo.write("allowed/test_area.py", "from area import area\n\n\ndef test_area():\n    assert area(3, 4) == 12\n")
    for i in range(30):
        repo.write(f"allowed/pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    repo.commit("base")
    repo.write("allowed/area.py", SPECIAL_CASE)
    repo.write("allowed/test_area.py", "def test_area():\n    assert True\n")
    repo.write("allowed/broken.py", "def (:\n")
    repo.write("allowed/deep.py", DEEP)
    repo.symlink("allowed/link.py", "area.py")
    repo.write("allowed/new.py", 'import sys\n\n\ndef main():\n    return "pytest" in sys.modules\n')
    for i in range(30):
        eq = f"\n\nclass K{i}:\n    def __eq__(self, other):\n        return True\n" if i % 3 == 0 else ""
        repo.write(
            f"allowed/pkg/m{i}.py", f"def f{i}(x):\n    if x == {i}:\n        return {i * 2}\n    return x\n{eq}"
        )
    return repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["eval("])


def comparable(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in ("duration_s", "started_at")}


def test_reading_the_sources_as_the_diff_streams_changes_no_verdict(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Side by side with the checks reading and parsing for themselves: the same report, violations
    in the same order."""
    from scorer import pipeline

    manifest = cheat_change(repo)
    streamed = repo.score("--no-log", manifest=manifest)
    with monkeypatch.context() as patched:
        patched.setattr(pipeline, "_warm", lambda *args: None)
        alone = repo.score("--no-log", manifest=manifest)
    assert streamed.exit_code == alone.exit_code == 1, streamed.text
    assert comparable(streamed.report) == comparable(alone.report)
    assert streamed.text.splitlines()[:-3] == alone.text.splitlines()[:-3]
    assert streamed.paths("constant-equality") == {f"allowed/pkg/m{i}.py" for i in range(0, 30, 3)}
    assert streamed.paths("test-runner-detected") == {"allowed/new.py"}


def test_the_new_sources_are_read_before_the_inspection_ends(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Their reads overlap git's diff instead of following it."""
    from scorer import pipeline
    from scorer.inspection.git import Repository

    manifest = cheat_change(repo)
    events: list[str] = []
    read_files, inspect = Repository.read_files, pipeline.inspect

    def reading(self: Repository, rev: str | None, paths: Any) -> Any:
        events.extend(f"read {p}" for p in paths if rev is None)
        return read_files(self, rev, paths)

    def inspecting(*args: Any) -> Any:
        try:
            return inspect(*args)
        finally:
            events.append("inspected")

    monkeypatch.setattr(Repository, "read_files", reading)
    monkeypatch.setattr(pipeline, "inspect", inspecting)
    out = repo.score("--no-log", manifest=manifest)
    assert out.exit_code == 1
    before = events[: events.index("inspected")]
    assert {"read allowed/area.py", "read allowed/pkg/m7.py", "read allowed/new.py"} <= set(before)
    assert "read allowed/area.py" not in events[events.index("inspected") :]  # read once


# -- the working tree's git calls started before the manifest is located ----------------


def started_calls(monkeypatch: pytest.MonkeyPatch, events: list[str]) -> list[Any]:
    """Every git process started from now on; each start and each manifest lookup logged to `events`."""
    from scorer import pipeline

    procs: list[Any] = []
    start, manifest_for = gitprocess.GitProcess.start, pipeline._manifest_for

    def logging_start(self: gitprocess.GitProcess, *args: str, **options: Any) -> Any:
        events.append(args[0])
        procs.append(start(self, *args, **options))
        return procs[-1]

    def logging_manifest_for(*args: Any) -> Any:
        events.append("manifest")
        return manifest_for(*args)

    monkeypatch.setattr(gitprocess.GitProcess, "start", logging_start)
    monkeypatch.setattr(pipeline, "_manifest_for", logging_manifest_for)
    return procs


@pytest.mark.parametrize("since", [False, True])
def test_the_worktree_calls_start_before_the_manifest_is_located(
    base: GitRepo, monkeypatch: pytest.MonkeyPatch, since: bool
) -> None:
    """git's longest answer runs while Python imports the manifest's readers and the checks; the
    report is the one the diff started after the manifest gives."""
    base.write("allowed/t.py", "one\ntwo\neval(1)\n")
    args = ("--no-log", "--since", "main") if since else ("--no-log",)
    alone = base.score(*args)
    events: list[str] = []
    started_calls(monkeypatch, events)
    early = base.score(*args)
    manifest = events.index("manifest")
    assert {"diff", "status", "ls-files", "config"} <= set(events[:manifest]), events
    assert events.index("diff") < events.index("status")  # git's longest answer first
    assert events.count("diff") == events.count("status") == 1 and events.count("ls-files") == 2
    assert early.exit_code == alone.exit_code == 1 and early.last_line == alone.last_line, early.text
    assert comparable(early.report) == comparable(alone.report)


def test_a_manifest_that_fails_after_the_diff_started_leaves_no_git_running(
    base: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    base.write("allowed/t.py", "one\ntwo\n")
    base.manifest_path.write_text("{not json", encoding="utf-8")
    events: list[str] = []
    procs = started_calls(monkeypatch, events)
    out = base.score("--no-log")
    assert out.exit_code == 2, out.text
    assert "diff" in events and all(p.returncode is not None for p in procs)


def test_a_since_scoring_reads_head_once(base: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """--since (the pre-commit stage's shape): the merge-base and the diff are taken from one read
    of HEAD, the one discovery made."""
    base.git("checkout", "-q", "-b", "agent-1")
    base.write("allowed/t.py", "one\ntwo\n")
    base.commit("on the branch")
    base.write("allowed/u.py", "new\n")
    asked = git_questions(monkeypatch)
    out = base.score("--no-log", "--since", "main")
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (with test skipped)", out.text
    assert asked[HEAD_COMMIT] == 1 and asked[("discover",)] == 1
    assert out.report["binding"]["head"] == base.git("rev-parse", "HEAD").stdout.strip()
    assert out.report["binding"]["base"] == base.git("rev-parse", "main").stdout.strip()
    assert {c["path"] for c in out.report["changed"]} == {"allowed/t.py", "allowed/u.py"}
