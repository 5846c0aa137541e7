"""Every check, table-driven on real repositories: the rows that must fire and the rows that must not."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from tests.testing.repo import PASSING_TEST, GitRepo, Outcome

SKIPPED = "RESULT: PASS (with test skipped)"


def numbered(n: int, word: str = "line") -> str:
    return "".join(f"{word} {i}\n" for i in range(1, n + 1))


def passed(out: Outcome, last: str = SKIPPED) -> bool:
    return out.exit_code == 0 and out.codes == set() and out.last_line == last


def check_row(out: Outcome, code: str, fires: bool) -> None:
    """A must-fire row fails with the code; a must-not-fire row passes outright."""
    if fires:
        assert out.exit_code == 1 and code in out.codes, out.text
        assert out.last_line == "RESULT: FAIL"
    else:
        assert passed(out), out.text


def change_file(
    repo: GitRepo,
    path: str,
    before: str | bytes | None,
    after: str | bytes | None,
    staged: bool = False,
    **manifest: object,
) -> None:
    """Commit `before` at `path` (None: no file), set the manifest, then leave `after` (None: deleted)."""
    repo.write("README.txt", "base\n")
    if before is not None:
        repo.write(path, before)
    repo.commit("base")
    repo.manifest(**manifest)
    if after is None:
        repo.remove(path)
    else:
        repo.write(path, after)
    if staged:
        repo.git("add", "-A")


# --- unlisted-path and forbidden-path ------------------------------------------------------------


@pytest.mark.parametrize(
    ("allowed", "forbidden", "path", "code"),
    [
        (["src/pricing.py"], [], "src/pricing.py", None),
        (["src/pricing.py"], [], "src/other.py", "unlisted-path"),
        (["src/pricing.py"], [], "lib/src/pricing.py", "unlisted-path"),
        (["setup.py"], [], "evil/setup.py", "unlisted-path"),
        (["src/"], [], "src/deep/x.py", None),
        (["src/*.py"], [], "src/deep/x.py", "unlisted-path"),
        (["src/**/*.py"], [], "src/deep/x.py", None),
        (["src/**"], ["src/legacy_pricing.py"], "src/legacy_pricing.py", "forbidden-path"),  # forbidden wins
        (["**"], ["**/.env"], "deep/er/.env", "forbidden-path"),
        (["**"], ["*.pem"], "certs/key.pem", None),  # root-only glob: does not reach certs/
        (["**"], ["**/*.pem"], "certs/key.pem", "forbidden-path"),
        (["src/pricing.py"], ["**/*.pem"], "key.pem", "forbidden-path"),  # reported as forbidden only
        (["docs/**"], ["docs/secret/"], "docs/secret/a/b.md", "forbidden-path"),
    ],
)
def test_path_checks(repo: GitRepo, allowed: list[str], forbidden: list[str], path: str, code: str | None) -> None:
    repo.write("README.txt", "base\n")
    repo.commit("base")
    repo.manifest(allowed_paths=allowed, forbidden_globs=forbidden)
    repo.write(path, "content\n")
    out = repo.score()
    if code is None:
        assert passed(out), out.text
    else:
        assert out.exit_code == 1 and out.last_line == "RESULT: FAIL"
        assert out.paths(code) == {path}
        other = {"unlisted-path", "forbidden-path"} - {code}
        assert not other & out.codes  # one path, one verdict: forbidden is not also unlisted


@pytest.mark.parametrize(
    ("how", "code"),
    [
        ("delete-allowed", None),
        ("delete-unlisted", "unlisted-path"),
        ("delete-forbidden", "forbidden-path"),
        ("rename-forbidden-away", "forbidden-path"),
        ("rename-into-forbidden", "forbidden-path"),
    ],
)
def test_path_checks_cover_deletions_and_both_rename_sides(repo: GitRepo, how: str, code: str | None) -> None:
    repo.write("src/a.py", numbered(5))
    repo.write("docs/b.md", numbered(5))
    repo.write("src/legacy.py", numbered(5, "legacy"))
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], forbidden_globs=["src/legacy.py"])
    target = {
        "delete-allowed": "src/a.py",
        "delete-unlisted": "docs/b.md",
        "delete-forbidden": "src/legacy.py",
        "rename-forbidden-away": "src/legacy.py",
        "rename-into-forbidden": "src/legacy.py",
    }[how]
    if how.startswith("delete"):
        repo.git("rm", "-q", target)
    elif how == "rename-forbidden-away":
        repo.git("mv", "src/legacy.py", "src/modern.py")
    else:
        repo.git("rm", "-q", "src/legacy.py")
        repo.commit("drop legacy")
        repo.git("mv", "src/a.py", "src/legacy.py")
    out = repo.score()
    if code is None:
        assert passed(out), out.text
    else:
        assert out.exit_code == 1
        assert out.paths(code) == {target}


# --- too-many-files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "limit", "fires"),
    [
        (2, 2, False),  # exactly max passes
        (3, 2, True),
        (1, 0, True),
        (5, 5, False),
        (6, 5, True),
    ],
)
def test_too_many_files(repo: GitRepo, changes: int, limit: int, fires: bool) -> None:
    repo.write("README.txt", "base\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], max_files_changed=limit)
    for i in range(changes):
        repo.write(f"src/f{i}.py", "x\n")
    check_row(repo.score(), "too-many-files", fires)


def test_a_rename_counts_once(repo: GitRepo) -> None:
    repo.write("src/a.py", numbered(5))
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], max_files_changed=1)
    repo.git("mv", "src/a.py", "src/b.py")
    assert passed(repo.score())


# --- hunk-too-large, diff-too-large, file-too-large ----------------------------------------------

TEN = numbered(10)
HUNK_CASES = [
    # (before, after, max_hunk_lines, hunk sizes, fires)
    (TEN, TEN.replace("line 4\nline 5\n", "LINE 4\nLINE 5\n"), 4, [4], False),  # exactly max
    (numbered(10), numbered(10).replace("line 4\nline 5\n", "LINE 4\nLINE 5\n"), 3, [4], True),
    (numbered(10), numbered(10).replace("line 3\n", "line 3\n" + numbered(5, "new")), 5, [5], False),
    (numbered(10), numbered(10).replace("line 3\n", "line 3\n" + numbered(6, "new")), 5, [6], True),
    # two nearby changes separated by one unchanged line are two hunks, never merged
    (TEN, TEN.replace("line 2\n", "LINE 2\n").replace("line 4\n", "LINE 4\n"), 2, [2, 2], False),
    (numbered(10), numbered(10).replace("line 2\n", "").replace("line 4\n", ""), 1, [1, 1], False),
    # a new file is one hunk of all its lines
    (None, numbered(7), 7, [7], False),
    (None, numbered(8), 7, [8], True),
    (None, "no newline at the end", 1, [1], False),
    # deleting a file is one hunk of all its lines too
    (numbered(7), None, 7, [7], False),
    (numbered(8), None, 7, [8], True),
]


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize(("before", "after", "limit", "sizes", "fires"), HUNK_CASES)
def test_hunk_too_large(
    repo: GitRepo, before: str | None, after: str | None, limit: int, sizes: list[int], fires: bool, staged: bool
) -> None:
    change_file(repo, "src/f.py", before, after, staged, allowed_paths=["src/**"], max_hunk_lines=limit)
    out = repo.score()
    assert out.changed["src/f.py"]["hunks"] == len(sizes)
    assert out.changed["src/f.py"]["largest_hunk"] == max(sizes)
    check_row(out, "hunk-too-large", fires)


def test_hunk_too_large_names_the_line(repo: GitRepo) -> None:
    repo.write("src/f.py", numbered(20))
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], max_hunk_lines=2)
    repo.write("src/f.py", numbered(20).replace("line 12\n", "line 12\n" + numbered(3, "new")))
    out = repo.score()
    assert out.where("hunk-too-large") == {("src/f.py", 13)}


@pytest.mark.parametrize(("limit", "fires"), [(9, False), (8, True), (0, True)])
def test_diff_too_large(repo: GitRepo, limit: int, fires: bool) -> None:
    repo.write("src/a.py", numbered(10))
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], max_changed_lines=limit)
    repo.write("src/a.py", numbered(10).replace("line 1\n", "LINE 1\n"))  # +1 -1
    repo.write("src/new.py", numbered(7))  # +7
    out = repo.score()
    assert sum(c["added"] + c["removed"] for c in out.report["changed"]) == 9
    check_row(out, "diff-too-large", fires)


@pytest.mark.parametrize("mode", ["worktree", "range"])
@pytest.mark.parametrize(
    ("content", "limit", "fires"),
    [
        (b"x" * 100, 100, False),  # exactly max passes
        (b"x" * 101, 100, True),
        (b"", 0, False),
        (None, 0, False),  # a deleted file has no new content
    ],
)
def test_file_too_large(repo: GitRepo, content: bytes | None, limit: int, fires: bool, mode: str) -> None:
    repo.write("src/big.txt", b"old\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], max_file_bytes=limit)
    if mode == "range":
        repo.git("checkout", "-q", "-b", "agent")
    if content is None:
        repo.remove("src/big.txt")
    else:
        repo.write("src/big.txt", content)
        repo.write("src/untracked.txt", content)
    if mode == "range":
        repo.commit("agent work")
        out = repo.score("--base", "main")
    else:
        out = repo.score()
    check_row(out, "file-too-large", fires)
    if fires:
        assert out.paths("file-too-large") == {"src/big.txt", "src/untracked.txt"}


# --- forbidden-token -----------------------------------------------------------------------------

TOKEN_CASES = [
    # (id, before, after, substrings, patterns, expected (line, ...) hits in src/f.py)
    ("new-file", None, "a\nx = eval(1)\n", ["eval("], [], [2]),
    ("added-line", "a\nb\n", "a\nx = eval(1)\nb\n", ["eval("], [], [2]),
    ("rewritten-line", "x = eval(1)\n", "y = eval(1)\n", ["eval("], [], [1]),  # the job wrote this line
    ("unchanged-line", "x = eval(1)\nb\n", "x = eval(1)\nB\n", ["eval("], [], []),
    ("removed-line", "a\nx = eval(1)\n", "a\n", ["eval("], [], []),
    ("deleted-file", "x = eval(1)\n", None, ["eval("], [], []),
    (
        "deep-in-file",
        numbered(30),
        numbered(30).replace("line 17\n", "line 17\nos.system('x')\n"),
        ["os.system"],
        [],
        [18],
    ),
    ("two-hunks", TEN, TEN.replace("line 2\n", "exec(2)\n").replace("line 9\n", "exec(9)\n"), ["exec("], [], [2, 9]),
    ("no-final-newline", "a\n", "a\nb = eval(1)", ["eval("], [], [2]),
    ("crlf", None, "a\r\nb\r\nx = eval(1)\r\n", ["eval("], [], [3]),
    ("unicode-before", None, "é日本\nñ\nx = pickle.loads(b)\n", ["pickle"], [], [3]),
    ("case-sensitive", None, "x = EVAL(1)\n", ["eval("], [], []),
    ("split-across-lines", None, "x = ev\nal(1)\n", ["eval("], [], []),
    ("two-on-one-line", None, "eval(exec(1))\n", ["eval(", "exec("], [], [1, 1]),
    ("longest-first", None, "subprocess\n", ["sub", "subprocess"], [], [1]),
    ("pattern-at-line-start", None, "a\nimport ctypes\n", [], [r"^\s*import\s+ctypes\b"], [2]),
    ("pattern-indented", None, "    import ctypes as c\n", [], [r"^\s*import\s+ctypes\b"], [1]),
    ("pattern-not-at-start", None, "x = 'import ctypes'\n", [], [r"^\s*import\s+ctypes\b"], []),
    ("pattern-word-boundary", None, "import ctypesx\n", [], [r"^\s*import\s+ctypes\b"], []),
    ("pattern-unchanged", "import ctypes\n", "import ctypes\nx = 1\n", [], [r"^\s*import\s+ctypes\b"], []),
    ("pattern-end-anchor", None, "password = hunter2\nok\n", [], [r"password = \S+$"], [1]),
]


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize(
    ("before", "after", "subs", "patterns", "lines"), [c[1:] for c in TOKEN_CASES], ids=[c[0] for c in TOKEN_CASES]
)
def test_forbidden_tokens(
    repo: GitRepo,
    before: str | None,
    after: str | None,
    subs: list[str],
    patterns: list[str],
    lines: list[int],
    staged: bool,
) -> None:
    change_file(
        repo,
        "src/f.py",
        before,
        after,
        staged,
        allowed_paths=["src/**"],
        forbidden_substrings=subs or ["never-present-token"],
        forbidden_patterns=patterns,
    )
    out = repo.score()
    hits = sorted(v["line"] for v in out.report["violations"] if v["code"] == "forbidden-token")
    assert hits == sorted(lines)
    assert out.paths("forbidden-token") <= {"src/f.py"}
    check_row(out, "forbidden-token", bool(lines))


def test_token_in_a_staged_rename_is_not_new(repo: GitRepo) -> None:
    repo.write("src/old.py", "x = eval(1)\n" + numbered(5))
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], forbidden_substrings=["eval("])
    repo.git("mv", "src/old.py", "src/new.py")
    assert passed(repo.score())


def test_token_in_range_mode(repo: GitRepo) -> None:
    repo.write("src/f.py", "x = eval(0)\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "agent")
    repo.write("src/f.py", "x = eval(0)\ny = 1\n")
    repo.commit("harmless")
    repo.write("src/f.py", "x = eval(0)\ny = 1\nz = eval(2)\n")
    repo.commit("sneaky")
    repo.write("src/f.py", "x = eval(0)\ny = 1\nz = 2\n")  # removed again, but only on disk
    repo.manifest(allowed_paths=["src/**"], forbidden_substrings=["eval("])
    out = repo.score("--base", "main")
    assert out.where("forbidden-token") == {("src/f.py", 3)}


# --- binary-file, symlink, submodule ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "allow", "fires"),
    [
        (None, b"\x00\x01", False, True),
        (None, b"\x00\x01", True, False),
        (b"text\n", b"bin\x00ary", False, True),
        (b"\x00old", b"\x00new", False, True),
        (b"\x00old", None, False, False),  # deleting a binary adds nothing
        (None, b"plain text\n", False, False),
        (None, b"\xff\xfe not utf-8 but no NUL\n", False, False),
    ],
)
def test_binary_file(repo: GitRepo, before: bytes | None, after: bytes | None, allow: bool, fires: bool) -> None:
    change_file(repo, "src/f.dat", before, after, allowed_paths=["src/**"], allow_binary=allow)
    check_row(repo.score(), "binary-file", fires)


@pytest.mark.parametrize(
    ("before", "after", "allow", "fires"),
    [
        (None, "f.py", False, True),
        (None, "f.py", True, False),
        (None, "/etc/passwd", True, True),
        (None, "../../etc/passwd", True, True),
        ("f.py", "g.py", False, True),  # retargeting is a change
        ("f.py", "/etc/shadow", True, True),
        ("f.py", None, False, False),  # deleting a symlink is fine
        ("/etc/passwd", None, False, False),
    ],
)
def test_symlink(repo: GitRepo, before: str | None, after: str | None, allow: bool, fires: bool) -> None:
    repo.write("src/f.py", "x\n")
    repo.write("src/g.py", "y\n")
    if before is not None:
        repo.symlink("src/link", before)
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], allow_symlinks=allow)
    if after is None:
        repo.remove("src/link")
    else:
        repo.symlink("src/link", after)
    out = repo.score()
    check_row(out, "symlink", fires)
    if fires:
        assert out.paths("symlink") == {"src/link"}


@pytest.mark.parametrize(
    ("action", "allow", "fires"),
    [("add", False, True), ("add", True, False), ("move", False, True), ("remove", False, False)],
)
def test_submodule(repo: GitRepo, action: str, allow: bool, fires: bool) -> None:
    repo.write("README.txt", "base\n")
    (repo.root / "src/sub").mkdir(parents=True)
    if action != "add":
        repo.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},src/sub")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/**"], allow_submodules=allow)
    if action == "add":
        repo.git("update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},src/sub")
    elif action == "move":
        repo.git("update-index", "--cacheinfo", f"160000,{'2' * 40},src/sub")
    else:
        repo.git("rm", "-q", "--cached", "src/sub")
    out = repo.score()
    check_row(out, "submodule", fires)


# --- manifest-changed --------------------------------------------------------------------------


def _fenced(repo: GitRepo) -> Path:
    """A repository whose manifest lives at the root, committed on main."""
    repo.write("allowed/a.py", "a\n")
    repo.write("other/b.py", "b\n")
    manifest = repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["allowed/**"])
    repo.commit("base with manifest")
    return manifest


def test_editing_a_committed_manifest_fails(repo: GitRepo) -> None:
    manifest = _fenced(repo)
    repo.write_manifest(manifest, allowed_paths=["allowed/**", "other/**"])  # widen the fence
    repo.write("other/b.py", "changed\n")
    out = repo.score(manifest=manifest)
    assert out.exit_code == 1 and "manifest-changed" in out.codes
    assert out.paths("manifest-changed") == {"job_manifest.json"}


def test_default_manifest_location_is_guarded_too(repo: GitRepo, monkeypatch) -> None:
    from tests.testing.repo import run_cli

    manifest = _fenced(repo)
    repo.write_manifest(manifest, allowed_paths=["**"])
    monkeypatch.chdir(repo.root)
    code, text = run_cli(["--skip-test", "--format", "json"])
    report = json.loads(text)
    assert code == 1
    assert "manifest-changed" in {v["code"] for v in report["violations"]}


def test_unchanged_committed_manifest_passes(repo: GitRepo) -> None:
    manifest = _fenced(repo)
    repo.write("allowed/a.py", "changed\n")
    assert passed(repo.score(manifest=manifest))


def test_manifest_outside_the_repository_is_never_manifest_changed(repo: GitRepo) -> None:
    _fenced(repo)
    repo.manifest(allowed_paths=["**"])
    repo.write("job_manifest.json", "{}")  # the in-repo file is just a file now
    out = repo.score()
    assert "manifest-changed" not in out.codes


def test_untracked_manifest_is_not_part_of_the_change(repo: GitRepo) -> None:
    repo.write("allowed/a.py", "a\n")
    repo.commit("base")
    manifest = repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["allowed/**"])
    out = repo.score(manifest=manifest)
    assert out.codes == {"empty-diff"}  # the manifest is not the job's change
    assert any("untracked" in w for w in out.report["warnings"])
    repo.write("allowed/a.py", "changed\n")
    out = repo.score(manifest=manifest)
    assert passed(out), out.text


def test_deleted_manifest_is_scored_by_the_one_at_head(repo: GitRepo) -> None:
    """Deleting the committed manifest is editing it: the fence at HEAD still judges the change."""
    manifest = _fenced(repo)
    repo.remove("job_manifest.json")
    repo.write("other/b.py", "changed\n")
    out = repo.score(manifest=manifest)
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL"
    assert {"manifest-changed", "unlisted-path"} <= out.codes
    assert out.paths("unlisted-path") == {"other/b.py", "job_manifest.json"}


def test_manifest_missing_everywhere_cannot_score(repo: GitRepo) -> None:
    repo.write("allowed/a.py", "a\n")
    repo.commit("base without a manifest")
    out = repo.score(manifest=repo.root / "job_manifest.json")
    assert out.exit_code == 2
    assert out.last_line == "RESULT: FAIL (could not score: manifest-invalid)"


@pytest.mark.parametrize("explicit", [False, True])
def test_base_mode_reads_the_manifest_from_the_base_commit(repo: GitRepo, monkeypatch, explicit: bool) -> None:
    """A branch that widens its own allowlist is still scored against the base's allowlist."""
    manifest = _fenced(repo)
    repo.git("checkout", "-q", "-b", "agent-x")
    repo.write_manifest(manifest, allowed_paths=["**"], max_files_changed=100)
    repo.write("other/b.py", "changed\n")
    repo.commit("widen the fence and use it")
    monkeypatch.chdir(repo.root)
    if explicit:
        out = repo.score("--base", "main", manifest=manifest)
    else:
        from tests.testing.repo import run_cli

        code, text = run_cli(["--base", "main", "--skip-test", "--format", "json"])
        out = Outcome(code, json.loads(text), "RESULT: FAIL" if code == 1 else "?")
    assert out.exit_code == 1
    assert {"manifest-changed", "unlisted-path"} <= out.codes
    assert out.paths("unlisted-path") == {"other/b.py", "job_manifest.json"}


