"""The git inspector's principles, each on a real repository: it sees every change, reads
paths only from NUL-separated output, and cannot be bent by config, attributes, ignore
rules or index flags that do not show in the reviewed diff.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from scorer.checks.job import Job
from scorer.checks.paths import check_paths
from scorer.inspection import gitparse
from scorer.manifest.load import parse_manifest
from scorer.model import Inspection
from tests.testing.repo import GitRepo, Outcome

SKIPPED = "RESULT: PASS (with test skipped)"
TOKEN = "eval("


def passed(out: Outcome) -> bool:
    return out.exit_code == 0 and out.codes == set() and out.last_line == SKIPPED


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == "RESULT: FAIL"


# --- every kind of worktree change is seen ----------------------------------------------------


def _change(repo: GitRepo, how: str, d: str) -> tuple[str, str | None]:
    """Make one kind of change under directory d; return (changed path, expected status)."""
    t, new = f"{d}/t.py", f"{d}/new.py"
    if how == "unstaged-edit":
        repo.write(t, "one\nTWO\nthree\n")
    elif how == "staged-edit":
        repo.write(t, "one\nTWO\nthree\n")
        repo.git("add", t)
    elif how == "staged-then-edited":
        repo.write(t, "one\nTWO\nthree\n")
        repo.git("add", t)
        repo.write(t, "one\nTWO\nTHREE\n")
    elif how == "untracked":
        repo.write(new, "fresh\n")
        return new, "added"
    elif how == "staged-new":
        repo.write(new, "fresh\n")
        repo.git("add", new)
        return new, "added"
    elif how == "intent-to-add":
        repo.write(new, "fresh\n")
        repo.git("add", "-N", new)
        return new, "added"
    elif how == "deleted-on-disk":
        repo.remove(t)
        return t, "deleted"
    elif how == "git-rm":
        repo.git("rm", "-q", t)
        return t, "deleted"
    elif how == "rm-cached":  # deleted from the index, still on disk: deleted AND untracked
        repo.git("rm", "-q", "--cached", t)
        return t, None
    elif how == "chmod":
        (repo.root / t).chmod(0o755)
        return t, "mode-change"
    elif how == "staged-chmod":
        (repo.root / t).chmod(0o755)
        repo.git("add", t)
        return t, "mode-change"
    elif how == "typechange":
        repo.symlink(t, "elsewhere.py")
        return t, "typechange"
    else:
        raise AssertionError(how)
    return t, "modified"


HOWS = [
    "unstaged-edit",
    "staged-edit",
    "staged-then-edited",
    "untracked",
    "staged-new",
    "intent-to-add",
    "deleted-on-disk",
    "git-rm",
    "rm-cached",
    "chmod",
    "staged-chmod",
    "typechange",
]


@pytest.mark.parametrize("how", HOWS)
def test_change_outside_allowlist_is_seen(base: GitRepo, how: str) -> None:
    path, status = _change(base, how, "other")
    out = base.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {path}
    if status is not None:
        assert out.changed[path]["status"] == status
    else:
        assert sorted(c["status"] for c in out.report["changed"] if c["path"] == path) == ["added", "deleted"]


# typechange makes a symlink; staged-then-edited is partially staged (test_index_that_differs_from_worktree)
@pytest.mark.parametrize("how", [h for h in HOWS if h not in ("typechange", "staged-then-edited")])
def test_same_change_inside_allowlist_passes(base: GitRepo, how: str) -> None:
    path, status = _change(base, how, "allowed")
    out = base.score()
    assert passed(out), out.text
    if status is not None:
        assert out.changed[path]["status"] == status


# --- what git commit would record must be what was scored -------------------------------------


def test_staged_change_then_worktree_reverted_is_caught(base: GitRepo) -> None:
    """Stage eval(, then put HEAD's content back on disk: `git commit` would still record eval(."""
    base.write("allowed/t.py", "one\nx = eval(1)\nthree\n")
    base.git("add", "allowed/t.py")
    base.write("allowed/t.py", "one\ntwo\nthree\n")
    base.write("allowed/other.py", "an innocent change\n")  # so the diff is not simply empty
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"allowed/t.py"}


