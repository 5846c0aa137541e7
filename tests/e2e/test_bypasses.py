"""Bypass attempts, each built in a real repository by an attacker who controls the working
tree and the commits of an `agent-*` branch, but not the manifest committed on main and not
CI's environment. Every test is a door that must stay closed: the verdict is never PASS.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from tests.testing.repo import GitRepo, Outcome, run_cli

SKIPPED = "RESULT: PASS (with test skipped)"
TOKEN = "eval("
CTYPES = r"^\s*import\s+ctypes\b"  # the example manifest's forbidden pattern


def passed(out: Outcome) -> bool:
    return out.exit_code == 0 and out.codes == set() and out.last_line == SKIPPED


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == "RESULT: FAIL"


def could_not_score(out: Outcome, code: str) -> bool:
    return out.exit_code == 2 and out.codes == {code} and out.last_line == f"RESULT: FAIL (could not score: {code})"


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    """main holds allowed/t.py and other/t.py; only allowed/** may change; eval( is forbidden."""
    repo.write("allowed/t.py", "one\ntwo\nthree\n")
    repo.write("other/t.py", "one\ntwo\nthree\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], forbidden_patterns=[CTYPES])
    return repo


@pytest.fixture
def agent(base: GitRepo) -> GitRepo:
    base.git("checkout", "-q", "-b", "agent-x")
    return base


# --- range mode: history tricks -------------------------------------------------------------------


def test_evil_merge_that_reverts_a_fix_on_main(agent: GitRepo) -> None:
    """The branch merges main, but the merge commit quietly undoes main's newer fix."""
    agent.git("checkout", "-q", "main")
    agent.write("other/t.py", "one\nsecurity fix\nthree\n")
    agent.commit("fix on main")
    agent.git("checkout", "-q", "agent-x")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    agent.commit("work")
    agent.git("merge", "-q", "--no-ff", "--no-commit", "main")
    agent.write("other/t.py", "one\ntwo\nthree\n")
    agent.commit("Merge branch 'main' into agent-x")
    out = agent.score("--base", "main")
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"other/t.py"}


def test_evil_merge_with_content_in_neither_parent(agent: GitRepo) -> None:
    agent.git("checkout", "-q", "-b", "side", "main")
    agent.write("allowed/side.py", "side\n")
    agent.commit("side")
    agent.git("checkout", "-q", "agent-x")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    agent.commit("work")
    agent.git("merge", "-q", "--no-ff", "--no-commit", "side")
    agent.write("allowed/t.py", "one\n2\nx = eval(1)\n")
    agent.commit("Merge branch 'side'")
    out = agent.score("--base", "main")
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/t.py", 3)}


def test_decoy_added_then_removed_is_net_zero(agent: GitRepo) -> None:
    """Range mode scores the net change: a path touched and restored is not part of it (PASS is right)."""
    agent.write("other/decoy.py", "x = eval(1)\n")
    agent.write("allowed/t.py", "one\nx = eval(1)\nthree\n")
    agent.commit("decoy")
    agent.remove("other/decoy.py")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    agent.commit("undo the decoy, keep the fix")
    out = agent.score("--base", "main")
    assert passed(out), out.text
    assert set(out.changed) == {"allowed/t.py"}


def _bad_then_good(agent: GitRepo) -> tuple[str, str]:
    agent.write("other/t.py", "x = eval(1)\n")
    bad = agent.commit("bad")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    return bad, agent.commit("good")


def test_grafts_cannot_move_the_merge_base(agent: GitRepo) -> None:
    """A grafts file that makes main descend from the bad commit would hide it below the merge-base."""
    bad, _ = _bad_then_good(agent)
    main = agent.git("rev-parse", "main").stdout.strip()
    (agent.root / ".git/info/grafts").write_text(f"{main} {bad}\n", encoding="utf-8")
    assert agent.git("merge-base", "main", "agent-x").stdout.strip() == bad  # git itself is fooled
    out = agent.score("--base", "main")
    assert failed_with(out, "unlisted-path", "forbidden-token")
    assert out.paths("unlisted-path") == {"other/t.py"}


def test_replace_ref_on_the_base_commit_is_ignored(agent: GitRepo) -> None:
    bad, _ = _bad_then_good(agent)
    main = agent.git("rev-parse", "main").stdout.strip()
    tree = agent.git("rev-parse", "main^{tree}").stdout.strip()
    fake = agent.git("commit-tree", tree, "-p", bad, "-m", "main, descended from bad").stdout.strip()
    agent.git("replace", main, fake)
    assert agent.git("merge-base", "main", "agent-x").stdout.strip() == bad  # git itself is fooled
    out = agent.score("--base", "main")
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"other/t.py"}


def test_shallow_clone_without_the_merge_base_cannot_score(agent: GitRepo, tmp_path: Path) -> None:
    _bad_then_good(agent)
    agent.git("checkout", "-q", "main")
    clone = tmp_path / "shallow"
    agent.git("clone", "-q", "--depth", "1", "--no-single-branch", f"file://{agent.root}", str(clone))
    agent.git("checkout", "-q", "agent-x", cwd=clone)
    out = agent.score("--base", "origin/main", repo_arg=str(clone))
    assert could_not_score(out, "git-error")


@pytest.mark.parametrize("kind", ["lightweight", "annotated"])
def test_head_given_as_a_tag_is_scored_as_its_commit(agent: GitRepo, kind: str) -> None:
    _bad_then_good(agent)
    agent.git("tag", *(["-a", "-m", "release"] if kind == "annotated" else []), "v1", "agent-x")
    out = agent.score("--base", "main", "--head", "v1")
    assert failed_with(out, "unlisted-path")


@pytest.mark.parametrize("spec", ["agent-x^{tree}", "agent-x:allowed/t.py"])
def test_head_that_is_not_a_commit_cannot_score(agent: GitRepo, spec: str) -> None:
    _bad_then_good(agent)
    out = agent.score("--base", "main", "--head", agent.git("rev-parse", spec).stdout.strip())
    assert could_not_score(out, "git-error")


@pytest.mark.parametrize("where", ["tag", "short-sha-tag", "remote", "head-tag"])
def test_ambiguous_ref_is_refused(agent: GitRepo, where: str) -> None:
    """A tag named `main` wins over the branch in git's lookup (and `git fetch` follows tags to
    fetched commits): it would move the base, and the manifest read there, to the agent's commit."""
    bad, _ = _bad_then_good(agent)
    args = ["--base", "main"]
    if where == "tag":
        agent.git("tag", "main", bad)
    elif where == "short-sha-tag":
        short = agent.git("rev-parse", "--short=12", "main").stdout.strip()
        agent.git("tag", short, bad)
        args = ["--base", short]
    elif where == "remote":
        agent.git("update-ref", "refs/remotes/main", bad)
    else:
        agent.git("tag", "agent-x", "main")  # --head agent-x would score nothing
        args += ["--head", "agent-x"]
    out = agent.score(*args)
    assert could_not_score(out, "git-error")
    assert "ambiguous" in out.report["violations"][0]["message"]


def test_full_commit_id_is_never_ambiguous(agent: GitRepo) -> None:
    """git always reads 40 hex digits as a commit id, even when a ref has that name."""
    bad, _ = _bad_then_good(agent)
    main = agent.git("rev-parse", "main").stdout.strip()
    agent.git("tag", main, bad)
    out = agent.score("--base", main)
    assert failed_with(out, "unlisted-path")
    assert out.report["binding"]["base"] == main


def test_full_ref_name_resolves_an_ambiguous_base(agent: GitRepo) -> None:
    bad, _ = _bad_then_good(agent)
    agent.git("tag", "main", bad)
    out = agent.score("--base", "refs/heads/main")
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {"other/t.py"}


# --- renames, case and unicode --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["worktree", "range"])
def test_rename_a_forbidden_file_to_an_allowed_name(agent: GitRepo, mode: str) -> None:
    agent.manifest(allowed_paths=["allowed/**"], forbidden_globs=["allowed/t.py"])
    agent.git("mv", "allowed/t.py", "allowed/renamed.py")
    if mode == "range":
        agent.commit("rename")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "forbidden-path")
    assert out.paths("forbidden-path") == {"allowed/t.py"}


@pytest.mark.parametrize("mode", ["worktree", "range"])
def test_rename_an_allowed_file_over_a_fenced_one(agent: GitRepo, mode: str) -> None:
    agent.write("allowed/t.py", "one\nchanged\nthree\n")
    agent.git("mv", "-f", "allowed/t.py", "other/t.py")
    if mode == "range":
        agent.commit("move over")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "unlisted-path")
    assert "other/t.py" in out.paths("unlisted-path")


@pytest.mark.parametrize("new", ["Src/Pricing.py", "src/Pricing.py", "SRC/pricing.py"])
def test_case_only_rename_is_not_the_allowed_path(repo: GitRepo, new: str) -> None:
    repo.write("src/pricing.py", "price = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["src/pricing.py"])
    repo.remove("src/pricing.py")
    repo.write(new, "price = 1\n")
    repo.git("add", "-A")
    out = repo.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {new}


@pytest.mark.parametrize("new", ["src/PRICING.py", "Src/pricing.py", "src/pricing.py.", "src/pricing.py "])
def test_spelling_variants_of_a_forbidden_path_are_forbidden(repo: GitRepo, new: str) -> None:
    """On a case-insensitive checkout (macOS, Windows) `src/PRICING.py` overwrites `src/pricing.py`;
    Windows drops trailing dots and spaces."""
    repo.write("src/pricing.py", "price = 1\n")
    repo.commit("base")
    repo.manifest(allowed_paths=["**"], forbidden_globs=["src/pricing.py", "**/*.pem"])
    repo.write(new, "price = 0\n")
    repo.write("keys/KEY.PEM", "k\n")
    out = repo.score()
    assert failed_with(out, "forbidden-path")
    assert out.paths("forbidden-path") == {new, "keys/KEY.PEM"}


