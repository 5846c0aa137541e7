"""The spec pass holds what the approver committed plus the job's code, and nothing else that runs
implicitly: files the job adds under the test paths, files an interpreter or runner loads without
being asked (sitecustomize, *.pth, *.dist-info), every file pytest reads as its configuration
(pytest.toml included), and a runner in the job's tree (checkout.py, docs/required-test.md).

Each attack leaves calc.py wrong and turned into RESULT: PASS on the code before these fences; it
must FAIL in worktree mode and in `--base` mode. Each legitimate neighbour must PASS.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.testing.calc import BUGGY, FIXED, PASS_ALL, calc_project, score_in
from tests.testing.calc import SPEC_CASES as SPEC
from tests.testing.calc import passed as _passed
from tests.testing.repo import GitRepo, Outcome

PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:randomly",
    "-p",
    "no:cacheprovider",
]  # pytest finds tests/ itself
REBIND = "import calc\n\ncalc.add = lambda a, b: a + b\n"
# `python -m pytest` runs this when the job's tree comes first: it writes the report the evidence
# check expects, naming every base test as passed, and never runs one.
FAKE_PYTEST = textwrap.dedent(
    """\
    import sys

    report = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--junitxml="))
    names = ["test_add[1-2-3]", "test_add[2-2-4]", "test_add[0-5-5]", "test_add_zero"]
    cases = "".join(f'<testcase classname="tests.test_calc" name="{n}" time="0.001"/>' for n in names)
    with open(report, "w") as fh:
        fh.write(
            '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" '
            f'failures="0" skipped="0" tests="4">{cases}</testsuite></testsuites>'
        )
    print("4 passed")
    """
)
DIST_INFO = {
    "calc_tools-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: calc-tools\nVersion: 1.0\n",
    "calc_tools-1.0.dist-info/entry_points.txt": "[pytest11]\ncalc_tools = calc_plugin\n",
    "calc_plugin.py": PASS_ALL,
}

ATTACKS = {
    "tests-shadow-module": {"tests/calc.py": FIXED},
    "tests-new-module-rebinds": {"tests/aaa_test.py": REBIND + "\n\ndef test_nothing():\n    pass\n"},
    "tests-helper-rebinds": {"tests/helpers/__init__.py": REBIND, "tests/aab_test.py": "import helpers\n"},
    "pytest-toml": {"pytest.toml": '[pytest]\naddopts = ["-p", "calc_plugin"]\n', "calc_plugin.py": PASS_ALL},
    "dot-pytest-toml": {".pytest.toml": '[pytest]\naddopts = ["-p", "calc_plugin"]\n', "calc_plugin.py": PASS_ALL},
    "sitecustomize": {"sitecustomize.py": REBIND},
    "dist-info-entry-point": DIST_INFO,
    "egg-info-entry-point": {k.replace("-1.0.dist-info", ".egg-info"): v for k, v in DIST_INFO.items()},
    "runner-shadowed": {"src/pytest/__init__.py": "", "src/pytest/__main__.py": FAKE_PYTEST},
}


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    """calc.py has a bug the base's tests/test_calc.py catches; the job may change any path, so only
    the spec pass's fence stands."""
    return calc_project(repo, SPEC, ["**"], ["tests/test_*.py"], required_test=PYTEST)


def _score(repo: GitRepo, mode: str) -> Outcome:
    return score_in(repo, mode, "the job", from_main=True)


@pytest.mark.parametrize("mode", ["worktree", "base"])
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_cheat_outside_the_protected_tests_fails(project: GitRepo, attack: str, mode: str) -> None:
    for path, text in ATTACKS[attack].items():
        project.write(path, text)
    out = _score(project, mode)
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL", f"{attack}\n{out.text}"
    assert out.report["test"]["status"] == "failed" or "runner-shadowed" in out.codes, out.text


# --- the legitimate neighbours -------------------------------------------------------------------