@pytest.mark.parametrize(
    ("setup", "fires"),
    [
        ("stage-new-then-delete", True),  # the commit would add a file nobody scored
        ("stage-then-edit-again", True),  # partially staged: the index version was not scored
        ("index-only-chmod", True),  # update-index --chmod: the index differs, the disk does not
        ("stage-only", False),
        ("stage-then-same-on-disk", False),
        ("intent-to-add", False),
    ],
)
def test_index_that_differs_from_worktree(base: GitRepo, setup: str, fires: bool) -> None:
    path = "allowed/t.py"
    if setup == "stage-new-then-delete":
        path = "allowed/new.py"
        base.write(path, "x = eval(1)\n")
        base.git("add", path)
        base.remove(path)
        base.write("allowed/t.py", "one\n2\nthree\n")
    elif setup == "stage-then-edit-again":
        base.write(path, "one\nx = eval(1)\nthree\n")
        base.git("add", path)
        base.write(path, "one\nfine\nthree\n")
    elif setup == "index-only-chmod":
        base.git("update-index", "--chmod=+x", path)
        base.write("allowed/x.py", "x\n")
    elif setup == "stage-only":
        base.write(path, "one\n2\nthree\n")
        base.git("add", path)
    elif setup == "stage-then-same-on-disk":
        base.write(path, "one\n2\nthree\n")
        base.git("add", path)
        base.write(path, "one\n2\nthree\n")
    elif setup == "intent-to-add":
        path = "allowed/new.py"
        base.write(path, "new\n")
        base.git("add", "-N", path)
    out = base.score()
    if fires:
        assert failed_with(out, "hidden-change")
        assert out.paths("hidden-change") == {path}
    else:
        assert passed(out), out.text


# --- renames, copies, deletions: every side is path-checked -----------------------------------


@pytest.mark.parametrize(
    ("old", "new", "unlisted"),
    [
        ("other/t.py", "allowed/moved.py", {"other/t.py"}),  # moving out of a fenced path
        ("allowed/t.py", "other/moved.py", {"other/moved.py"}),
        ("allowed/t.py", "allowed/moved.py", set()),
    ],
)
def test_rename_checks_both_sides(base: GitRepo, old: str, new: str, unlisted: set[str]) -> None:
    base.git("mv", old, new)
    out = base.score()
    assert out.changed[new]["status"] == "renamed"
    assert out.changed[new]["old_path"] == old
    assert len(out.report["changed"]) == 1
    if unlisted:
        assert failed_with(out, "unlisted-path")
        assert out.paths("unlisted-path") == unlisted
    else:
        assert passed(out)


def test_rename_of_a_forbidden_file_is_forbidden(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], forbidden_globs=["allowed/t.py"])
    base.git("mv", "allowed/t.py", "allowed/innocent.py")
    out = base.score()
    assert failed_with(out, "forbidden-path")
    assert out.paths("forbidden-path") == {"allowed/t.py"}
    assert "unlisted-path" not in out.codes


def test_inexact_rename_is_still_a_rename(base: GitRepo) -> None:
    base.write("allowed/long.py", "".join(f"line {i}\n" for i in range(20)))
    base.commit("long")
    base.git("mv", "allowed/long.py", "other/long.py")
    base.write("other/long.py", "".join(f"line {i}\n" for i in range(19)) + "x = eval(1)\n")
    out = base.score()
    assert out.changed["other/long.py"]["status"] == "renamed"
    assert out.where("forbidden-token") == {("other/long.py", 20)}
    assert out.paths("unlisted-path") == {"other/long.py"}


def test_copy_records_check_both_sides(base: GitRepo) -> None:
    """score-diff asks git for renames only, but a copy record (as `git diff -C` makes) checks both sides."""
    base.write("other/unique.py", "".join(f"unique {i}\n" for i in range(10)))
    base.commit("unique")
    (base.root / "allowed/copy.py").write_bytes((base.root / "other/unique.py").read_bytes())
    base.write("other/unique.py", "".join(f"unique {i}\n" for i in range(11)))
    base.git("add", "-A")
    raw = base.git("diff", "--cached", "-C", "-C", "--raw", "--numstat", "-p", "-U0", "-z").stdout
    diff = gitparse.parse_diff(raw.encode())
    changes = gitparse.to_changes(diff, gitparse.Pieces())
    copy = next(c for c in changes if c.status == "copied")
    assert (copy.old_path, copy.path) == ("other/unique.py", "allowed/copy.py")
    manifest = parse_manifest(b'{"job_id": "j", "allowed_paths": ["allowed/**"], "required_test": ["t"]}', "m")
    ins = Inspection(mode="worktree", repo_root=str(base.root), head=None, changed=(copy,))
    assert [(v.code, v.path) for v in check_paths(ins, Job(manifest))] == [("unlisted-path", "other/unique.py")]


def test_copy_under_diff_renames_copies_config_is_an_added_file(base: GitRepo) -> None:
    base.git("config", "diff.renames", "copies")
    (base.root / "allowed/copy.py").write_bytes((base.root / "other/t.py").read_bytes())
    base.git("add", "-A")
    out = base.score()
    assert out.changed["allowed/copy.py"]["status"] == "added"
    assert passed(out)