def test_base_mode_needs_the_manifest_at_base(repo: GitRepo) -> None:
    repo.write("allowed/a.py", "a\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "agent-x")
    manifest = repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["**"])
    repo.commit("bring my own fence")
    out = repo.score("--base", "main", manifest=manifest)
    assert out.exit_code == 2
    assert out.last_line == "RESULT: FAIL (could not score: manifest-invalid)"


# --- empty-diff ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "fires"), [(False, True), (True, False)])
def test_empty_diff(committed: GitRepo, change: bool, fires: bool) -> None:
    if change:
        committed.write("allowed/a.py", "changed\n")
    check_row(committed.score(), "empty-diff", fires)


def test_empty_diff_in_range_mode(committed: GitRepo) -> None:
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("other/untracked.py", "not committed, not in the range\n")
    out = committed.score("--base", "main")
    assert out.exit_code == 1 and out.codes == {"empty-diff"}


# --- the required test -----------------------------------------------------------------------------


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


@pytest.fixture
def ready(committed: GitRepo) -> GitRepo:
    """A committed repo with one allowed change, so only the test decides."""
    committed.write("allowed/a.py", "fixed\n")
    return committed


def test_passing_test_passes(ready: GitRepo) -> None:
    ready.manifest(required_test=PASSING_TEST)
    out = ready.score(skip_test=False)
    assert passed(out, "RESULT: PASS")
    assert out.report["test"]["status"] == "passed"