NEIGHBOURS = {
    "real-fix": {},
    "new-test-module": {
        "tests/test_more.py": "from calc import add\n\n\ndef test_more():\n    assert add(2, 3) == 5\n"
    },
    "new-test-helper": {
        "tests/helpers/__init__.py": "def twice(x):\n    return x + x\n",
        "tests/test_twice.py": "from calc import add\nfrom helpers import twice\n\n\n"
        "def test_twice():\n    assert add(2, 2) == twice(2)\n",
    },
    "module-named-like-nothing-installed": {"calc_extras/__init__.py": "from calc import add\n"},
}


@pytest.mark.parametrize("mode", ["worktree", "base"])
@pytest.mark.parametrize("neighbour", sorted(NEIGHBOURS))
def test_a_real_fix_beside_new_files_passes(project: GitRepo, neighbour: str, mode: str) -> None:
    project.write("calc.py", FIXED)
    for path, text in NEIGHBOURS[neighbour].items():
        project.write(path, text)
    out = _score(project, mode)
    assert _passed(out), f"{neighbour}\n{out.text}"


BASE_SHIPS = {
    "sitecustomize": {"sitecustomize.py": "import os\n\nos.environ.setdefault('CALC_SITE', '1')\n"},
    "vendored-runner-name": {"vendor/pluggy_compat/__init__.py": "", "unittest_helpers.py": "X = 1\n"},
    "plugin-in-its-configuration": {
        "pytest.ini": "[pytest]\naddopts = -p calc_marks\n",
        "calc_marks.py": "def pytest_configure(config):\n    config.addinivalue_line('markers', 'calc: calc')\n",
    },
    "pytest-toml": {"pytest.toml": '[pytest]\naddopts = ["-ra"]\n'},
    # -n is pytest-xdist's, an installed plugin pytest autoloads: the spec pass loads it by name
    "autoloaded-plugin": {"pytest.ini": "[pytest]\naddopts = -n 0\n"},
}


@pytest.mark.parametrize("mode", ["worktree", "base"])
@pytest.mark.parametrize("ships", sorted(BASE_SHIPS))
def test_what_the_base_ships_runs_in_the_spec_pass(repo: GitRepo, ships: str, mode: str) -> None:
    """A sitecustomize, a plugin its configuration names, a pytest.toml: the base's own, unchanged."""
    repo.write("calc.py", BUGGY)
    repo.write("tests/test_calc.py", SPEC)
    repo.write(".gitignore", "__pycache__/\n*.pyc\n")
    for path, text in BASE_SHIPS[ships].items():
        repo.write(path, text)
    repo.commit("calc with a bug, and its tests")
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.manifest(allowed_paths=["**"], protected_tests=["tests/test_*.py"], required_test=PYTEST)
    repo.write("calc.py", FIXED)
    out = _score(repo, mode)
    assert _passed(out), f"{ships}\n{out.text}"


# --- the checkout kept from run to run (issue 29, item 3) ---------------------------------------


@pytest.fixture
def kept_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary directory of this test's own, where the kept checkouts go."""
    import tempfile

    from scorer.testrun import checkout

    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(checkout.Workdir, "switch_from", 0)  # these trees are small: switch them all the same
    return temp


def _trees(repo: GitRepo) -> tuple[Any, str, str]:
    from scorer.inspection.git import Repository

    repo.write("calc.py", BUGGY)
    repo.write("pkg/util.py", "X = 1\n")
    repo.write("run.sh", "#!/bin/sh\necho hi\n", mode=0o755)
    repo.write(".gitignore", "*.pyc\n__pycache__/\n")
    first = repo.commit("first")
    repo.write("calc.py", FIXED)
    repo.write("pkg/new.py", "Y = 2\n")
    (repo.root / "pkg/util.py").unlink()
    second = repo.commit("second")
    git = Repository(repo.root)
    return git, git.tree_id(first), git.tree_id(second)


def _hold(git: Any, scratch: Path, tree: str, key: str | None = "a" * 24) -> Any:
    from scorer.testrun import checkout

    scratch.mkdir(exist_ok=True)
    with checkout.workdir(git, str(scratch), key) as work:
        root = work.hold(tree)
        assert git.tree_of_checkout(root, str(scratch / "check.index")) == tree
        return work