# --- kinds of file: symlinks, submodules, binaries -------------------------------------------


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize(
    ("target", "allow", "fires"),
    [
        ("t.py", False, True),
        ("t.py", True, False),
        ("../other/t.py", True, False),  # inside the repository
        ("/etc/passwd", True, True),  # outside fires even when symlinks are allowed
        ("../../../../../../etc/passwd", True, True),
        ("..", True, False),  # allowed/.. is the repository root
        ("../..", True, True),
        ("../../repo/allowed/t.py", True, True),  # back in through the parent: still leaves first
    ],
)
def test_symlinks(base: GitRepo, target: str, allow: bool, fires: bool, staged: bool) -> None:
    base.manifest(allowed_paths=["allowed/**"], allow_symlinks=allow)
    base.symlink("allowed/link", target)
    if staged:
        base.git("add", "allowed/link")
    out = base.score()
    assert out.changed["allowed/link"]["symlink"] is True
    if fires:
        assert failed_with(out, "symlink")
        assert out.paths("symlink") == {"allowed/link"}
    else:
        assert passed(out), out.text


@pytest.mark.parametrize("staged", [False, True])
def test_symlink_target_outside_is_never_read(base: GitRepo, staged: bool) -> None:
    outside = base.scratch / "outside.txt"
    outside.write_text("x = eval(1)\nTOP-SECRET-CONTENT\n", encoding="utf-8")
    base.manifest(
        allowed_paths=["allowed/**"],
        forbidden_substrings=[TOKEN, "TOP-SECRET"],
        allow_symlinks=True,
        max_file_bytes=len(str(outside)) + 1,
    )
    base.symlink("allowed/leak.txt", str(outside))
    (base.scratch / "outdir").mkdir()
    (base.scratch / "outdir" / "inner.py").write_text("eval(2)\n", encoding="utf-8")
    base.symlink("allowed/leakdir", str(base.scratch / "outdir"))
    if staged:
        base.git("add", "-A")
    out = base.score()
    assert out.codes == {"symlink"}  # outside the repository: never forbidden-token, never file-too-large
    assert out.paths("symlink") == {"allowed/leak.txt", "allowed/leakdir"}
    assert "TOP-SECRET-CONTENT" not in out.text
    assert "eval(2)" not in out.text
    assert set(out.changed) == {"allowed/leak.txt", "allowed/leakdir"}


def test_tracked_file_replaced_by_symlink_outside(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=["root:"], allow_symlinks=True)
    base.symlink("allowed/t.py", "/etc/passwd")
    out = base.score()
    assert out.changed["allowed/t.py"]["status"] == "typechange"
    assert out.codes == {"symlink"}


def test_symlink_replaced_by_file_is_not_a_symlink_violation(base: GitRepo) -> None:
    base.symlink("allowed/link", "t.py")
    base.commit("link")
    base.remove("allowed/link")
    base.write("allowed/link", "now a file\n")
    out = base.score()
    assert out.changed["allowed/link"]["status"] == "typechange"
    assert passed(out), out.text


def _make_subrepo(repo: GitRepo) -> Path:
    sub = repo.scratch / "subrepo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(sub)], check=True)
    (sub / "f.txt").write_text("sub\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(sub), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(sub), "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "s"], check=True)
    return sub


@pytest.mark.parametrize("allow", [False, True])
def test_gitlink_in_the_index(base: GitRepo, allow: bool) -> None:
    base.manifest(allowed_paths=["allowed/**"], allow_submodules=allow)
    (base.root / "allowed/sub").mkdir()  # an unpopulated submodule is an empty directory
    base.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},allowed/sub")
    out = base.score()
    assert out.changed["allowed/sub"]["submodule"] is True
    if allow:
        assert passed(out), out.text
    else:
        assert failed_with(out, "submodule")
        assert out.paths("submodule") == {"allowed/sub"}


def test_gitlink_staged_without_its_directory_is_not_missed(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], allow_submodules=True)
    base.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},allowed/sub")
    base.write("allowed/t.py", "change\n")
    out = base.score()
    assert failed_with(out, "hidden-change")  # git commit would add the gitlink
    assert out.paths("hidden-change") == {"allowed/sub"}


def test_real_submodule_add_and_move(base: GitRepo) -> None:
    sub = _make_subrepo(base)
    base.manifest(allowed_paths=["allowed/**", ".gitmodules"])
    base.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "allowed/sub")
    out = base.score()
    assert failed_with(out, "submodule")
    assert out.paths("submodule") == {"allowed/sub"}
    base.commit("add submodule")
    # a new commit inside the submodule moves the pointer without touching the superproject's files
    (base.root / "allowed/sub/f.txt").write_text("moved\n", encoding="utf-8")
    base.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-am", "move", cwd=base.root / "allowed/sub")
    out = base.score()
    assert failed_with(out, "submodule")
    assert out.changed["allowed/sub"]["status"] == "modified"


