"""The base paid once: the base's collected test ids are cached by base tree, configuration,
runner and environment, and an entry that is corrupt, foreign or for another key is ignored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.testrun import base_cache, basetests, cache_store, session
from tests.testing.calc import BUGGY, FIXED, PASS_ALL, PYTEST, SPEC, calc_project, counted_calls
from tests.testing.repo import GitRepo, Outcome

# The job's code skips the base's tests from the module they import: they never run.
SKIPPING = "import pytest\n\npytest.skip('not today', allow_module_level=True)\n" + FIXED


@pytest.fixture
def collections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    return counted_calls(monkeypatch, session, "_base_tests")


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    return calc_project(repo, SPEC, ["calc.py", "tests/**", "conftest.py"])


def _score(repo: GitRepo) -> Outcome:
    return repo.score(skip_test=False)


def _entries(repo: GitRepo) -> list[Path]:
    return sorted((repo.root / ".git" / "score-diff" / "cache" / base_cache.KIND).glob("*.json"))


def test_the_base_is_collected_once_for_every_change_on_it(project: GitRepo, collections: list[int]) -> None:
    project.write("calc.py", FIXED)
    assert _score(project).exit_code == 0
    project.write("calc.py", FIXED + "\n# another change on the same base\n")
    assert _score(project).exit_code == 0
    assert len(collections) == 1
    assert len(_entries(project)) == 1


def test_a_virtualenv_on_the_system_site_packages_is_collected_once(
    repo: GitRepo, collections: list[int], tmp_path: Path
) -> None:
    """Its pytest comes from the base interpreter's site-packages (pyvenv.cfg's home), as in CI
    images: the runner's version is found there, so the base is still paid once."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    project = calc_project(repo, SPEC, ["calc.py", "tests/**", "conftest.py"], required_test=[python, *PYTEST[1:]])
    project.write("calc.py", FIXED)
    assert _score(project).exit_code == 0
    project.write("calc.py", FIXED + "\n# another change on the same base\n")
    assert _score(project).exit_code == 0
    assert len(collections) == 1


def test_a_cached_collection_still_catches_a_base_test_that_did_not_run(
    project: GitRepo, collections: list[int]
) -> None:
    project.write("calc.py", FIXED)
    assert _score(project).exit_code == 0
    project.write("calc.py", SKIPPING)
    out = _score(project)
    assert len(collections) == 1
    assert out.exit_code == 1 and "test-missing" in out.codes, out.text


def test_a_new_base_or_manifest_collects_again(project: GitRepo, collections: list[int]) -> None:
    project.write("calc.py", FIXED)
    _score(project)
    project.commit("the fix, committed: the next scoring's base is another tree")
    project.write("calc.py", FIXED + "\n# more\n")
    _score(project)
    assert len(collections) == 2
    project.manifest(
        allowed_paths=["calc.py", "tests/**", "conftest.py", "README.md"],
        protected_tests=["tests/**"],
        required_test=PYTEST,
        always_run_test=True,
    )
    _score(project)
    assert len(collections) == 3


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-10])


def _edited(path: Path) -> None:  # a test dropped from the ids: the content digest no longer holds
    doc = json.loads(path.read_text())
    doc["value"]["tests"] = doc["value"]["tests"][:1]
    path.write_text(json.dumps(doc))


def _misshapen(path: Path) -> None:  # the digest holds, the value is not the base run's record
    doc = json.loads(path.read_text())
    doc["value"] = [["test_calc.py::test_one", "test_calc.py", []]]
    doc["sha256"] = cache_store.digest({k: doc[k] for k in ("format", "key", "value")})
    path.write_text(json.dumps(doc))


def _another_key(path: Path) -> None:  # an entry stored for another base, under this key's name
    doc = json.loads(path.read_text())
    doc["key"]["base_tree"] = "0" * 40
    doc["sha256"] = cache_store.digest({k: doc[k] for k in ("format", "key", "value")})
    path.write_text(json.dumps(doc))


def _group_writable(path: Path) -> None:
    path.chmod(0o666)