def test_failing_test_shows_its_output_tail(ready: GitRepo) -> None:
    script = "import sys\nfor i in range(100): print(f'out {i}')\nprint('boom-marker'); sys.exit(3)"
    ready.manifest(required_test=py(script))
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-failed"}
    assert out.last_line == "RESULT: FAIL"
    tail = out.report["test"]["output_tail"]
    assert "boom-marker" in tail and "out 99" in tail
    assert "out 0\n" not in tail  # a tail, not the whole log
    assert out.report["test"]["exit_code"] == 3
    assert "boom-marker" in out.text


def test_test_timeout_kills_the_whole_process_group(ready: GitRepo) -> None:
    child = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(20)'])"
    script = child + "; print('started', flush=True); time.sleep(20)"
    ready.manifest(required_test=py(script), test_timeout_s=3)
    started = time.monotonic()
    out = ready.score(skip_test=False)
    assert time.monotonic() - started < 10  # a grandchild holding the pipe would keep us waiting
    assert out.exit_code == 1 and out.codes == {"test-timeout"}
    assert out.report["test"]["status"] == "timeout"
    assert "started" in out.report["test"]["output_tail"]
    assert out.last_line == "RESULT: FAIL"


def test_test_is_not_run_when_cheaper_checks_fail(committed: GitRepo) -> None:
    marker = committed.scratch / "ran"
    committed.manifest(required_test=py(f"open({str(marker)!r}, 'w').close()"))
    committed.write("other/b.py", "unlisted\n")
    out = committed.score(skip_test=False)
    assert out.codes == {"unlisted-path"}
    assert out.report["test"]["status"] == "not-run"
    assert "cheaper checks" in out.report["test"]["reason"]
    assert not marker.exists()