def test_untracked_nested_repository_is_a_submodule(base: GitRepo) -> None:
    nested = base.root / "allowed/nested"
    subprocess.run(["git", "init", "-q", "-b", "main", str(nested)], check=True)
    (nested / "evil.py").write_text("eval(1)\n", encoding="utf-8")
    out = base.score()
    assert failed_with(out, "submodule")
    assert out.paths("submodule") == {"allowed/nested"}


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize("allow", [False, True])
def test_binary_files(base: GitRepo, staged: bool, allow: bool) -> None:
    base.manifest(allowed_paths=["allowed/**"], allow_binary=allow)
    base.write("allowed/blob.bin", b"\x00\x01\x02eval(\xff" * 50)
    if staged:
        base.git("add", "allowed/blob.bin")
    out = base.score()
    assert out.changed["allowed/blob.bin"]["binary"] is True
    if allow:
        assert passed(out), out.text
    else:
        assert failed_with(out, "binary-file")
        assert out.paths("binary-file") == {"allowed/blob.bin"}


# --- names are matched exactly ------------------------------------------------------------------

NAMES = [
    "allowed/with space.py",
    'allowed/quo"te.py',
    "allowed/it's.py",
    "allowed/café/ñ.py",
    "allowed/日本/語.py",
    "allowed/new\nline.py",
    "allowed/tab\there.py",
    "allowed/back\\slash.py",
    "allowed/-n.py",
    "allowed/--output=x.py",
    "allowed/*.py",
    "allowed/:(glob)x.py",
    "allowed/ leading.py",
    "allowed/trailing.py ",
    'allowed/"starts-with-quote.py',
    "allowed/\x1b[31mred.py",
    "allowed/\u202eyp.exe",  # right-to-left override
]


@pytest.mark.parametrize("name", NAMES, ids=[repr(n) for n in NAMES])
def test_names_are_matched_exactly(base: GitRepo, name: str) -> None:
    base.write(name, "ok\nx = eval(1)\n")  # untracked
    out = base.score()
    assert set(out.changed) == {name}
    assert out.where("forbidden-token") == {(name, 2)}
    base.commit("add it")
    base.write(name, "ok\nfine\nexec(2)\n")  # tracked and modified
    base.manifest(allowed_paths=["allowed/t.py"], forbidden_substrings=["exec("])
    out = base.score()
    assert set(out.changed) == {name}
    assert out.where("forbidden-token") == {(name, 3)}
    assert out.paths("unlisted-path") == {name}
    base.commit("modify it")
    base.git("mv", "--", name, "allowed/plain.py")  # renamed: both names exact
    out = base.score()
    assert out.changed["allowed/plain.py"]["old_path"] == name
    assert out.paths("unlisted-path") == {name, "allowed/plain.py"}


def test_newline_in_a_name_cannot_smuggle_a_second_path(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], forbidden_globs=["other/**"])
    sneaky = "allowed/x\nother/t.py"  # line-based parsing would see an allowed and a forbidden path
    base.write(sneaky, "fine\n")
    base.git("add", "-A")
    out = base.score()
    assert set(out.changed) == {sneaky}
    assert passed(out), out.text


def test_forbidden_glob_matches_a_name_with_a_newline(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], forbidden_globs=["**/*.pem", "allowed/new?line.py"])
    base.write("allowed/new\nline.py", "x\n")
    base.write("allowed/a\nb/key.pem", "k\n")
    out = base.score()
    assert out.paths("forbidden-path") == {"allowed/new\nline.py", "allowed/a\nb/key.pem"}


# --- repository states ------------------------------------------------------------------------


def test_repository_with_no_commits(repo: GitRepo) -> None:
    repo.manifest(allowed_paths=["allowed/**"])
    out = repo.score()
    assert failed_with(out, "empty-diff")
    assert out.report["binding"]["head"] is None
    repo.write("allowed/staged.py", "a\n")
    repo.git("add", "allowed/staged.py")
    repo.write("allowed/untracked.py", "b\n")
    out = repo.score()
    assert passed(out), out.text
    assert {p: c["status"] for p, c in out.changed.items()} == {
        "allowed/staged.py": "added",
        "allowed/untracked.py": "added",
    }
    repo.write("other/x.py", "c\n")
    repo.git("add", "other/x.py")
    out = repo.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"other/x.py"}


def test_detached_head_is_scored(base: GitRepo) -> None:
    base.git("checkout", "-q", "--detach")
    base.write("other/t.py", "changed\n")
    out = base.score()
    assert failed_with(out, "unlisted-path")
    assert out.report["binding"]["branch"] is None