def _foreign(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another user")
    os.chown(path, 4242, 4242)


def _symlink(path: Path) -> None:
    path.rename(path.with_name("elsewhere"))
    path.symlink_to(path.with_name("elsewhere"))


@pytest.mark.parametrize("fault", [_truncated, _edited, _misshapen, _another_key, _group_writable, _foreign, _symlink])
def test_an_entry_that_is_not_whole_and_ours_is_ignored(
    project: GitRepo, collections: list[int], fault: Callable[[Path], None]
) -> None:
    project.write("calc.py", FIXED)
    _score(project)
    (entry,) = _entries(project)
    fault(entry)
    project.write("calc.py", SKIPPING)
    out = _score(project)
    assert len(collections) == 2
    assert out.exit_code == 1 and "test-missing" in out.codes, out.text


@pytest.mark.parametrize(
    "name", ["pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"]
)
def test_a_pytest_configuration_appearing_above_the_checkout_changes_the_key(tmp_path: Path, name: str) -> None:
    below = tmp_path / "a" / "b"
    below.mkdir(parents=True)
    before = base_cache.configs_above(str(below))
    (tmp_path / "a" / name).write_text("[pytest]\naddopts = -k nothing\n")
    assert base_cache.configs_above(str(below)) != before


def test_an_unknown_runner_is_never_cached(tmp_path: Path) -> None:
    program = tmp_path / "bin" / "pytest"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert base_cache.runner_version((str(program),), {}, None) is None  # no pytest dist-info beside it
    assert base_cache.runner_version((sys.executable, "-m", "pytest"), {}, None)  # this venv's pytest


# A plugin the job ships as installed metadata (PASS_ALL: every report it sees becomes "passed").
# importlib.metadata finds a metadata directory by its lower-cased name (Lookup in
# importlib/metadata/__init__.py), so `.DIST-INFO` is one too: only entry-point autoload off keeps it out.
DIST_INFO = {
    "calc_tools-1.0.DIST-INFO/METADATA": "Metadata-Version: 2.1\nName: calc-tools\nVersion: 1.0\n",
    "calc_tools-1.0.DIST-INFO/entry_points.txt": "[pytest11]\ncalc_tools = calc_plugin\n",
    "calc_plugin.py": PASS_ALL,
}


def test_a_cached_base_run_still_keeps_the_jobs_entry_point_plugin_out(
    project: GitRepo, collections: list[int]
) -> None:
    project.manifest(allowed_paths=["**"], protected_tests=["tests/**"], required_test=PYTEST, always_run_test=True)
    project.write("calc.py", FIXED)
    assert _score(project).exit_code == 0  # warms the cache
    project.write("calc.py", BUGGY)
    for path, text in DIST_INFO.items():
        project.write(path, text)
    out = _score(project)
    assert len(collections) == 1, "the second run must be a cache hit"
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL", out.text
    assert out.report["test"]["status"] == "failed", out.text


def test_a_cached_base_run_keeps_the_plugins_the_base_loaded(tmp_path: Path) -> None:
    found = basetests.Collected((), plugins=("xdist", "randomly"))
    assert basetests.from_json(json.loads(json.dumps(basetests.to_json(found)))).plugins == ("xdist", "randomly")
    old = basetests.to_json(found)
    del old["plugins"]  # a record from before plugins were kept: what the base loaded is unknown
    assert base_cache._from_plain(old) is None


# A base test whose id names the checkout it ran in (psf/requests parametrizes one with __file__):
# each run checks out into a directory of its own, so a cached id must not keep the old one.
WHERE = 'import pytest\n\n\n@pytest.mark.parametrize("where", [__file__])\ndef test_where(where):\n    assert where\n'


def test_a_cached_id_that_names_the_checkout_names_this_runs_checkout(
    project: GitRepo, collections: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.testrun import checkout

    monkeypatch.setattr(checkout, "kept_key", lambda *args: None)  # no kept checkout: one per run, as under load
    project.write("tests/test_where.py", WHERE)
    project.commit("a test whose id names its own file")
    project.write("calc.py", FIXED)
    first = _score(project)
    assert first.exit_code == 0, first.text
    project.write("calc.py", FIXED + "\n# another change on the same base\n")
    second = _score(project)
    assert second.exit_code == 0 and "test-missing" not in second.codes, second.text
    assert len(collections) == 1
    project.write("calc.py", BUGGY + "\n# still wrong\n")
    assert "test-failed" in _score(project).codes  # the cached record still holds the base's outcomes