@pytest.mark.parametrize(
    ("path", "forbidden"),
    [
        ("src/pricing.py", True),
        ("SRC/PRICING.PY", True),
        ("src/pricing.py. .", True),
        ("src/pricing.pyc", False),
        ("src/pricing.py.bak", False),
        ("src/pricing_v2.py", False),
        ("src/sub/pricing.py", False),
        ("lib/Key.PEM", True),
        ("lib/key.pem.txt", False),
    ],
)
def test_forbidden_spellings_table(path: str, forbidden: bool) -> None:
    from scorer.manifest.globs import ForbiddenMatcher

    assert ForbiddenMatcher(["src/pricing.py", "**/*.pem"])(path) is forbidden


NFC = unicodedata.normalize("NFC", "allowed/café.py")
NFD = unicodedata.normalize("NFD", "allowed/café.py")


def test_nfd_spelling_is_not_the_allowed_nfc_path(base: GitRepo) -> None:
    base.manifest(allowed_paths=[NFC])
    base.write(NFD, "x\n")
    out = base.score()
    assert failed_with(out, "unlisted-path")
    assert out.paths("unlisted-path") == {NFD}


def test_nfd_spelling_of_a_forbidden_nfc_path_is_forbidden(base: GitRepo) -> None:
    """macOS file systems treat the two spellings as one file."""
    base.manifest(allowed_paths=["allowed/**"], forbidden_globs=[NFC])
    base.write(NFD, "x\n")
    out = base.score()
    assert failed_with(out, "forbidden-path")
    assert out.paths("forbidden-path") == {NFD}