def _conflict(repo: GitRepo, path: str) -> None:
    repo.git("checkout", "-q", "-b", "side")
    repo.write(path, "side\n")
    repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write(path, "main\n")
    repo.commit("main")
    proc = repo.git("merge", "-q", "--no-edit", "side", check=False)
    assert proc.returncode == 1 and "CONFLICT" in proc.stdout + proc.stderr


@pytest.mark.parametrize("path", ["allowed/t.py", "allowed/we ird\nname.py"])
def test_unmerged_paths(base: GitRepo, path: str) -> None:
    _conflict(base, path)
    out = base.score()
    assert failed_with(out, "unmerged")
    assert out.paths("unmerged") == {path}
    assert "hidden-change" not in out.codes  # an unmerged path is reported once, as unmerged


def test_range_mode_ignores_replace_refs(base: GitRepo) -> None:
    """`git replace` can make a commit look like another; the scorer reads the real objects."""
    base.git("checkout", "-q", "-b", "agent")
    base.write("other/t.py", "x = eval(1)\n")
    bad = base.commit("bad")
    base.git("checkout", "-q", "-b", "decoy", "main")
    base.write("allowed/t.py", "fine\n")
    decoy = base.commit("decoy")
    base.git("checkout", "-q", "agent")
    base.git("replace", bad, decoy)
    assert "fine" in base.git("show", "HEAD:allowed/t.py").stdout  # git itself is fooled
    out = base.score("--base", "main")
    assert failed_with(out, "unlisted-path", "forbidden-token")
    assert set(out.changed) == {"other/t.py"}


# --- configuration, environment and attributes must not bend the result ------------------------


@pytest.fixture
def scenario(repo: GitRepo) -> GitRepo:
    """A change with two nearby edits, two inexact renames, an unlisted edit with eval(,
    a mode change, and two untracked files; the expected report is EXPECTED below."""
    repo.write("allowed/a.py", "l1\nl2\nl3\nl4\nl5\nl6\n")
    repo.write("allowed/old.py", "".join(f"old {i}\n" for i in range(10)))
    repo.write("allowed/old2.py", "".join(f"other {i}\n" for i in range(10)))
    repo.write("other/b.py", "alpha\nbeta\n")
    repo.write("other/run.sh", "echo hi\n")
    repo.write(".gitattributes", "*.py diff=hide\n")  # harmless until config defines the driver
    repo.commit("base")
    repo.write("allowed/a.py", "L1\nl2\nL3\nl4\nl5\nl6\n")
    repo.git("mv", "allowed/old.py", "allowed/new.py")
    repo.write("allowed/new.py", "".join(f"old {i}\n" for i in range(9)) + "changed\n")
    repo.git("mv", "allowed/old2.py", "allowed/new2.py")
    repo.write("allowed/new2.py", "".join(f"other {i}\n" for i in range(9)) + "changed\n")
    repo.git("add", "-A")
    repo.write("other/b.py", "alpha\nbeta\nx = eval(1)\n")
    (repo.root / "other/run.sh").chmod(0o755)
    repo.write("allowed/new file.py", "print('ok')\n")
    repo.write("allowed/ünï.py", "ok\n")
    repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN])
    return repo


EXPECTED_CHANGED = {
    # path: (status, old_path, added, removed, hunks, largest_hunk)
    "allowed/a.py": ("modified", None, 2, 2, 2, 2),
    "allowed/new.py": ("renamed", "allowed/old.py", 1, 1, 1, 2),
    "allowed/new2.py": ("renamed", "allowed/old2.py", 1, 1, 1, 2),
    "other/b.py": ("modified", None, 1, 0, 1, 1),
    "other/run.sh": ("mode-change", None, 0, 0, 0, 0),
    "allowed/new file.py": ("added", None, 1, 0, 1, 1),
    "allowed/ünï.py": ("added", None, 1, 0, 1, 1),
}
EXPECTED_VIOLATIONS = {
    ("unlisted-path", "other/b.py", None),
    ("unlisted-path", "other/run.sh", None),
    ("forbidden-token", "other/b.py", 3),
}


def assert_scenario(out: Outcome) -> None:
    got = {
        p: (c["status"], c["old_path"], c["added"], c["removed"], c["hunks"], c["largest_hunk"])
        for p, c in out.changed.items()
    }
    assert got == EXPECTED_CHANGED
    assert len(out.report["changed"]) == len(EXPECTED_CHANGED)
    assert {(v["code"], v["path"], v["line"]) for v in out.report["violations"]} == EXPECTED_VIOLATIONS
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL"


def test_scenario_without_any_config(scenario: GitRepo) -> None:
    assert_scenario(scenario.score())


def test_scenario_digest_is_stable(scenario: GitRepo) -> None:
    first, second = scenario.score(), scenario.score()
    assert first.report["binding"]["change_digest"] == second.report["binding"]["change_digest"]