def test_the_kept_checkout_is_switched_not_written_whole(repo: GitRepo, kept_tmp: Path, tmp_path: Path) -> None:
    git, first, second = _trees(repo)
    assert _hold(git, tmp_path / "run1", first).written == 1
    work = _hold(git, tmp_path / "run2", second)
    assert work.written == 0 and Path(work.root).is_relative_to(kept_tmp)
    assert (Path(work.root) / "calc.py").read_text() == FIXED and not (Path(work.root) / "pkg/util.py").exists()
    assert _hold(git, tmp_path / "run3", first).written == 0


def _forge_stat(index: Path, root: Path, *paths: str) -> None:
    """Copy each file's stat data into its entry of `index`, as the job's code can: git then takes the
    file for the indexed blob (read-tree -u and diff-files see nothing to rewrite)."""
    data = bytearray(index.read_bytes())
    signature, version, count = struct.unpack(">4sII", data[:12])
    assert signature == b"DIRC" and version in (2, 3)
    wanted, pos = {os.fsencode(p) for p in paths}, 12
    for _ in range(count):
        flags = struct.unpack(">H", data[pos + 60 : pos + 62])[0]
        name_at = pos + 62 + (2 if version >= 3 and flags & 0x4000 else 0)
        end = data.index(b"\0", name_at)
        name = bytes(data[name_at:end])
        if name in wanted:
            st = os.lstat(root / os.fsdecode(name))
            mode = struct.unpack(">I", data[pos + 24 : pos + 28])[0]
            stats = (int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime), st.st_mtime_ns % 10**9)
            rest = (st.st_dev & 0xFFFFFFFF, st.st_ino & 0xFFFFFFFF, mode, st.st_uid, st.st_gid, st.st_size)
            data[pos : pos + 40] = struct.pack(">10I", *(v & 0xFFFFFFFF for v in (*stats, *rest)))
            wanted.discard(name)
        pos += ((end - pos) // 8 + 1) * 8
    assert not wanted
    body = bytes(data[:-20])
    index.write_bytes(body + hashlib.sha1(body).digest())


@pytest.mark.parametrize(
    "tamper",
    ["stray-conftest", "ignored-pyc", "pycache", "forged-stat", "mode", "nested-repo", "empty-dir", "index-gone"],
)
def test_what_a_run_left_in_the_kept_checkout_does_not_survive(
    repo: GitRepo, kept_tmp: Path, tmp_path: Path, tamper: str
) -> None:
    """Between runs the job's code can write the kept checkout and its index: whatever it did, the next
    run holds exactly the tree (every file hashed afresh), switched or written whole."""
    git, first, second = _trees(repo)
    root = Path(_hold(git, tmp_path / "run1", first).root)
    index = root.parent / "tree.index"
    if tamper == "stray-conftest":
        (root / "conftest.py").write_text("def pytest_collection_modifyitems(items):\n    items.clear()\n")
    elif tamper == "ignored-pyc":
        (root / "calc.pyc").write_bytes(b"\0" * 16)
    elif tamper == "pycache":
        (root / "pkg/__pycache__").mkdir()
        (root / "pkg/__pycache__/util.cpython-311.pyc").write_bytes(b"\0" * 16)
    elif tamper == "forged-stat":  # calc.py fixed in the checkout, its stat copied into the index
        (root / "calc.py").write_text(FIXED)
        _forge_stat(index, root, "calc.py")
    elif tamper == "mode":
        (root / "run.sh").chmod(0o644)
        _forge_stat(index, root, "run.sh")
    elif tamper == "nested-repo":
        subprocess.run(["git", "init", "-q", str(root / "pkg/inner")], check=True)
    elif tamper == "empty-dir":
        (root / "pkg/calc").mkdir()
    else:
        index.unlink()
    work = _hold(git, tmp_path / "run2", first)  # the same tree again: only verification tells
    assert (Path(work.root) / "calc.py").read_text() == BUGGY
    assert not (Path(work.root) / "conftest.py").exists() and not (Path(work.root) / "pkg/calc").exists()


@pytest.mark.parametrize("verified", [True, False])
def test_a_switch_that_leaves_a_planted_file_is_caught_by_the_fresh_hashes(
    repo: GitRepo, kept_tmp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verified: bool
) -> None:
    """The attacker test behind the verification: a switch that trusts what the index says (as
    git does when the job forged its stat data) leaves the planted fix; the fresh hashes see it and
    the checkout is written whole. With the verification skipped, the planted fix would be run."""
    from scorer.inspection.git import Repository
    from scorer.testrun import checkout

    git, first, _ = _trees(repo)
    root = Path(_hold(git, tmp_path / "run1", first).root)
    (root / "calc.py").write_text(FIXED)
    monkeypatch.setattr(Repository, "switch_checkout", lambda self, tree, work_tree, index: None)
    if not verified:
        monkeypatch.setattr(Repository, "tree_of_checkout", lambda self, work_tree, index: first)
    (tmp_path / "run2").mkdir()
    with checkout.workdir(git, str(tmp_path / "run2"), "a" * 24) as work:
        held = (Path(work.hold(first)) / "calc.py").read_text()
    assert (held, work.written) == ((BUGGY, 1) if verified else (FIXED, 0))


def test_a_run_beside_this_one_gets_its_own_checkout(repo: GitRepo, kept_tmp: Path, tmp_path: Path) -> None:
    from scorer.testrun import checkout

    git, first, second = _trees(repo)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with checkout.workdir(git, str(tmp_path / "a"), "b" * 24) as one:
        with checkout.workdir(git, str(tmp_path / "b"), "b" * 24) as other:
            assert Path(other.hold(second)).is_relative_to(tmp_path / "b")
        assert Path(one.hold(first)).is_relative_to(kept_tmp)


@pytest.mark.parametrize("unsafe", ["others-may-write", "a-link", "a-config-above"])
def test_a_kept_place_that_is_not_this_users_alone_is_not_used(
    repo: GitRepo, kept_tmp: Path, tmp_path: Path, unsafe: str
) -> None:
    git, first, _ = _trees(repo)
    parent = kept_tmp / f"score-diff-checkouts-{os.getuid()}"
    if unsafe == "others-may-write":
        parent.mkdir(mode=0o700)
        parent.chmod(0o777)
    elif unsafe == "a-link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        parent.symlink_to(tmp_path / "elsewhere")
    else:
        parent.mkdir(mode=0o700)
        (parent / "pytest.ini").write_text("[pytest]\naddopts = -k nothing\n")
    work = _hold(git, tmp_path / "run1", first)
    assert Path(work.root).is_relative_to(tmp_path / "run1")


def test_only_the_most_recent_checkouts_are_kept(repo: GitRepo, kept_tmp: Path, tmp_path: Path) -> None:
    from scorer.testrun import checkout

    git, first, _ = _trees(repo)
    for n in range(checkout.KEPT + 3):
        _hold(git, tmp_path / f"run{n}", first, key=f"{n:024x}")
    parent = kept_tmp / f"score-diff-checkouts-{os.getuid()}"
    assert len([p for p in parent.iterdir() if p.is_dir()]) == checkout.KEPT


def test_a_small_checkout_is_written_whole_rather_than_switched(
    repo: GitRepo, kept_tmp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.testrun import checkout

    git, first, second = _trees(repo)
    _hold(git, tmp_path / "run1", first)
    monkeypatch.setattr(checkout.Workdir, "switch_from", 64 << 10)
    work = _hold(git, tmp_path / "run2", second)
    assert work.written == 1 and Path(work.root).is_relative_to(kept_tmp)


def test_two_scorings_write_the_checkout_once(
    project: GitRepo, kept_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the second scoring of the same job reaches every tree by switching the kept
    checkout, and gets the same verdicts (a wrong fix FAILs, the real one PASSes)."""
    from scorer.testrun import checkout

    written: list[str] = []
    real = checkout.check_out

    def counting(repo: Any, tree: str, into: str, index_file: str) -> None:
        written.append(tree)
        real(repo, tree, into, index_file)

    monkeypatch.setattr(checkout, "check_out", counting)
    project.write("calc.py", BUGGY.replace("a - b", "a * b"))
    out = project.score(skip_test=False)
    assert out.exit_code == 1 and "test-failed" in out.codes, out.text
    assert len(written) == 1
    project.write("calc.py", FIXED)
    assert _passed(project.score(skip_test=False))
    assert len(written) == 1