# --- content that hides from the line scan --------------------------------------------------------


@pytest.mark.parametrize("mode", ["untracked", "staged", "range"])
def test_nul_byte_after_gits_8000_byte_sniff_is_still_text(agent: GitRepo, mode: str) -> None:
    """git looks for NUL only in the first 8000 bytes; what follows is text, and is scanned."""
    agent.write("allowed/late.py", "#" * 8100 + "\n\0\nx = eval(1)\n")
    if mode == "staged":
        agent.git("add", "-A")
    elif mode == "range":
        agent.commit("late nul")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/late.py", 3)}
    assert out.changed["allowed/late.py"]["binary"] is False


@pytest.mark.parametrize("mode", ["untracked", "range"])
def test_nul_byte_inside_the_sniff_makes_it_binary_and_refused(agent: GitRepo, mode: str) -> None:
    agent.write("allowed/early.py", "\0\nx = eval(1)\n")
    if mode == "range":
        agent.commit("early nul")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "binary-file")


@pytest.mark.parametrize("mode", ["worktree", "range"])
def test_binary_at_base_rewritten_as_text_is_scanned(agent: GitRepo, mode: str) -> None:
    agent.git("checkout", "-q", "main")
    agent.write("allowed/tool.py", b"\0binary stand-in\n")
    agent.commit("a binary file")
    agent.git("checkout", "-q", "agent-x")
    agent.git("merge", "-q", "--ff-only", "main")
    agent.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], allow_binary=True)
    agent.write("allowed/tool.py", "x = eval(1)\n")
    if mode == "range":
        agent.commit("now text")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "forbidden-token")


@pytest.mark.parametrize("attr", ["binary", "-diff", "diff=foo", "text eol=crlf", "-text", "text=auto"])
def test_committed_attributes_cannot_hide_lines_in_range_mode(agent: GitRepo, attr: str) -> None:
    """In range mode git reads .gitattributes from the checked-out head: the agent's own file."""
    agent.manifest(
        allowed_paths=["allowed/**", ".gitattributes"],
        forbidden_substrings=[TOKEN],
        allow_binary=True,
        sensitive_exempt=["gate-config"],
    )
    agent.write(".gitattributes", f"*.py {attr}\n")
    agent.write("allowed/t.py", "one\ntwo\nx = eval(1)\n")
    agent.commit("attributes")
    out = agent.score("--base", "main")
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/t.py", 3)}


def test_big_file_threshold_cannot_make_text_binary(agent: GitRepo) -> None:
    """core.bigFileThreshold makes git call big files binary; with allow_binary their lines would go unread."""
    agent.git("config", "core.bigFileThreshold", "1k")
    agent.manifest(allowed_paths=["allowed/**"], forbidden_substrings=[TOKEN], allow_binary=True)
    agent.write("allowed/t.py", "#" * 2000 + "\nx = eval(1)\n")
    agent.write("allowed/new.py", "#" * 2000 + "\nx = eval(2)\n")
    agent.git("add", "allowed/new.py")
    out = agent.score()
    assert failed_with(out, "forbidden-token")
    assert out.paths("forbidden-token") == {"allowed/t.py", "allowed/new.py"}
    agent.commit("big")
    assert failed_with(agent.score("--base", "main"), "forbidden-token")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("one\r\ntwo\r\nx = eval(1)\r\n", 3),  # CRLF
        ("one\ntwo\nx = 1\reval(1)\n", 3),  # a lone CR before the token
        ("one\ntwo\nthree\rx = eval(1)", 3),  # and no newline at the end
    ],
)
def test_carriage_returns_do_not_hide_a_substring(agent: GitRepo, content: str, line: int) -> None:
    agent.write("allowed/t.py", content)
    out = agent.score()
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/t.py", line)}