def test_skip_test_says_so(ready: GitRepo) -> None:
    marker = ready.scratch / "ran"
    ready.manifest(required_test=py(f"open({str(marker)!r}, 'w').close()"))
    out = ready.score(skip_test=True)
    assert passed(out, "RESULT: PASS (with test skipped)")
    assert out.report["test"]["status"] == "skipped"
    assert not marker.exists()


def test_test_that_cannot_start_fails(ready: GitRepo) -> None:
    ready.manifest(required_test=[str(ready.scratch / "no-such-program")])
    out = ready.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-failed"}


def test_test_runs_in_a_checkout_of_the_scored_tree_with_stdin_closed(ready: GitRepo, monkeypatch) -> None:
    """Outside the repository, at the root of a temporary checkout of what was scored."""
    (ready.root / "allowed/deeper").mkdir()
    monkeypatch.chdir(ready.root / "allowed/deeper")
    root = os.path.realpath(ready.root)
    script = (
        f"import os, sys\nassert not os.path.realpath(os.getcwd()).startswith({root!r}), os.getcwd()\n"
        "assert open('allowed/a.py').read() == 'fixed\\n'\nassert open('README.txt').read() == 'hello\\n'\n"
        "assert sys.stdin.read() == ''"
    )
    ready.manifest(required_test=py(script))
    out = ready.score(skip_test=False, repo_arg=".")
    assert passed(out, "RESULT: PASS"), out.report["test"]


