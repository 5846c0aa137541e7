"""scorer/testrun/configfile.py: the spec pass's configuration file is pytest's own answer, and it
must be the file the fence predicts, inside the checkout, and the base's.

End to end, the neighbours: real fixes under each way of configuring pytest pass, so the check
does not fire where the fence holds. The firing cases (another file, one outside the checkout, one
not the base's, one pytest would stop on, no answer, a forged second answer) are judged on the
plugin's lines: the fence already takes every file pytest 9 reads from the base (a `-c` file is
one of the required test's files), so no change reaches them end to end today; the check is what
fails closed the day pytest reads a file the fence does not know.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scorer.testrun import configfile, stream
from tests.testing.repo import GitRepo, Outcome

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
# (pytest's extra arguments, the base's configuration files)
CONFIGURED = {
    "named-with-c": (["-c", "ci/pytest-ci.ini"], {"ci/pytest-ci.ini": "[pytest]\naddopts = -ra\n"}),
    "tox-ini-beside-a-bare-pyproject": ([], {"tox.ini": "[pytest]\n", "pyproject.toml": "[project]\nname = 'c'\n"}),
    "pyproject-tool-pytest": ([], {"pyproject.toml": '[tool.pytest]\nminversion = "8.0"\n'}),
    "none": ([], {}),
}


def _project(repo: GitRepo, args: list[str], files: dict[str, str]) -> GitRepo:
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
    repo.write("tests/test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    for path, text in files.items():
        repo.write(path, text)
    repo.write(".gitignore", "__pycache__/\n*.pyc\n")
    repo.commit("calc with a bug, its test, pytest's configuration")
    repo.git("checkout", "-q", "-b", "agent-fix")
    repo.manifest(
        allowed_paths=["calc.py"],
        protected_tests=["tests/**"],
        required_test=[*PYTEST, *args, "tests"],
        always_run_test=True,
        test_envelope="off",
    )
    return repo


def _score(repo: GitRepo, mode: str) -> Outcome:
    if mode == "worktree":
        return repo.score(skip_test=False)
    repo.commit("the job's change")
    return repo.score("--base", "main", "--head", "agent-fix", skip_test=False)


@pytest.mark.slow  # scores a real repository, running pytest four times
@pytest.mark.parametrize("mode", ["worktree", "range"])
@pytest.mark.parametrize("case", sorted(CONFIGURED))
def test_the_file_pytest_reports_is_the_predicted_one_and_a_real_fix_passes(
    repo: GitRepo, mode: str, case: str
) -> None:
    _project(repo, *CONFIGURED[case])
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    out = _score(repo, mode)
    assert out.exit_code == 0 and out.codes == set() and out.last_line == "RESULT: PASS", out.text


# --- the judgement alone, on the plugin's lines ------------------------------------------------------

ROOT = "/scratch/checkout"


def _said(*configs: tuple[str, str]) -> stream.Stream:
    return stream.Stream({}, 0, 0, (), configs)


@pytest.mark.parametrize(
    ("configs", "files", "unchanged", "expect"),
    [
        ((("", ROOT),), {}, True, ""),
        (((f"{ROOT}/tox.ini", ROOT),), {"tox.ini": "[pytest]\n"}, True, ""),
        (((f"{ROOT}/tox.ini", ROOT),), {"tox.ini": "[pytest]\n"}, False, "not the base's"),
        (((f"{ROOT}/tox.ini", ROOT),), {"tox.ini": "[tox]\n", "setup.cfg": "[tool:pytest]\n"}, True, "predicted"),
        (((f"{ROOT}/../pytest.ini", ROOT),), {}, True, "outside the checkout"),
        (((f"{ROOT}/setup.cfg", ROOT),), {"setup.cfg": "[pytest]\n"}, True, "cannot be told"),
        ((), {}, True, "never said"),
        ((("", ROOT), (f"{ROOT}/tox.ini", ROOT)), {"tox.ini": "[pytest]\n"}, True, "2 different answers"),
    ],
    ids=["none", "base-file", "not-base", "mismatch", "outside", "unknown", "silent", "forged-second-line"],
)
def test_the_judgement(
    tmp_path: Path, configs: tuple[tuple[str, str], ...], files: dict[str, str], unchanged: bool, expect: str
) -> None:
    root = tmp_path
    for path, text in files.items():
        (root / path).write_text(text)
    said = _said(*((c.replace(ROOT, str(root)), s.replace(ROOT, str(root))) for c, s in configs))
    why = configfile.problem(said, str(root), ["tests"], lambda path: unchanged)
    assert (expect in why) if expect else why == "", why


def test_the_configuration_check_lists_no_tree_twice(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check after the spec pass reads the base's and the spec's listings that checkout.plan
    already read (a tree id names its content): each tree is listed by git once per run."""
    from scorer.inspection.git import Repository

    listed: list[str] = []
    real = Repository.tree_listing

    def counting(self: Repository, tree: str) -> dict[str, tuple[str, str]]:
        listed.append(tree)
        return real(self, tree)

    monkeypatch.setattr(Repository, "tree_listing", counting)
    _project(repo, [], {"tox.ini": "[pytest]\naddopts = -ra\n"}).write("calc.py", "def add(a, b):\n    return a + b\n")
    out = _score(repo, "worktree")
    assert out.exit_code == 0 and out.last_line == "RESULT: PASS", out.text
    assert len(listed) == 2 and len(set(listed)) == 2, listed


def test_the_test_runner_imports_tomllib_only_to_read_a_pyproject(repo: GitRepo) -> None:
    """Every scoring that runs the required test imports the runner; tomllib (with its regular
    expressions and datetime) is imported when a pyproject.toml is read, not before."""
    from scorer.testrun import pytest_configfile
    from tests.testing import imports

    code, _, names = imports.imported(repo, ["-c", "import scorer.testrun.session, scorer.testrun.configfile"])
    assert code == 0
    assert "scorer.testrun.pytest_configfile" in names
    assert "tomllib" not in names
    assert pytest_configfile._toml(b"[tool.pytest.ini_options]\naddopts = '-q'\n") == {
        "tool": {"pytest": {"ini_options": {"addopts": "-q"}}}
    }