@pytest.mark.parametrize(
    "content",
    [
        "one\ntwo\nimport ctypes\r\n",  # CRLF: `$`-free, but ^ still has to see the line
        "x = 1\rimport ctypes\n",  # Python ends a line at a lone CR; the pattern's ^ must too
        "x = 1\u2028import ctypes\n",  # JavaScript ends a line at U+2028
        "# \\ No newline at end of file\nimport ctypes\n",  # git's marker text, spelt inside a line
    ],
    ids=["crlf", "lone-cr", "u2028", "no-newline-marker"],
)
@pytest.mark.parametrize("mode", ["untracked", "tracked", "range"])
def test_line_anchored_patterns_see_every_line_start(agent: GitRepo, content: str, mode: str) -> None:
    path = "allowed/new.py" if mode == "untracked" else "allowed/t.py"
    agent.write(path, content)
    if mode == "range":
        agent.commit("sneaky line ends")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "forbidden-token")
    assert out.paths("forbidden-token") == {path}


def test_line_anchored_pattern_still_fires_only_at_line_start(agent: GitRepo) -> None:
    agent.write("allowed/t.py", "one\nx = 'import ctypes'\r\nthree\n")
    assert passed(agent.score())


def test_token_split_by_a_carriage_return_is_no_token(agent: GitRepo) -> None:
    """`ev\\ral(` is two lines to Python and to every other reader: not eval( (PASS is right)."""
    agent.write("allowed/t.py", "one\nev\ral(1)\nthree\n")
    assert passed(agent.score())


@pytest.mark.parametrize("mode", ["untracked", "tracked", "range"])
def test_compatibility_spellings_of_identifiers_are_the_identifiers(agent: GitRepo, mode: str) -> None:
    """Python reads identifiers through NFKC: a fullwidth `eval(` calls eval, a fullwidth `import ctypes`
    imports ctypes."""
    fullwidth = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in "acelpstvy"})
    source = f"x = {'eval'.translate(fullwidth)}('1')\nimport {'ctypes'.translate(fullwidth)}\n"
    assert {"eval", "ctypes"} <= set(compile(source, "f", "exec").co_names)
    path = "allowed/new.py" if mode == "untracked" else "allowed/t.py"
    agent.write(path, "é\n" + source)
    if mode == "range":
        agent.commit("fullwidth")
    out = agent.score(*(["--base", "main"] if mode == "range" else []))
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {(path, 2), (path, 3)}


def test_a_pattern_that_forbids_carriage_returns_still_sees_them(agent: GitRepo) -> None:
    agent.manifest(allowed_paths=["allowed/**"], forbidden_patterns=["\r$"])
    agent.write("allowed/t.py", "one\r\ntwo\n")
    out = agent.score()
    assert failed_with(out, "forbidden-token")
    assert out.where("forbidden-token") == {("allowed/t.py", 1)}


@pytest.mark.xfail(
    strict=True,
    reason="max_hunk_lines and max_changed_lines count git's lines (docs/manifest.md, Size "
    "limits); one line can hold any number of statements, minified or split by lone CRs that "
    "Python reads as line ends. max_file_bytes is the limit that holds.",
)
def test_many_statements_in_one_git_line_exceed_max_hunk_lines(agent: GitRepo) -> None:
    agent.manifest(allowed_paths=["allowed/**"], max_hunk_lines=5)
    agent.write("allowed/t.py", "one\n" + "".join(f"x{i} = {i}\r" for i in range(100)) + "\nthree\n")
    assert failed_with(agent.score(), "hunk-too-large")


def test_huge_file_is_measured_not_trusted(agent: GitRepo) -> None:
    agent.manifest(allowed_paths=["allowed/**"], max_file_bytes=1_000_000)
    agent.write("allowed/huge.py", "x = 1\n" * 200_000)
    out = agent.score()
    assert failed_with(out, "file-too-large")
    agent.commit("huge")
    assert failed_with(agent.score("--base", "main"), "file-too-large")


def test_force_added_ignored_file_is_scored(agent: GitRepo) -> None:
    agent.write(".gitignore", "build/\n")
    agent.commit("ignore build")
    agent.write("build/x.py", "x = eval(1)\n")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    assert passed(agent.score())  # ignored and untracked: git commit -a would not record it
    agent.git("add", "-f", "build/x.py")
    out = agent.score()
    assert failed_with(out, "unlisted-path", "forbidden-token")
    assert out.paths("unlisted-path") == {"build/x.py"}


def test_untracked_file_deep_in_untracked_directories(agent: GitRepo) -> None:
    agent.write("other/new/deeper/still/x.py", "x = eval(1)\n")
    out = agent.score()
    assert failed_with(out, "unlisted-path", "forbidden-token")
    assert out.paths("unlisted-path") == {"other/new/deeper/still/x.py"}


def test_untracked_symlinked_directory_is_a_symlink_not_a_window(agent: GitRepo) -> None:
    outside = agent.scratch / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x = eval(1)\n", encoding="utf-8")
    agent.symlink("allowed/in", "../other")
    agent.symlink("allowed/out", str(outside))
    agent.write("allowed/in/planted.py", "planted\n")  # lands in other/, where git sees it
    out = agent.score()
    assert failed_with(out, "symlink", "unlisted-path")
    assert out.paths("symlink") == {"allowed/in", "allowed/out"}
    assert out.paths("unlisted-path") == {"other/planted.py"}
    assert "forbidden-token" not in out.codes  # a link is never followed