@pytest.mark.parametrize(
    ("exported", "test_env", "visible"),
    [
        ({"SCORE_SNEAKY": "1"}, [], False),
        ({"SCORE_SNEAKY": "1"}, ["SCORE_SNEAKY"], True),
        ({"PYTHONPATH": "/tmp/evil", "LD_PRELOAD": "/tmp/evil.so"}, [], False),
        ({"GIT_DIR": "/tmp/elsewhere"}, [], False),
    ],
)
def test_required_test_environment(
    ready: GitRepo, monkeypatch, exported: dict[str, str], test_env: list[str], visible: bool
) -> None:
    """A variable the agent exported steers the test only when the manifest names it."""
    names = sorted(exported)
    script = f"import os, sys\nsys.exit(0 if all(n in os.environ for n in {names!r}) else 1)"
    ready.manifest(required_test=py(script), test_env=test_env)
    if "GIT_DIR" not in exported:
        for key, value in exported.items():
            monkeypatch.setenv(key, value)
        out = ready.score(skip_test=False)
    else:  # GIT_DIR set for the scorer too: point it at the repository itself so git still works
        monkeypatch.setenv("GIT_DIR", str(ready.root / ".git"))
        out = ready.score(skip_test=False)
    if visible:
        assert passed(out, "RESULT: PASS"), out.report["test"]
    else:
        assert out.codes == {"test-failed"}