def _script(repo: GitRepo, name: str, body: str) -> str:
    path = repo.scratch / name
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


CONFIGS = [
    {"diff.external": "EXTERNAL"},
    {"diff.noprefix": "true"},
    {"diff.mnemonicPrefix": "true", "diff.srcPrefix": "x/", "diff.dstPrefix": "y/"},
    {"core.quotePath": "true"},
    {"diff.renames": "false"},
    {"diff.renames": "copies"},
    {"diff.renameLimit": "1"},
    {"diff.algorithm": "histogram"},
    {"diff.algorithm": "patience", "diff.indentHeuristic": "false"},
    {"diff.interHunkContext": "10"},
    {"diff.context": "10"},
    {"color.ui": "always", "color.diff": "always", "diff.colorMoved": "zebra"},
    {"diff.suppressBlankEmpty": "true", "diff.wsErrorHighlight": "all"},
    {"diff.orderFile": "ORDERFILE"},
    {"diff.hide.textconv": "TEXTCONV"},
    {"diff.hide.binary": "true"},
    {"diff.hide.command": "EXTERNAL"},
    {"diff.ignoreSubmodules": "all", "diff.submodule": "diff"},
    {"core.fileMode": "false"},
    {"core.fsmonitor": "FSMONITOR", "core.fsmonitorHookVersion": "2"},
    {"core.untrackedCache": "true", "status.showUntrackedFiles": "no"},
    {"core.excludesFile": "EXCLUDES"},
    {"core.ignoreStat": "true"},
    {"core.checkStat": "minimal", "core.trustctime": "false"},
    {"diff.relative": "true"},
]


def _config_value(repo: GitRepo, value: str) -> str:
    placeholders = {
        "EXTERNAL": lambda: _script(repo, "external.sh", "exit 0\n"),
        "TEXTCONV": lambda: _script(repo, "textconv.sh", "sed -e 's/eval(/safe(/' \"$1\"\n"),
        "FSMONITOR": lambda: _script(repo, "fsmonitor.sh", "printf 'token\\0'\n"),
        "ORDERFILE": lambda: str(_write(repo.scratch / "order", "other/*\nallowed/*\n")),
        "EXCLUDES": lambda: str(_write(repo.scratch / "excludes", "*.py\n")),
    }
    return placeholders[value]() if value in placeholders else value


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# git reads repository and user config alike; a few rows prove the user's scope is covered too
SCOPED = [(c, "local") for c in CONFIGS] + [
    (c, "global") for c in CONFIGS if {"diff.external", "diff.noprefix", "diff.hide.textconv", "core.fileMode"} & set(c)
]


@pytest.mark.parametrize(("config", "scope"), SCOPED, ids=[",".join(c) + f"-{s}" for c, s in SCOPED])
def test_config_does_not_bend_the_result(scenario: GitRepo, monkeypatch, config: dict[str, str], scope: str) -> None:
    for key, value in config.items():
        scenario.git("config", f"--{scope}", key, _config_value(scenario, value))
    if "core.fsmonitor" in config or "core.untrackedCache" in config:
        scenario.git("update-index", "--fsmonitor", "--untracked-cache", check=False)
        scenario.git("status", "--porcelain", check=False)  # warm the caches the config would trust
    if "diff.relative" in config:
        monkeypatch.chdir(scenario.root / "other")
        assert_scenario(scenario.score(repo_arg="."))
    else:
        assert_scenario(scenario.score())


ENVS = [
    {"GIT_EXTERNAL_DIFF": "EXTERNAL"},
    {"GIT_DIFF_OPTS": "--unified=5"},
    {"GIT_DIFF_OPTS": "-u10"},
    {"GIT_CONFIG_PARAMETERS": "'diff.noprefix'='true' 'core.quotepath'='true'"},
    {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "diff.interHunkContext", "GIT_CONFIG_VALUE_0": "10"},
    {"GIT_PAGER": "false", "PAGER": "false"},
    {"GIT_DIFF_PATH_COUNTER": "3", "GIT_DIFF_PATH_TOTAL": "9"},
    {"GIT_FLUSH": "0", "GIT_TRACE": "0"},
]


@pytest.mark.parametrize("env", ENVS, ids=[",".join(e) for e in ENVS])
def test_environment_does_not_bend_the_result(scenario: GitRepo, monkeypatch, env: dict[str, str]) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, _config_value(scenario, value))
    assert_scenario(scenario.score())


