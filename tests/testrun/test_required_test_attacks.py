"""The required test, attacked from inside: it runs code the job wrote.

Each door: the attack that must fail, the legitimate neighbour that must pass, and the
next variant of the same cause. The test process may leave processes behind, change the
tree it was run on, stop before any assertion, or be steered by the environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.testing.repo import GitRepo, Outcome

FAIL = "RESULT: FAIL"
PASS = "RESULT: PASS"


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == FAIL


def passed(out: Outcome) -> bool:
    return out.exit_code == 0 and out.codes == set() and out.last_line == PASS


@pytest.fixture
def ready(committed: GitRepo) -> GitRepo:
    """A committed repo with one allowed change, so only the test decides."""
    committed.write("allowed/a.py", "fixed\n")
    return committed


def score_in_subprocess(repo: GitRepo, bound_s: float) -> tuple[int, dict, float]:
    """score-diff in a child process with its own timeout: a hang is a failed test, never a hung suite."""
    report = repo.scratch / "sub-report.json"
    argv = [
        sys.executable,
        "-m",
        "scorer",
        "--repo",
        str(repo.root),
        "--manifest",
        str(repo.manifest_path),
        "--format",
        "json",
        "--output",
        str(report),
        "--no-log",
    ]
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=bound_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"score-diff still waiting after {bound_s}s: the test's leftovers kept it waiting")
    return proc.returncode, json.loads(report.read_text(encoding="utf-8")), time.monotonic() - started


# A grandchild in its own session: killing the test's process group does not reach it,
# and it holds the test's output pipe open for 30 seconds.
DETACHED = (
    "import subprocess, sys\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], start_new_session=True)\n"
    "print('started', flush=True)\n"
)


# --- the timeout always ends the run ---------------------------------------------------------------


def test_timeout_with_a_detached_grandchild_holding_the_pipe(ready: GitRepo) -> None:
    ready.manifest(required_test=py(DETACHED + "import time; time.sleep(30)"), test_timeout_s=3)
    code, report, took = score_in_subprocess(ready, bound_s=20)
    assert code == 1 and {v["code"] for v in report["violations"]} == {"test-timeout"}
    assert report["test"]["status"] == "timeout"
    assert "started" in report["test"]["output_tail"]
    assert took < 15


def test_exit_0_leaving_a_detached_grandchild_holding_the_pipe(ready: GitRepo) -> None:
    """The test ends at once with exit 0, but something it started lives on and still writes: the
    launcher (the subreaper of everything the test starts) ends it, and the report says so."""
    ready.manifest(required_test=py(DETACHED), test_timeout_s=60)
    code, report, took = score_in_subprocess(ready, bound_s=20)
    if os.name != "posix":  # no launcher: the grandchild holds the pipe, and the run fails
        assert code == 1 and "outlived" in report["test"]["reason"]
        return
    assert code == 0 and report["violations"] == [], report
    assert any("ended 1 process(es) the test left running" in w for w in report["warnings"])
    assert took < 15


def test_timeout_with_a_grandchild_in_the_group(ready: GitRepo) -> None:
    """`sh -c 'sleep 30 & exec sleep 30'`: the grandchild stays in the group and dies with it."""
    ready.manifest(required_test=["sh", "-c", "echo started; sleep 30 & exec sleep 30"], test_timeout_s=3)
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-timeout") and out.codes == {"test-timeout"}
    assert "started" in out.report["test"]["output_tail"]


def test_background_process_in_the_group_is_stopped_when_the_test_ends(ready: GitRepo) -> None:
    """A test that exits 0 but leaves a writer running in its group: that writer is killed at the end."""
    marker = ready.scratch / "late-write"
    late = f"import time; time.sleep(1.5); open({str(marker)!r}, 'w').close()"
    script = (
        "import subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', {late!r}], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL)\n"
    )
    ready.manifest(required_test=py(script))
    out = ready.score(skip_test=False)
    time.sleep(2.5)
    assert not marker.exists()
    assert out.exit_code == 0, out.text


def test_quick_passing_test_is_not_slowed_by_the_drain(ready: GitRepo) -> None:
    ready.manifest(required_test=py("print('ok')"))
    started = time.monotonic()
    out = ready.score(skip_test=False)
    assert passed(out), out.text
    assert time.monotonic() - started < 1.5


# --- the environment the test inherits ---------------------------------------------------------------


def _base_python() -> str:
    """An interpreter outside any virtualenv: its user site is on (a venv's never is)."""
    return getattr(sys, "_base_executable", sys.executable)


def test_usercustomize_in_the_user_site_cannot_turn_a_failure_into_a_pass(ready: GitRepo) -> None:
    python = _base_python()
    site_dir = subprocess.run(
        [python, "-c", "import site; print(site.getusersitepackages())"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    ).stdout.strip()
    if not site_dir.startswith(os.environ["HOME"]):
        pytest.skip("this interpreter's user site is not under HOME")
    Path(site_dir).mkdir(parents=True, exist_ok=True)
    (Path(site_dir) / "usercustomize.py").write_text("import atexit, os\natexit.register(os._exit, 0)\n")
    ready.manifest(required_test=[python, "-c", "import sys; sys.exit(1)"])
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-failed"), out.text


@pytest.mark.parametrize("entry", ["tools", "", "."])
def test_relative_path_entries_cannot_put_a_fake_interpreter_first(ready: GitRepo, monkeypatch, entry: str) -> None:
    """A relative PATH entry resolves inside the repository, where the job writes (ignored files too)."""
    ready.write(".gitignore", "tools/\npython3\n")
    ready.commit("ignore tools")
    ready.write("allowed/a.py", "fixed again\n")
    fake = "#!/bin/sh\nexit 0\n"
    ready.write("tools/python3", fake, mode=0o755)
    ready.write("python3", fake, mode=0o755)
    monkeypatch.setenv("PATH", entry + os.pathsep + os.environ["PATH"])
    ready.manifest(required_test=["python3", "-c", "import sys; sys.exit(1)"])
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-failed"), out.text


def test_absolute_path_entries_still_work(ready: GitRepo, monkeypatch) -> None:
    tools = ready.scratch / "bin"
    tools.mkdir()
    (tools / "my-test").write_text(f"#!/bin/sh\nexec {sys.executable} -c pass\n")
    (tools / "my-test").chmod(0o755)
    monkeypatch.setenv("PATH", str(tools) + os.pathsep + os.environ["PATH"])
    ready.manifest(required_test=["my-test"])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.codes == set(), out.text


def test_program_found_inside_the_repository_is_named_in_a_warning(ready: GitRepo, monkeypatch) -> None:
    """An ignored, in-repository bin directory on PATH (an in-repo virtualenv): allowed, and said."""
    ready.write(".gitignore", ".venv/\n")
    ready.commit("ignore the venv")
    ready.write("allowed/a.py", "fixed again\n")
    ready.write(".venv/bin/run-tests", f"#!/bin/sh\nexec {sys.executable} -c pass\n", mode=0o755)
    monkeypatch.setenv("PATH", str(ready.root / ".venv/bin") + os.pathsep + os.environ["PATH"])
    ready.manifest(required_test=["run-tests"])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0, out.text
    assert any(".venv/bin/run-tests" in w and "inside the repository" in w for w in out.report["warnings"])


@pytest.mark.parametrize(("test_env", "expect"), [([], "1 1"), (["PYTHONNOUSERSITE"], "None 1")])
def test_hardened_python_variables(ready: GitRepo, monkeypatch, test_env: list[str], expect: str) -> None:
    """Set for every run; a manifest that names one in test_env passes the caller's value instead."""
    monkeypatch.delenv("PYTHONNOUSERSITE", raising=False)
    check = (
        "import os, sys\n"
        "got = f\"{os.environ.get('PYTHONNOUSERSITE')} {os.environ.get('PYTHONDONTWRITEBYTECODE')}\"\n"
        f"sys.exit(0 if got == {expect!r} else print(got) or 1)"
    )
    ready.manifest(required_test=py(check), test_env=test_env)
    out = ready.score(skip_test=False)
    assert out.exit_code == 0, out.text


@pytest.mark.parametrize(
    ("venv", "path", "kept"),
    [
        # pre-commit's own environment for a `language: python` hook: dropped
        ("/c/pre-commit/repoX/py_env-python3.11", "/c/pre-commit/repoX/py_env-python3.11/bin:/usr/bin", "/usr/bin"),
        # the user's activated virtualenv under a `language: system` hook: kept, it is the project's
        ("/home/u/proj/.venv", "/home/u/proj/.venv/bin:/usr/bin", "/home/u/proj/.venv/bin:/usr/bin"),
        # a sibling whose name merely starts like the environment is not inside it
        ("/c/py_env-3", "/c/py_env-3/bin:/c/py_env-3x/bin", "/c/py_env-3x/bin"),
    ],
)
def test_only_pre_commits_own_environment_leaves_the_tests_path(venv: str, path: str, kept: str) -> None:
    from scorer.testrun.environment import test_environment

    env = test_environment({"PATH": path, "PRE_COMMIT": "1", "VIRTUAL_ENV": venv}, ())
    assert env["PATH"] == kept


# --- side effects: the test may not change what was scored -------------------------------------------


def git_in_test(*args: str) -> str:
    """Python source that runs git inside the required test, as job code could."""
    return f"import subprocess; subprocess.run(['git', '-c', 'user.name=x', '-c', 'user.email=x@x', *{list(args)!r}], check=True)\n"


@pytest.mark.parametrize(
    ("script", "paths"),
    [
        # the attack: new content staged after inspection, committed unscored
        (
            "open('allowed/a.py', 'w').write('eval(payload)\\n')\n" + git_in_test("add", "allowed/a.py"),
            {"allowed/a.py"},
        ),
        # a new file, staged
        ("open('other/new.py', 'w').write('x\\n')\n" + git_in_test("add", "other/new.py"), {"other/new.py"}),
        # a clean file changed on disk only
        ("open('other/b.py', 'a').write('more\\n')\n", {"other/b.py"}),
        # the scored change itself reverted on disk
        ("open('allowed/a.py', 'w').write('one\\ntwo\\nthree\\n')\n", {"allowed/a.py"}),
        # a file created and left untracked
        ("open('other/left.txt', 'w').write('x\\n')\n", {"other/left.txt"}),
        # a file deleted
        ("import os; os.remove('README.txt')\n", {"README.txt"}),
        # an index flag that hides a later edit
        (git_in_test("update-index", "--skip-worktree", "other/b.py"), {"other/b.py"}),
        # the executable bit
        ("import os; os.chmod('other/b.py', 0o755)\n", {"other/b.py"}),
        # HEAD moved: the commit would get another parent
        (git_in_test("commit", "-q", "--no-verify", "--allow-empty", "-m", "x"), {None}),
    ],
    ids=[
        "stage-new-content",
        "stage-new-file",
        "edit-clean",
        "revert-scored",
        "create",
        "delete",
        "skip-worktree",
        "chmod",
        "move-head",
    ],
)
def test_the_test_may_not_change_what_was_scored(ready: GitRepo, script: str, paths: set) -> None:
    # The test runs in a temporary checkout; job code that knows where the repository is goes there.
    # The envelope refuses those writes (tests/testrun/test_envelope.py); the snapshot is the backstop
    # where the envelope cannot confine writes, which "off" stands in for here.
    ready.manifest(required_test=py(f"import os; os.chdir({str(ready.root)!r})\n" + script), test_envelope="off")
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-side-effect"), out.text
    assert out.codes == {"test-side-effect"}
    assert out.paths("test-side-effect") == paths
    assert out.report["test"]["status"] == "passed"  # the test itself exited 0


def test_what_the_test_writes_in_its_checkout_never_reaches_the_scored_tree(ready: GitRepo) -> None:
    """The same writes, relative to where the test runs: they land in the temporary checkout."""
    script = (
        "open('allowed/a.py', 'w').write('eval(payload)\\n')\nopen('other/left.txt', 'w').write('x')\n"
        "import os; os.remove('README.txt')\n"
    )
    ready.manifest(required_test=py(script))
    out = ready.score(skip_test=False)
    assert passed(out), out.text
    assert (ready.root / "allowed/a.py").read_text() == "fixed\n" and (ready.root / "README.txt").exists()


def test_writes_outside_the_repository_and_to_ignored_paths_are_not_side_effects(ready: GitRepo) -> None:
    ready.write(".gitignore", "build/\n")
    ready.commit("ignore build")
    ready.write("allowed/a.py", "fixed again\n")
    ready.write("allowed/new.py", "untracked before the test, untouched by it\n")
    outside = ready.scratch / "log.txt"
    script = (
        f"open({str(outside)!r}, 'w').write('x')\nimport os; os.makedirs('build', exist_ok=True)\n"
        "open('build/out.o', 'w').write('x')\nopen('allowed/a.py').read()\n"
    )
    ready.manifest(required_test=py(script), test_write_roots=[str(ready.scratch)])
    out = ready.score(skip_test=False)
    assert out.exit_code == 0 and out.codes == set(), out.text


def test_range_mode_does_not_watch_the_checkout(committed: GitRepo) -> None:
    """In CI the scored commits cannot change; a test that writes a coverage file there is fine."""
    committed.git("checkout", "-q", "-b", "agent-x")
    committed.write("allowed/a.py", "v1\n")
    committed.commit("v1")
    committed.manifest(required_test=py("open('coverage.xml', 'w').write('x')\n"))
    out = committed.score("--base", "main", skip_test=False)
    assert out.exit_code == 0 and out.codes == set(), out.text


def test_side_effects_are_reported_in_shadow_mode_too(ready: GitRepo) -> None:
    script = f"open({str(ready.root / 'other/b.py')!r}, 'a').write('more\\n')\n"
    ready.manifest(required_test=py(script), test_envelope="off")  # the envelope would refuse the write
    out = ready.score("--shadow", skip_test=False)
    assert out.exit_code == 0 and out.codes == {"test-side-effect"}
    assert out.last_line == "RESULT: PASS (shadow: 1 would-fail)"


# --- evidence that tests ran: exit 0 is not proof -------------------------------------------------------

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "allowed"]
UNITTEST = [sys.executable, "-m", "unittest", "discover", "-s", "allowed", "-t", "."]
EXIT_EARLY = "import os\nos._exit(0)\n"


def suite(repo: GitRepo, body: str, name: str = "allowed/test_fix.py") -> None:
    repo.write("allowed/__init__.py", "")
    repo.write(name, body)


PASSING = "def test_one():\n    assert 1 + 1 == 2\n\n\ndef test_two():\n    assert 'a'.upper() == 'A'\n"
UNIT_PASSING = (
    "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(2, 2)\n"
    "\n    def test_two(self):\n        self.assertTrue(True)\n"
)


def validates(out: Outcome) -> None:
    import jsonschema

    from scorer.manifest.load import schema_text

    jsonschema.Draft202012Validator(json.loads(schema_text("report.schema.json"))).validate(out.report)


@pytest.mark.parametrize("runner", ["pytest", "unittest"])
def test_os_exit_0_before_any_assertion_is_not_a_pass(ready: GitRepo, runner: str) -> None:
    """One line in the module under test makes the runner exit 0 before any test ran."""
    suite(ready, EXIT_EARLY + (PASSING if runner == "pytest" else UNIT_PASSING))
    ready.manifest(required_test=PYTEST if runner == "pytest" else UNITTEST, allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-empty") and out.codes == {"test-empty"}, out.text
    assert out.report["test"]["exit_code"] == 0
    assert "no evidence that any test ran" in out.report["violations"][0]["message"]
    validates(out)


@pytest.mark.parametrize("runner", ["pytest", "unittest"])
def test_a_real_passing_suite_passes_and_says_how_many_ran(ready: GitRepo, runner: str) -> None:
    suite(ready, PASSING if runner == "pytest" else UNIT_PASSING)
    ready.manifest(required_test=PYTEST if runner == "pytest" else UNITTEST, allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert passed(out), out.text
    evidence = out.report["test"]["evidence"]
    assert (evidence["kind"], evidence["tests"], evidence["failures"], evidence["problem"]) == ("junit-xml", 2, 0, "")
    assert ", 2 tests ran)" in out.text
    assert out.report["warnings"] == []
    validates(out)


def test_a_failing_unittest_suite_still_fails(ready: GitRepo) -> None:
    suite(ready, UNIT_PASSING.replace("self.assertEqual(2, 2)", "self.assertEqual(2, 3)"))
    ready.manifest(required_test=UNITTEST, allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-failed") and out.codes == {"test-failed"}, out.text
    assert out.report["test"]["evidence"]["failures"] == 1


@pytest.mark.parametrize(
    ("body", "extra"),
    [
        ("import pytest\n\n\n@pytest.mark.skip\ndef test_skipped():\n    pass\n", {}),  # everything skipped
        ("def test_zero_collected_here():\n    pass\n", {"min_tests": 3}),  # fewer than the minimum
    ],
)
def test_too_few_executed_tests_is_test_empty(ready: GitRepo, body: str, extra: dict) -> None:
    suite(ready, body)
    ready.manifest(required_test=PYTEST, allowed_paths=["allowed/**"], **extra)
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-empty"), out.text
    assert "at least" in out.report["violations"][0]["message"]


def test_users_own_junitxml_still_works(ready: GitRepo) -> None:
    """A --junitxml the manifest's argv already has is left alone and is the evidence; it may live
    in the repository (it is not a side effect)."""
    suite(ready, PASSING)
    ready.manifest(required_test=[*PYTEST, "--junitxml=reports/junit.xml"], allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert passed(out), out.text
    # relative to where it ran: the temporary checkout, removed afterwards
    report = out.report["test"]["evidence"]["report"]
    assert report.endswith("/tree/reports/junit.xml") and not report.startswith(str(ready.root))


def test_a_stale_report_at_the_users_path_is_not_evidence(ready: GitRepo) -> None:
    ready.write(".gitignore", "reports/\n")
    ready.commit("ignore reports")
    suite(ready, PASSING)
    # at the repository's own (ignored) path: the checkout is fresh, this file is not
    junit = str(ready.root / "reports/junit.xml")
    ready.manifest(required_test=[*PYTEST, "--junitxml", junit], allowed_paths=["allowed/**"])
    assert passed(ready.score(skip_test=False))
    suite(ready, EXIT_EARLY + PASSING)  # the earlier run's report is still there, and passes
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-empty"), out.text
    assert "not rewritten" in out.report["violations"][0]["message"]


def _writer(report: str, xml: str) -> list[str]:
    return py(
        f"import os\nos.makedirs(os.path.dirname({report!r}) or '.', exist_ok=True)\nopen({report!r}, 'w').write({xml!r})"
    )


GOOD_XML = '<testsuite tests="1"><testcase classname="c" name="t"/></testsuite>'


@pytest.mark.parametrize(
    ("xml", "code", "why"),
    [
        (GOOD_XML, None, ""),
        (None, "test-empty", "wrote no test report"),
        ('<testsuite tests="1"><testcase name="t"><failure/></testcase></testsuite>', "test-failed", "1 failure"),
        ('<testsuite tests="1" errors="2"><testcase name="t"/></testsuite>', "test-failed", "2 error"),
        (
            '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "b">]><testsuite><testcase name="t"/></testsuite>',
            "test-empty",
            "DOCTYPE",
        ),
        ("<testsuite><testcase", "test-empty", "not well-formed"),
        ("<html/>", "test-empty", "root element"),
    ],
)
def test_report_the_manifest_names(ready: GitRepo, xml: str | None, code: str | None, why: str) -> None:
    ready.write(".gitignore", "out/\n")
    ready.commit("ignore out")
    ready.write("allowed/a.py", "fixed again\n")
    (ready.root / "out").mkdir()
    argv = _writer("out/results.xml", xml) if xml is not None else py("pass")
    ready.manifest(required_test=argv, test_report="out/results.xml")
    out = ready.score(skip_test=False)
    if code is None:
        assert passed(out), out.text
    else:
        assert failed_with(out, code) and out.codes == {code}, out.text
        assert why in out.report["violations"][0]["message"]


def test_report_inside_the_repository_is_not_a_side_effect(ready: GitRepo) -> None:
    ready.manifest(required_test=_writer("results.xml", GOOD_XML), test_report="results.xml")
    out = ready.score(skip_test=False)
    assert passed(out), out.text


def test_unrecognised_runner_rests_on_its_exit_status_and_says_so(ready: GitRepo) -> None:
    ready.manifest(required_test=["sh", "-c", "exit 0"])
    out = ready.score(skip_test=False)
    assert passed(out), out.text
    assert out.report["test"]["evidence"]["kind"] == "exit-status"
    assert any("rests on its exit status alone" in w and "'sh'" in w for w in out.report["warnings"])
    assert "warning: the required test's verdict rests on its exit status alone" in out.text


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["pytest", "-q"], ("pytest", 1)),
        (["/usr/bin/py.test"], ("pytest", 1)),
        (["python3", "-m", "pytest", "-x"], ("pytest", 3)),
        (["python3.12", "-X", "dev", "-W", "error", "-B", "-m", "pytest"], ("pytest", 8)),
        (["pypy3", "-m", "unittest", "-v"], ("unittest", 3)),
        (["python", "-c", "import pytest; pytest.main()"], None),
        (["python", "run_tests.py"], None),
        (["python", "-m", "tox"], None),
        (["make", "test"], None),
    ],
)
def test_runners_score_diff_recognises(argv: list[str], expected: tuple | None) -> None:
    from scorer.testrun.evidence import runner

    assert runner(argv) == expected


def test_a_report_that_is_a_symlink_to_an_old_passing_report_is_not_evidence(ready: GitRepo) -> None:
    """The user's --junitxml path turned into a link to a report written long ago: pytest would write
    through it, but a run that exits early writes nothing, and the link must not count."""
    ready.write(".gitignore", "reports/\n")
    ready.commit("ignore reports")
    old = ready.scratch / "old.xml"
    old.write_text(GOOD_XML)
    suite(ready, EXIT_EARLY + PASSING)
    ready.symlink("reports/junit.xml", str(old))
    ready.manifest(required_test=[*PYTEST, "--junitxml=reports/junit.xml"], allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert failed_with(out, "test-empty"), out.text


@pytest.mark.parametrize(
    ("body", "code"),
    [
        # a failing subTest is a failure, though the test method itself "passes"
        (
            "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_sub(self):\n"
            "        for i in range(2):\n            with self.subTest(i=i):\n                self.assertEqual(i, 0)\n",
            "test-failed",
        ),
        # an error in setUpClass runs no test of the class
        (
            "import unittest\n\n\nclass T(unittest.TestCase):\n    @classmethod\n    def setUpClass(cls):\n"
            "        raise RuntimeError('no')\n\n    def test_one(self):\n        pass\n",
            "test-failed",
        ),
        # every test skipped
        (
            "import unittest\n\n\n@unittest.skip('later')\nclass T(unittest.TestCase):\n    def test_one(self):\n"
            "        pass\n",
            "test-empty",
        ),
    ],
)
def test_unittest_runner_records_what_unittest_reports(ready: GitRepo, body: str, code: str) -> None:
    suite(ready, body)
    ready.manifest(required_test=UNITTEST, allowed_paths=["allowed/**"])
    out = ready.score(skip_test=False)
    assert failed_with(out, code) and out.codes == {code}, out.text