def test_fifo_is_neither_read_nor_a_pass(agent: GitRepo) -> None:
    """An untracked FIFO must not hang the scorer; a FIFO in place of a tracked file cannot be scored."""
    os.mkfifo(agent.root / "allowed/pipe")
    agent.write("allowed/t.py", "one\n2\nthree\n")
    assert passed(agent.score())  # git cannot add a FIFO: it is never part of a commit
    agent.remove("allowed/t.py")
    os.mkfifo(agent.root / "allowed/t.py")
    out = agent.score()
    assert out.exit_code != 0 and out.last_line.startswith("RESULT: FAIL")


@pytest.mark.parametrize("dotgit", ["directory", "file"])
def test_untracked_nested_repository_hides_nothing(agent: GitRepo, dotgit: str) -> None:
    nested = agent.root / "allowed/vendor"
    if dotgit == "directory":
        subprocess.run(["git", "init", "-q", str(nested)], check=True)
    else:  # a .git file pointing elsewhere, as worktrees and submodules have
        elsewhere = agent.scratch / "elsewhere.git"
        subprocess.run(["git", "init", "-q", "--bare", str(elsewhere)], check=True)
        nested.mkdir(parents=True)
        (nested / ".git").write_text(f"gitdir: {elsewhere}\n", encoding="utf-8")
    (nested / "evil.py").write_text("x = eval(1)\n", encoding="utf-8")
    out = agent.score()
    assert failed_with(out, "submodule")
    assert out.paths("submodule") == {"allowed/vendor"}


def test_submodule_pointer_moved_in_range_mode(agent: GitRepo) -> None:
    agent.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},allowed/sub")
    agent.git("commit", "-q", "--no-verify", "-m", "gitlink")
    out = agent.score("--base", "main")
    assert failed_with(out, "submodule")
    assert out.paths("submodule") == {"allowed/sub"}


def test_symlink_that_climbs_out_through_another_symlink(agent: GitRepo) -> None:
    """`allowed/up -> ..` is the root, so `allowed/x -> up/../outside` reads as inside (`allowed/outside`)
    but resolves beside the repository."""
    agent.manifest(allowed_paths=["allowed/**"], allow_symlinks=True)
    agent.symlink("allowed/up", "..")
    agent.symlink("allowed/x", "up/../outside")
    assert not os.path.realpath(agent.root / "allowed/x").startswith(str(agent.root))
    out = agent.score()
    assert failed_with(out, "symlink")
    assert out.paths("symlink") == {"allowed/x"}
    agent.commit("links")
    out = agent.score("--base", "main")
    assert failed_with(out, "symlink")
    assert out.paths("symlink") == {"allowed/x"}


@pytest.mark.parametrize(
    ("target", "leaves"),
    [
        ("up/../outside", True),
        ("./up/../x", True),
        ("../allowed/up/..", True),
        ("..", False),  # allowed/.. is the repository root
        ("../other/t.py", False),
        ("./t.py", False),
        ("sub/./t.py", False),
        ("../..", True),
    ],
)
def test_escapes_repo_table(target: str, leaves: bool) -> None:
    from scorer.checks.paths import escapes_repo

    assert escapes_repo("allowed/x", target) is leaves


def test_multi_line_symlink_target_is_read_whole_in_range_mode(agent: GitRepo) -> None:
    """With -U0 an edit to a link target shows only the changed lines; the target is the whole blob."""
    agent.manifest(allowed_paths=["allowed/**"], allow_symlinks=True)
    agent.symlink("allowed/link", "a\nb\nc")
    first = agent.commit("a link with newlines in its target")
    agent.symlink("allowed/link", "/x\nb\nc2")
    agent.commit("now absolute")
    out = agent.score("--base", first)
    assert failed_with(out, "symlink")
    assert "outside" in next(v["message"] for v in out.report["violations"] if v["code"] == "symlink")


# --- the index ---------------------------------------------------------------------------------------


def _blob(repo: GitRepo, text: str) -> str:
    proc = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=repo.root, input=text, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


@pytest.mark.parametrize("flag", [None, "--assume-unchanged", "--skip-worktree"])
def test_cacheinfo_blob_that_differs_from_the_working_tree(agent: GitRepo, flag: str | None) -> None:
    evil = _blob(agent, "one\nx = eval(1)\nthree\n")
    agent.git("update-index", "--cacheinfo", f"100644,{evil},allowed/t.py")
    if flag:
        agent.git("update-index", flag, "allowed/t.py")
    agent.write("allowed/other.py", "an innocent change\n")
    out = agent.score()
    assert failed_with(out, "hidden-change")  # and, where a flag makes git diff read the index, forbidden-token
    assert out.paths("hidden-change") == {"allowed/t.py"}