def test_range_mode_runs_the_test_on_a_checkout_of_head(committed: GitRepo) -> None:
    """The checkout is of --head, wherever the working tree is."""
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "v1\n")
    first = committed.commit("v1")
    committed.write("allowed/a.py", "v2\n")
    committed.commit("v2")
    committed.manifest(required_test=py("import sys; sys.exit(open('allowed/a.py').read() != 'v1\\n')"))
    out = committed.score("--base", "main", skip_test=False)
    assert out.codes == {"test-failed"}, out.text  # HEAD holds v2
    out = committed.score("--base", "main", "--head", first, skip_test=False)
    assert passed(out, "RESULT: PASS"), out.text


# --- could not score -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--base", "nonexistent-ref"],
        ["--base", "main", "--head", "nope"],
        ["--base=--output=x"],
        ["--base=-p"],
        ["--base", "main", "--head=--all"],
        ["--base", "HEAD~99"],
        ["--base", "main:README.txt"],
    ],
)
def test_git_error(committed: GitRepo, args: list[str]) -> None:
    """Refs that do not name a commit, including ones shaped like git options."""
    out = committed.score(*args)
    assert (out.exit_code, out.codes) == (2, {"git-error"})
    assert out.last_line == "RESULT: FAIL (could not score: git-error)"
    assert not (committed.root / "x").exists()