@pytest.mark.parametrize(
    "where",
    [
        ".gitattributes:-diff",
        ".gitattributes:binary",
        ".gitattributes:diff=driver-with-binary",
        "info/attributes:-diff",
        "info/attributes:binary",
        "core.attributesFile:-diff",
    ],
)
def test_attributes_cannot_hide_added_lines(base: GitRepo, where: str) -> None:
    place, attr = where.split(":")
    line = f"*.py {attr}\n"
    if attr == "diff=driver-with-binary":
        line = "*.py diff=bin\n"
        base.git("config", "diff.bin.binary", "true")
    if place == ".gitattributes":
        base.write(".gitattributes", line)
        base.commit("attributes")
    elif place == "info/attributes":
        _write(base.root / ".git/info/attributes", line)
    else:
        base.git("config", "--global", "core.attributesFile", str(_write(base.scratch / "attrs", line)))
    base.write("allowed/t.py", "one\ntwo\nx = eval(1)\nthree\n")
    base.write("allowed/-n new.py", "fine\nexec(1)\n")
    # allow_binary: were the text file taken for binary, its eval( would pass unseen
    base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN, "exec("], allow_binary=True)
    out = base.score()
    assert out.codes == {"forbidden-token"}  # found, and a text file is not called binary
    assert out.where("forbidden-token") == {("allowed/t.py", 3), ("allowed/-n new.py", 2)}
    assert out.changed["allowed/t.py"]["binary"] is False
    assert (out.changed["allowed/t.py"]["added"], out.changed["allowed/t.py"]["largest_hunk"]) == (1, 1)


def test_attributes_do_not_make_a_real_binary_pass(base: GitRepo) -> None:
    base.write(".gitattributes", "*.bin -diff\n")
    base.write("allowed/x.bin", b"a\x00b")
    base.commit("bin")
    base.write("allowed/x.bin", b"c\x00d eval(")
    out = base.score()
    assert failed_with(out, "binary-file")
    assert out.changed["allowed/x.bin"]["binary"] is True


# --- ignore rules that are not in the reviewed diff ---------------------------------------------


@pytest.mark.parametrize("how", ["info/exclude", "core.excludesFile", "XDG excludes"])
def test_untracked_file_hidden_by_private_ignore_rules_is_seen(base: GitRepo, how: str) -> None:
    if how == "info/exclude":
        _write(base.root / ".git/info/exclude", "*.pem\nother/\n")
    elif how == "core.excludesFile":
        base.git("config", "core.excludesFile", str(_write(base.scratch / "ignore", "*.pem\nother/\n")))
    else:
        xdg = Path(os.environ["XDG_CONFIG_HOME"]) / "git"
        xdg.mkdir(parents=True)
        _write(xdg / "ignore", "*.pem\nother/\n")
    base.manifest(allowed_paths=["allowed/**"], forbidden_globs=["**/*.pem"])
    base.write("allowed/key.pem", "k\n")
    base.write("other/new.py", "n\n")
    assert base.git("status", "--porcelain").stdout == ""  # git itself no longer shows them
    out = base.score()
    assert out.paths("forbidden-path") == {"allowed/key.pem"}
    assert out.paths("unlisted-path") == {"other/new.py"}


@pytest.mark.parametrize("where", [".gitignore", "allowed/.gitignore", "allowed/deep/.gitignore"])
def test_untracked_gitignore_that_ignores_itself(base: GitRepo, where: str) -> None:
    base.write(where, ".gitignore\n*.pem\n")
    base.write(str(Path(where).parent / "key.pem"), "k\n")
    base.write("allowed/t.py", "fine change\n")
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {where}


def test_untracked_gitignore_that_does_not_ignore_itself_is_just_a_file(base: GitRepo) -> None:
    base.write("allowed/.gitignore", "*.log\n")
    base.write("allowed/debug.log", "noise\n")
    out = base.score()
    assert set(out.changed) == {"allowed/.gitignore"}
    assert out.codes <= {"sensitive-path"}  # a .gitignore may be a blast-radius path; it hides nothing


@pytest.mark.parametrize(
    ("cache", "rules", "hidden"),
    [
        (".pytest_cache", "# Created by pytest automatically.\n*\n", False),
        (".mypy_cache", "# Automatically created by mypy\n*\n", False),
        ("allowed/.ruff_cache", "# Automatically created by ruff.\n*\n", False),
        # a cache's name with rules that do more than ignore the cache: hiding, as anywhere
        (".pytest_cache", "*\n!*.py\n", True),
        # the tools' rule under another name: hiding
        ("allowed/cache", "# Created by pytest automatically.\n*\n", True),
    ],
)
def test_a_tools_self_ignoring_cache_is_not_a_hidden_change(
    base: GitRepo, cache: str, rules: str, hidden: bool
) -> None:
    """pytest, mypy and ruff write `*` into their cache's .gitignore; the first commit after a
    test run must not fail for it. The same shape elsewhere, or with more rules, still does."""
    base.write(f"{cache}/.gitignore", rules)
    base.write(f"{cache}/v/cache/lastfailed", "{}\n")
    base.write("allowed/t.py", "fine change\n")
    out = base.score()
    assert out.paths("hidden-change") == ({f"{cache}/.gitignore"} if hidden else set()), out.text