def test_sparse_path_staged_with_content_nobody_has_on_disk(agent: GitRepo) -> None:
    evil = _blob(agent, "x = eval(1)\n")
    agent.git("update-index", "--add", "--cacheinfo", f"100644,{evil},allowed/ghost.py")
    agent.git("update-index", "--skip-worktree", "allowed/ghost.py")
    out = agent.score()
    assert failed_with(out, "forbidden-token")
    assert out.paths("forbidden-token") == {"allowed/ghost.py"}


def test_sparse_checkout_excluded_directory(agent: GitRepo) -> None:
    agent.git("sparse-checkout", "set", "--no-cone", "/allowed/")
    assert not (agent.root / "other/t.py").exists()
    agent.write("other/t.py", "x = eval(1)\n")  # back on disk: git clears skip-worktree for present files
    agent.write("other/new.py", "new\n")
    out = agent.score()
    assert failed_with(out, "unlisted-path", "forbidden-token")
    assert out.paths("unlisted-path") == {"other/t.py", "other/new.py"}


def test_git_index_file_is_the_index_that_would_be_committed(agent: GitRepo, monkeypatch) -> None:
    """score-diff reads the index git would commit; an alternate index cannot hide a staged file."""
    alt = agent.scratch / "alt-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(alt)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=agent.root, env=env, check=True)
    agent.write("other/x.py", "x = eval(1)\n")
    subprocess.run(["git", "add", "other/x.py"], cwd=agent.root, env=env, check=True)
    agent.remove("other/x.py")  # staged in the alternate index only, gone from disk
    agent.write("allowed/t.py", "one\n2\nthree\n")
    monkeypatch.setenv("GIT_INDEX_FILE", str(alt))
    out = agent.score()
    assert failed_with(out, "hidden-change")
    assert out.paths("hidden-change") == {"other/x.py"}


def test_core_bare_in_config_cannot_score(agent: GitRepo) -> None:
    agent.git("config", "core.bare", "true")
    agent.write("other/t.py", "x = eval(1)\n")
    out = agent.score()
    assert could_not_score(out, "git-error")


def test_core_worktree_elsewhere_is_refused(agent: GitRepo, tmp_path: Path) -> None:
    """With core.worktree set, git commits from that directory; the scorer must look at the same one."""
    elsewhere = tmp_path / "elsewhere"
    agent.git("worktree", "add", "-q", "--detach", str(elsewhere))  # a populated copy of HEAD
    (elsewhere / ".git").unlink()
    agent.git("config", "core.worktree", str(elsewhere))
    (elsewhere / "other/t.py").write_text("x = eval(1)\n", encoding="utf-8")
    agent.write("allowed/t.py", "one\n2\nthree\n")  # the innocent edit, in the directory scored by --repo
    out = agent.score()
    assert could_not_score(out, "git-error")
    assert "core.worktree" in out.report["violations"][0]["message"]


@pytest.mark.parametrize("name", ["GIT_WORK_TREE", "GIT_DIR"])
def test_git_environment_naming_another_repository_is_refused(
    agent: GitRepo, monkeypatch, tmp_path: Path, name: str
) -> None:
    """An exported GIT_DIR or GIT_WORK_TREE is where `git commit` goes; the scorer must not look elsewhere."""
    other = tmp_path / "other"
    agent.git("clone", "-q", str(agent.root), str(other))
    (other / "other/t.py").write_text("x = eval(1)\n", encoding="utf-8")
    monkeypatch.setenv(name, str(other / ".git" if name == "GIT_DIR" else other))
    agent.write("allowed/t.py", "one\n2\nthree\n")
    assert could_not_score(agent.score(), "git-error")
    monkeypatch.setenv(name, str(agent.root / ".git" if name == "GIT_DIR" else agent.root))  # as a hook has it
    assert passed(agent.score())


# --- the manifest --------------------------------------------------------------------------------------


def test_agent_written_manifest_when_none_is_committed(base: GitRepo, monkeypatch) -> None:
    """Worktree mode reads an untracked manifest with a warning (pin it or commit it); --base refuses it."""
    base.git("checkout", "-q", "-b", "agent-x")
    mine = base.write_manifest(base.root / "job_manifest.json", allowed_paths=["**"])
    base.write("other/t.py", "changed\n")
    monkeypatch.chdir(base.root)
    out = base.score(manifest=Path("job_manifest.json"))
    assert out.exit_code == 0 and any("untracked" in w for w in out.report["warnings"])  # documented
    approved = base.scratch / "approved.json"
    approved.write_text(json.dumps({"job_id": "j", "allowed_paths": ["allowed/**"], "required_test": ["x"]}))
    pin = hashlib.sha256(approved.read_bytes()).hexdigest()
    assert could_not_score(base.score("--manifest-sha256", pin, manifest=mine), "manifest-hash-mismatch")
    base.commit("bring my own fence")
    assert could_not_score(base.score("--base", "main", manifest=Path("job_manifest.json")), "manifest-invalid")


@pytest.fixture
def fenced(agent: GitRepo) -> GitRepo:
    """job_manifest.json committed on main (a narrow fence), next to a loose sample manifest."""
    agent.git("checkout", "-q", "main")
    agent.write_manifest(agent.root / "job_manifest.json", allowed_paths=["allowed/**"])
    agent.write_manifest(
        agent.root / "docs/sample_manifest.json", allowed_paths=["**", "job_manifest.json"], allow_symlinks=True
    )
    agent.commit("fence")
    agent.git("checkout", "-q", "agent-x")
    agent.git("merge", "-q", "--ff-only", "main")
    return agent