def test_unknown_base_is_git_error(committed: GitRepo) -> None:
    out = committed.score("--base", "nonexistent-ref")
    assert (out.exit_code, out.codes) == (2, {"git-error"})
    assert out.last_line == "RESULT: FAIL (could not score: git-error)"


def test_unrelated_histories_are_git_error(committed: GitRepo) -> None:
    committed.git("checkout", "-q", "--orphan", "island")
    committed.write("allowed/a.py", "other history\n")
    committed.commit("island")
    out = committed.score("--base", "main")
    assert (out.exit_code, out.codes) == (2, {"git-error"})


def test_not_a_git_repository(tmp_path: Path, committed: GitRepo) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    out = committed.score(repo_arg=str(plain))
    assert (out.exit_code, out.codes) == (2, {"git-error"})
    assert out.last_line == "RESULT: FAIL (could not score: git-error)"


@pytest.mark.parametrize("name", ["GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR"])
def test_environment_pointing_git_elsewhere_is_refused(committed: GitRepo, monkeypatch, name: str) -> None:
    committed.write("allowed/a.py", "changed\n")
    monkeypatch.setenv(name, str(committed.scratch))
    out = committed.score()
    assert (out.exit_code, out.codes) == (2, {"git-error"})


def test_bare_repository_cannot_be_scored(tmp_path: Path, committed: GitRepo) -> None:
    bare = tmp_path / "bare.git"
    committed.git("clone", "-q", "--bare", str(committed.root), str(bare))
    out = committed.score(repo_arg=str(bare))
    assert (out.exit_code, out.codes) == (2, {"git-error"})


def test_a_symlink_whose_target_is_unknown_fails_even_when_symlinks_are_allowed(committed: GitRepo) -> None:
    from scorer.checks.job import Job
    from scorer.checks.paths import check_kinds
    from scorer.manifest.load import parse_manifest
    from scorer.model import ChangedPath, Inspection

    manifest = parse_manifest(
        b'{"job_id": "j", "allowed_paths": ["**"], "required_test": ["t"], "allow_symlinks": true}', "m"
    )
    link = ChangedPath("allowed/l", "added", symlink=True, new_mode="120000", symlink_target=None)
    ins = Inspection(mode="worktree", repo_root=str(committed.root), head=None, changed=(link,))
    assert [v.code for v in check_kinds(ins, Job(manifest))] == ["symlink"]
    known = ins._replace(changed=(link._replace(symlink_target="a.py"),))
    assert check_kinds(known, Job(manifest)) == []