def test_committed_ignore_rules_are_honoured(base: GitRepo) -> None:
    base.write(".gitignore", "*.log\n")
    base.commit("ignore logs")
    base.write("allowed/debug.log", "noise\n")
    base.write("allowed/t.py", "change\n")
    out = base.score()
    assert passed(out), out.text
    assert set(out.changed) == {"allowed/t.py"}


# --- index flags ---------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--assume-unchanged", "--skip-worktree"])
@pytest.mark.parametrize(
    ("edit", "fires"),
    [
        ("modify", True),
        ("same-size-modify", True),
        ("symlink-to-dev-zero", True),  # must not hang reading /dev/zero
        ("symlink-same-target", True),
        ("chmod", True),  # a mode change is a change
        ("untouched", False),
        ("delete", None),  # assume-unchanged: a deletion is a change; skip-worktree: sparse checkout
    ],
)
def test_index_flags_cannot_hide_a_change(base: GitRepo, flag: str, edit: str, fires: bool | None) -> None:
    path = "allowed/t.py"
    base.git("update-index", flag, path)
    if edit == "modify":
        base.write(path, "one\nx = eval(1)\nthree\n")
    elif edit == "same-size-modify":
        base.write(path, "one\ntwo\nthreE\n")
    elif edit == "symlink-to-dev-zero":
        base.symlink(path, "/dev/zero")
    elif edit == "symlink-same-target":
        base.symlink(path, "one\ntwo\nthree\n")  # the link text equals the blob: still not the same entry
    elif edit == "chmod":
        (base.root / path).chmod(0o755)
    elif edit == "delete":
        base.remove(path)
        fires = flag == "--assume-unchanged"
    base.write("allowed/other.py", "a real change\n")
    out = base.score()
    if fires:
        assert failed_with(out, "hidden-change")
        assert out.paths("hidden-change") == {path}
    else:
        assert passed(out), out.text


def test_flagged_symlink_that_is_unchanged_is_not_hidden(base: GitRepo) -> None:
    base.manifest(allowed_paths=["allowed/**"], allow_symlinks=True)
    base.symlink("allowed/link", "t.py")
    base.commit("link")
    base.git("update-index", "--assume-unchanged", "allowed/link")
    base.write("allowed/t.py", "edit\n")
    out = base.score()
    assert passed(out), out.text


@pytest.mark.parametrize("name", ['"quoted.py', "allowed/new\nline.py", "-x.py", 'allowed/"q\\b.py'])
def test_index_flags_on_awkward_names(base: GitRepo, name: str) -> None:
    """hash-object --stdin-paths reads a line starting with '"' as C-quoted; names must survive it."""
    base.manifest(allowed_paths=["**"])
    base.write(name, "v1\n")
    base.commit("awkward")
    base.git("update-index", "--assume-unchanged", "--", name)
    base.write(name, "v2\n")
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {name}


# --- clean filters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "fires"),
    [
        ("filter.x.clean", "sed -e s/eval/safe/", True),
        ("filter.x.process", "some-process-filter", True),
        ("filter.lfs.clean", "git-lfs clean -- %f", False),
        ("filter.x.smudge", "cat", False),
    ],
)
@pytest.mark.parametrize("scope", ["local", "global"])
def test_clean_filter_drivers(base: GitRepo, key: str, value: str, fires: bool, scope: str) -> None:
    base.write(".gitattributes", "*.py filter=x\n")
    base.commit("attributes")
    base.git("config", f"--{scope}", key, value)
    base.write("allowed/t.py", "one\ntwo\nthree\nfour\n")
    out = base.score()
    if fires:
        assert failed_with(out, "hidden-change")
        assert key in out.report["violations"][0]["message"]
    else:
        assert passed(out), out.text


def test_the_branch_is_read_while_the_manifest_is_validated(repo: GitRepo) -> None:
    """start_worktree's status call names the branch (`--branch`; symbolic-ref where status cannot
    say) and its finish reads the answer (issue 29): the same answer `Repository.branch` gives, on a
    branch and detached (tests/inspection/test_status_branch.py holds the other states)."""
    from scorer.inspection.changes import inspect_worktree
    from scorer.inspection.git import Repository

    repo.write("a.txt")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "agent-x")
    git = Repository(repo.root)
    assert inspect_worktree(git).branch == git.branch() == "agent-x"
    repo.git("checkout", "-q", "--detach")
    assert inspect_worktree(git).branch is git.branch() is None
    assert not git._live