@pytest.mark.parametrize("target", ["docs/sample_manifest.json", "OUTSIDE"])
@pytest.mark.parametrize("mode", ["worktree", "range"])
def test_manifest_replaced_by_a_symlink_to_a_looser_one(fenced: GitRepo, monkeypatch, target: str, mode: str) -> None:
    if target == "OUTSIDE":
        target = str(
            fenced.write_manifest(
                fenced.scratch / "planted.json", allowed_paths=["**", "job_manifest.json"], allow_symlinks=True
            )
        )
    fenced.symlink("job_manifest.json", target)
    fenced.write("other/t.py", "changed\n")
    message = fenced.scratch / "msg"
    message.write_text("x\n\nBlast-Radius: job_manifest.json\nJustification: allowed/t.py:1 why\nRollback: revert\n")
    if mode == "range":
        fenced.commit(message.read_text())
    monkeypatch.chdir(fenced.root)
    args = ["--base", "main"] if mode == "range" else ["--message-file", str(message)]
    out = fenced.score(*args, manifest=Path("job_manifest.json"))
    assert failed_with(out, "manifest-changed")
    assert out.paths("manifest-changed") == {"job_manifest.json"}
    if mode == "range":  # scored by the fence at base, not by the file the link points at
        assert out.paths("unlisted-path") == {"other/t.py", "job_manifest.json"}


def test_edited_manifest_cannot_switch_itself_to_shadow(fenced: GitRepo, monkeypatch) -> None:
    """Worktree mode reads the manifest from disk: `"mode": "shadow"` written there would make every
    violation, manifest-changed included, exit 0."""
    fenced.write_manifest(fenced.root / "job_manifest.json", allowed_paths=["allowed/**"], mode="shadow")
    fenced.write("other/t.py", "changed\n")
    monkeypatch.chdir(fenced.root)
    out = fenced.score(manifest=Path("job_manifest.json"))
    assert failed_with(out, "manifest-changed", "unlisted-path")
    assert out.report["shadow"] is False


def test_shadow_mode_from_an_unchanged_manifest_still_applies(fenced: GitRepo, monkeypatch) -> None:
    fenced.git("checkout", "-q", "main")
    fenced.write_manifest(fenced.root / "job_manifest.json", allowed_paths=["allowed/**"], mode="shadow")
    fenced.commit("trial run in shadow mode")
    fenced.write("other/t.py", "changed\n")
    monkeypatch.chdir(fenced.root)
    out = fenced.score(manifest=Path("job_manifest.json"))
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS (shadow: 1 would-fail)"


@pytest.mark.parametrize("mode", ["worktree", "range"])
def test_manifest_directory_replaced_by_a_symlink(agent: GitRepo, monkeypatch, mode: str) -> None:
    agent.git("checkout", "-q", "main")
    agent.write_manifest(agent.root / "ci/job.json", allowed_paths=["allowed/**"])
    agent.write_manifest(agent.root / "docs/job.json", allowed_paths=["**"], allow_symlinks=True)
    agent.commit("fence in ci/, an example in docs/")
    agent.git("checkout", "-q", "agent-x")
    agent.git("merge", "-q", "--ff-only", "main")
    agent.git("rm", "-q", "-r", "ci")
    agent.symlink("ci", "docs")
    agent.write("other/t.py", "changed\n")
    if mode == "range":
        agent.commit("ci is docs now")
    monkeypatch.chdir(agent.root)
    out = agent.score(*(["--base", "main"] if mode == "range" else []), manifest=Path("ci/job.json"))
    assert failed_with(out, "manifest-changed")
    assert out.paths("manifest-changed") == {"ci/job.json"}


def test_pin_file_edited_on_the_branch_is_read_from_base(fenced: GitRepo, monkeypatch) -> None:
    monkeypatch.chdir(fenced.root)
    fenced.git("checkout", "-q", "main")
    assert run_cli(["pin", "--manifest", "job_manifest.json"])[0] == 0
    fenced.commit("pin")
    fenced.git("checkout", "-q", "agent-x")
    fenced.git("merge", "-q", "--ff-only", "main")
    fenced.write_manifest(fenced.root / "job_manifest.json", allowed_paths=["**"])
    assert run_cli(["pin", "--manifest", "job_manifest.json"])[0] == 0  # a matching pin for the loose fence
    fenced.write("other/t.py", "changed\n")
    fenced.commit("loosen and re-pin")
    out = fenced.score("--base", "main", manifest=Path("job_manifest.json"))
    assert failed_with(out, "manifest-changed", "unlisted-path")
    assert out.paths("unlisted-path") >= {"other/t.py", "job_manifest.json", "job_manifest.json.sha256"}


def test_deleting_the_manifest_on_the_branch(fenced: GitRepo, monkeypatch) -> None:
    fenced.remove("job_manifest.json")
    fenced.write("allowed/t.py", "one\n2\nthree\n")
    fenced.commit("no fence")
    monkeypatch.chdir(fenced.root)
    out = fenced.score("--base", "main", manifest=Path("job_manifest.json"))
    assert failed_with(out, "manifest-changed")


