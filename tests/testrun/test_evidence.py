"""The evidence of a run is score-diff's, not the test process's: the base's own result is the
reference for what may be skipped, a plugin streams each outcome out as it happens, and the
launcher's exit status, that stream, the JUnit file must agree. Each attack leaves calc.py
wrong and ran to RESULT: PASS before (docs/required-test.md#evidence-the-test-cannot-rewrite);
each legitimate neighbour passes. Every case runs in worktree mode and in --base mode.
"""

from __future__ import annotations

import textwrap

import pytest

from tests.testing.calc import FIXED, PYTEST, calc_project, passed, score_in
from tests.testing.repo import GitRepo, Outcome

SPEC = textwrap.dedent(
    """\
    import sys

    import pytest

    from calc import add


    @pytest.mark.skipif(sys.platform == "win32", reason="not on windows")
    @pytest.mark.parametrize(("a", "b", "total"), [(1, 2, 3), (2, 2, 4)])
    def test_add(a, b, total):
        assert add(a, b) == total


    def test_add_zero():
        assert add(0, 0) == 0


    @pytest.mark.skip(reason="the base skips it everywhere")
    def test_later():
        assert add(1, 1) == 3
    """
)
MODES = ["worktree", "range"]
ALLOWED = ["calc.py", "helpers/**"]


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    """calc.py has a bug the base's tests catch; the job may touch calc.py only."""
    return calc_project(repo, SPEC, ALLOWED)


def score(repo: GitRepo, mode: str, source: str, **manifest: object) -> Outcome:
    repo.write("calc.py", source)
    if manifest:
        repo.manifest(
            allowed_paths=ALLOWED, protected_tests=["tests/**"], required_test=PYTEST, always_run_test=True, **manifest
        )
    return score_in(repo, mode)


def failed_with(out: Outcome, *codes: str) -> bool:
    return out.exit_code == 1 and set(codes) <= out.codes and out.last_line == "RESULT: FAIL"


# --- the base's own result is the reference ------------------------------------------------------

SKIP_FROM_CODE = (
    "import unittest\n\n\ndef add(a, b):\n    if a:\n        raise unittest.SkipTest('later')\n    return b\n"
)


@pytest.mark.parametrize("mode", MODES)
def test_the_real_fix_passes_with_the_base_skipping_what_it_skips(project: GitRepo, mode: str) -> None:
    out = score(project, mode, FIXED)
    assert passed(out), out.text


@pytest.mark.parametrize("mode", MODES)
def test_a_skip_the_code_under_test_raises_is_not_the_bases_skip(project: GitRepo, mode: str) -> None:
    """test_add carries a skipif marker whose condition is false here: the base ran it and it failed."""
    out = score(project, mode, SKIP_FROM_CODE)
    assert failed_with(out, "test-missing"), out.text
    assert any("skipped" in v["message"] and "at the base" in v["message"] for v in out.report["violations"])


# --- the process under test cannot rewrite its own evidence --------------------------------------

# Finds the JUnit path on its own command line, strips the failures, and exits 0 past pytest.
REWRITE_AT_EXIT = textwrap.dedent(
    """\
    import {atexit}
    import os
    import re


    def add(a, b):
        return a - b


    def _launder():
        with open({cmdline}, "rb") as fh:
            args = fh.read().split(b"\\0")
        for arg in args:
            if b"junit" in arg and b"=" in arg:
                path = arg.split(b"=", 1)[1].decode()
                with open(path, encoding="utf-8") as fh:
                    xml = fh.read()
                xml = re.sub(r"<failure.*?</failure>", "", xml, flags=re.S)
                xml = re.sub(r'(failures|errors)="\\d+"', r'\\1="0"', xml)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(xml)
        {exit}(0)


    {register}(_launder)
    """
)
PLAIN = REWRITE_AT_EXIT.format(
    atexit="atexit", register="atexit.register", cmdline='"/proc/self/cmdline"', exit="os._exit"
)
# the same, spelled so that no reading of the source can see it
HIDDEN = REWRITE_AT_EXIT.format(
    atexit="importlib",
    register="importlib.import_module('at' + 'exit').register",
    cmdline='"/proc/self/" + "cmd" + "line"',
    exit='getattr(os, "_ex" + "it")',
)


@pytest.mark.parametrize("mode", MODES)
def test_a_report_rewritten_at_exit_is_tampered_evidence(project: GitRepo, mode: str) -> None:
    out = score(project, mode, HIDDEN)
    assert failed_with(out, "test-evidence-tampered"), out.text


@pytest.mark.parametrize("mode", MODES)
def test_a_plain_rewrite_at_exit_is_also_flagged_in_the_source(project: GitRepo, mode: str) -> None:
    out = score(project, mode, PLAIN)
    assert failed_with(out, "test-evidence-tampered", "test-runner-reached"), out.text


CLEAN_EXIT_HOOK = "import atexit\nimport logging\n\natexit.register(logging.shutdown)\n\n\n" + FIXED


@pytest.mark.parametrize("mode", MODES)
def test_a_fix_that_registers_an_ordinary_exit_hook_passes(project: GitRepo, mode: str) -> None:
    out = score(project, mode, CLEAN_EXIT_HOOK)
    assert passed(out), out.text


# --- the tests that flipped must pass again, reordered, twice -----------------------------------

# Answers the base's tests in the order they run: state recorded across calls.
IN_TEST_ORDER = textwrap.dedent(
    """\
    _answers = iter([3, 4])


    def add(a, b):
        if a == b == 0:
            return 0
        return next(_answers, a - b)
    """
)
# A toggle on the function: right on the first call of each input, wrong after.
FIRST_CALL_ONLY = textwrap.dedent(
    """\
    def add(a, b):
        seen = add.__dict__.setdefault("seen", set())
        if (a, b) in seen:
            return a - b
        seen.add((a, b))
        return a + b
    """
)
CACHED_FIX = "import functools\n\n\n@functools.lru_cache(maxsize=None)\ndef add(a, b):\n    return a + b\n"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "source",
    [
        IN_TEST_ORDER,
        FIRST_CALL_ONLY,  # right on the first call per input: the first stability run runs each test twice
    ],
    ids=["in-test-order", "first-call-only"],
)
def test_state_across_calls_is_unstable(project: GitRepo, mode: str, source: str) -> None:
    out = score(project, mode, source)
    assert failed_with(out, "test-unstable"), out.text
    assert out.codes == {"test-unstable"}, out.text


@pytest.mark.parametrize("mode", MODES)
def test_a_cached_fix_is_stable(project: GitRepo, mode: str) -> None:
    out = score(project, mode, CACHED_FIX)
    assert passed(out), out.text
    assert any("passed again, in reverse order, twice" in w for w in out.report["warnings"]), out.text