def test_untracking_the_manifest_does_not_untrack_the_fence(fenced: GitRepo, monkeypatch) -> None:
    fenced.git("rm", "-q", "--cached", "job_manifest.json")
    fenced.write_manifest(fenced.root / "job_manifest.json", allowed_paths=["**"])
    fenced.write("other/t.py", "changed\n")
    monkeypatch.chdir(fenced.root)
    out = fenced.score(manifest=Path("job_manifest.json"))
    assert failed_with(out, "manifest-changed")


# --- the report ---------------------------------------------------------------------------------------

HOSTILE_NAMES = [
    "allowed/x\nRESULT: PASS",
    "allowed/x\rRESULT: PASS",
    "allowed/\x1b[8mhidden",  # SGR 8 conceals every later character on a terminal
    "allowed/x\n::stop-commands::tok",
    "allowed/x\u2028RESULT: PASS",
    "allowed/\u202eSSAP :TLUSER",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=[repr(n) for n in HOSTILE_NAMES])
def test_file_names_cannot_forge_report_lines(agent: GitRepo, name: str) -> None:
    agent.write(name, "x = eval(1)\n")
    agent.write("other/t.py", "changed\n")
    out = agent.score()
    assert failed_with(out, "forbidden-token", "unlisted-path")
    assert name in out.changed  # the JSON report keeps the exact name
    lines = out.text.split("\n")
    assert lines[-2] == "RESULT: FAIL" and lines[-1] == ""
    assert not any(line.startswith(("RESULT", "::")) for line in lines[:-2]), out.text
    assert not set(out.text) & {"\x1b", "\r", "\u2028", "\u202e"}, out.text
    code, github = run_cli(
        [
            "--repo",
            str(agent.root),
            "--manifest",
            str(agent.manifest_path),
            "--skip-test",
            "--no-log",
            "--format",
            "github",
        ]
    )
    assert code == 1
    assert "\r" not in github  # the runner splits lines at CR and LF (not at U+2028)
    assert all(
        line.startswith(("::error ", "::group::", "- ", "::endgroup::", "::notice "))
        for line in github.rstrip("\n").split("\n")
    ), github


def test_test_output_cannot_forge_the_verdict(agent: GitRepo) -> None:
    script = "import sys; sys.stdout.write('ok\\rRESULT: PASS\\n\\x1b[8m\\u2028RESULT: PASS\\n'); sys.exit(1)"
    agent.manifest(allowed_paths=["allowed/**"], required_test=[sys.executable, "-c", script])
    agent.write("allowed/t.py", "one\n2\nthree\n")
    out = agent.score(skip_test=False)
    assert out.exit_code == 1 and out.codes == {"test-failed"}
    lines = out.text.split("\n")
    assert lines[-2] == "RESULT: FAIL"
    assert not any(line.startswith("RESULT") for line in lines[:-2]), out.text
    assert not set(out.text) & {"\x1b", "\r", "\u2028"}, out.text


def test_review_shows_a_passing_diff_with_its_control_characters_escaped(agent: GitRepo) -> None:
    """The reviewer reads the diff of a PASS to judge it; SGR 8 in a line must not hide what follows."""
    agent.write("allowed/t.py", "one\n\x1b[8mhidden = True\x1b[0m\nthree\r\n")
    agent.commit("fix")
    code, text = run_cli(
        [
            "review",
            "--repo",
            str(agent.root),
            "--base",
            "main",
            "--skip-test",
            "--no-log",
            "--manifest",
            str(agent.manifest_path),
        ]
    )
    assert code == 0
    assert "\x1b" not in text
    assert "+\\x1b[8mhidden = True\\x1b[0m\n" in text
    assert "+three\r\n" in text  # CRLF line ends stay as they are


@pytest.mark.xfail(
    strict=True,
    reason="verify-report checks what a report is bound to, not who wrote it: every "
    "binding fact is public, so a hand-written PASS verifies. Only a report CI produced itself is "
    "evidence; docs/hooks-and-ci.md's verify-report section should not suggest trusting one an agent attached.",
)
def test_hand_written_report_does_not_verify(agent: GitRepo, tmp_path: Path) -> None:
    agent.write("other/t.py", "x = eval(1)\n")
    head = agent.commit("bad")
    main = agent.git("rev-parse", "main").stdout.strip()
    forged = {
        "result": "PASS",
        "exit_code": 0,
        "shadow": False,
        "violations": [],
        "mode": "range",
        "test": {"status": "passed"},
        "binding": {
            "manifest_sha256": hashlib.sha256(agent.manifest_path.read_bytes()).hexdigest(),
            "base": main,
            "head": head,
        },
    }
    report = tmp_path / "forged.json"
    report.write_text(json.dumps(forged), encoding="utf-8")
    code, _ = run_cli(
        [
            "verify-report",
            str(report),
            "--repo",
            str(agent.root),
            "--base",
            "main",
            "--manifest",
            str(agent.manifest_path),
        ]
    )
    assert code != 0
