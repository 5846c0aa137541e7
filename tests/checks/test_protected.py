"""Protected tests: a job may add tests but not remove or loosen them (test-weakened)."""

from __future__ import annotations

import pytest

from tests.testing.repo import GitRepo

BASE = """import contextlib
import sys

import pytest

from app import make_cart, total

EMPTY_TOTAL = 0


def _make_cart():
    return make_cart()


def test_total():
    assert total([1, 2]) == 3
    assert total([]) == 0


@pytest.mark.parametrize("xs, expected", [([1, 2], 3), ([5], 5)])
def test_total_cases(xs, expected):
    assert total(xs) == expected


def test_total_of_nothing():
    assert total(()) == EMPTY_TOTAL


def test_total_on_posix():
    if sys.platform == "win32":
        return
    assert total([2, 2]) == 4


class TestCart:
    def test_empty(self):
        self.assertEqual(len(_make_cart()), 0)

    def test_raises(self):
        with pytest.raises(ValueError):
            total(None)
"""
NEW_TEST = """

def test_total_of_one():
    assert total([5]) == 5
"""
FIRES = {
    "assertion-replaced-by-pass": BASE.replace("    assert total([]) == 0", "    pass"),
    "expected-value-changed": BASE.replace("== 3", "== 4"),
    "operator-loosened": BASE.replace("assert total([1, 2]) == 3", "assert total([1, 2]) >= 0"),
    "assert-method-changed": BASE.replace("self.assertEqual(", "self.assertNotEqual("),
    "assert-true": BASE.replace("assert total([1, 2]) == 3", "assert True"),
    "test-removed": BASE.split("\n    def test_raises")[0] + "\n",
    "test-renamed-away": BASE.replace("def test_total():", "def check_total():"),
    "skip-decorator": BASE.replace("def test_total():", "@pytest.mark.skip\ndef test_total():"),
    "xfail-decorator": BASE.replace("def test_total():", "@pytest.mark.xfail(reason='later')\ndef test_total():"),
    "class-skipped": BASE.replace("class TestCart:", "@pytest.mark.skip\nclass TestCart:"),
    "module-skipped": BASE.replace("import pytest\n", "import pytest\n\npytestmark = pytest.mark.skip\n"),
    "skip-call": BASE.replace(
        "    assert total([1, 2]) == 3", "    pytest.skip('flaky')\n    assert total([1, 2]) == 3"
    ),
    "early-return": BASE.replace("def test_total():\n", "def test_total():\n    return\n"),
    "if-false": BASE.replace("    assert total([]) == 0", "    if False:\n        assert total([]) == 0"),
    "raises-removed": BASE.replace(
        "        with pytest.raises(ValueError):\n            total(None)", "        total([])"
    ),
    "into-a-dead-inner-function": BASE.replace(
        "    assert total([1, 2]) == 3", "    def later():\n        assert total([1, 2]) == 3"
    ),
    "does-not-parse": BASE.replace("def test_total():", "def test_total(:"),
    # What an assertion checks, not how it is written (issue 17, item 5)
    "parametrize-expected-changed": BASE.replace("([1, 2], 3), ([5], 5)", "([1, 2], 4), ([5], 5)"),
    "parametrize-case-dropped": BASE.replace("[([1, 2], 3), ([5], 5)]", "[([5], 5)]"),
    "module-constant-changed": BASE.replace("EMPTY_TOTAL = 0", "EMPTY_TOTAL = 1"),
    "assertion-error-swallowed": BASE.replace(
        "    assert total([1, 2]) == 3\n",
        "    try:\n        assert total([1, 2]) == 3\n    except AssertionError:\n        pass\n",
    ),
    "exception-swallowed": BASE.replace(
        "        self.assertEqual(len(_make_cart()), 0)\n",
        "        try:\n            self.assertEqual(len(_make_cart()), 0)\n        except Exception:\n            pass\n",
    ),
    "assertion-error-suppressed": BASE.replace(
        "    assert total([1, 2]) == 3\n",
        "    with contextlib.suppress(AssertionError):\n        assert total([1, 2]) == 3\n",
    ),
    "return-on-some-inputs": BASE.replace(
        "def test_total_cases(xs, expected):\n",
        "def test_total_cases(xs, expected):\n    if xs == [1, 2]:\n        return\n",
    ),
    "assertion-under-a-new-condition": BASE.replace(
        "    assert total(xs) == expected\n", "    if len(xs) > 1:\n        assert total(xs) == expected\n"
    ),
    "skip-raised-on-some-inputs": BASE.replace(
        "def test_total_cases(xs, expected):\n",
        "def test_total_cases(xs, expected):\n    if xs == [1, 2]:\n        raise unittest.SkipTest('later')\n",
    ),
    "guard-widened": BASE.replace('if sys.platform == "win32":', 'if sys.platform == "win32" or True:'),
    "continue-on-some-inputs": BASE.replace(
        "    assert total([1, 2]) == 3\n    assert total([]) == 0\n",
        "    for xs, want in [([1, 2], 3), ([], 0)]:\n        if xs:\n            continue\n"
        "        assert total(xs) == want\n",
    ),
}
QUIET = {
    "new-test": BASE + NEW_TEST,
    "new-assertion": BASE.replace("    assert total([]) == 0", "    assert total([]) == 0\n    assert total([0]) == 0"),
    "reformatted-assertion": BASE.replace(
        "    assert total([1, 2]) == 3", "    assert total(\n        [1, 2]\n    ) == 3"
    ),
    "renamed-helper": BASE.replace("_make_cart", "_build_cart"),
    "moved-test": BASE.replace("def test_total():\n    assert total([1, 2]) == 3\n    assert total([]) == 0\n\n\n", "")
    + "\n\ndef test_total():\n    assert total([1, 2]) == 3\n    assert total([]) == 0\n",
    "comments-and-docstrings": BASE.replace("def test_total():\n", 'def test_total():\n    """Sums."""\n    # two\n'),
    "assertions-reordered": BASE.replace(
        "    assert total([1, 2]) == 3\n    assert total([]) == 0",
        "    assert total([]) == 0\n    assert total([1, 2]) == 3",
    ),
    "non-test-code-changed": BASE.replace("    return make_cart()", "    cart = make_cart()\n    return cart"),
    # How an assertion is written changes nothing it checks (issue 17, item 5)
    "message-added": BASE.replace("assert total([1, 2]) == 3", 'assert total([1, 2]) == 3, "two items"'),
    "unittest-message-added": BASE.replace(
        "self.assertEqual(len(_make_cart()), 0)", 'self.assertEqual(len(_make_cart()), 0, "a new cart is empty")'
    ),
    "unittest-msg-keyword": BASE.replace(
        "self.assertEqual(len(_make_cart()), 0)", 'self.assertEqual(len(_make_cart()), 0, msg="empty")'
    ),
    "bound-to-a-local": BASE.replace(
        "    assert total([1, 2]) == 3\n", "    result = total([1, 2])\n    assert result == 3\n"
    ),
    "local-inlined-and-renamed": BASE.replace(
        "    assert total(xs) == expected\n", "    got = total(xs)\n    assert got == expected\n"
    )
    .replace("xs, expected", "items, want")
    .replace("(xs)", "(items)")
    .replace("== expected", "== want"),
    "parametrize-case-added": BASE.replace("[([1, 2], 3), ([5], 5)]", "[([1, 2], 3), ([5], 5), ([2, 3], 5)]"),
    "parametrize-reformatted": BASE.replace(
        "[([1, 2], 3), ([5], 5)]", "[\n        ([1, 2], 3),\n        ([5], 5),\n    ]"
    ),
    "module-constant-renamed": BASE.replace("EMPTY_TOTAL", "NOTHING"),
    "module-constant-inlined": BASE.replace("== EMPTY_TOTAL", "== 0"),
    "try-finally-around-assertion": BASE.replace(
        "    assert total([1, 2]) == 3\n",
        "    try:\n        assert total([1, 2]) == 3\n    finally:\n        print('done')\n",
    ),
    "other-exception-caught": BASE.replace(
        "    assert total([1, 2]) == 3\n",
        "    try:\n        assert total([1, 2]) == 3\n    except KeyError:\n        pass\n",
    ),
    "handler-re-raises": BASE.replace(
        "    assert total([1, 2]) == 3\n",
        "    try:\n        assert total([1, 2]) == 3\n    except AssertionError:\n        print('x')\n        raise\n",
    ),
    "guard-kept": BASE.replace("    assert total([2, 2]) == 4", "    # only on POSIX\n    assert total([2, 2]) == 4"),
}


@pytest.fixture
def tests_repo(repo: GitRepo) -> GitRepo:
    repo.write("app.py", "def total(xs):\n    return sum(xs)\n")
    repo.write("tests/test_a.py", BASE)
    repo.write("tests/a.test.js", JS)
    repo.commit("tests")
    repo.manifest(allowed_paths=["app.py", "tests/**"], protected_tests=["tests/**"])
    return repo


@pytest.mark.parametrize("content", FIRES.values(), ids=FIRES.keys())
def test_weakening_a_python_test_fails(tests_repo: GitRepo, content: str):
    tests_repo.write("tests/test_a.py", content)
    out = tests_repo.score()
    assert out.codes == {"test-weakened"}, out.text
    assert out.last_line == "RESULT: FAIL"
    [v, *_] = out.report["violations"]
    assert v["path"] == "tests/test_a.py"
    assert "`git stash push --include-untracked -- tests/test_a.py`" in v["hint"]


@pytest.mark.parametrize("content", QUIET.values(), ids=QUIET.keys())
def test_legitimate_python_test_edits_do_not_fire(tests_repo: GitRepo, content: str):
    tests_repo.write("tests/test_a.py", content)
    out = tests_repo.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text


def test_a_test_moved_to_another_protected_file_does_not_fire(tests_repo: GitRepo):
    tests_repo.write("tests/test_a.py", BASE.split("\n\nclass TestCart")[0] + "\n")
    tests_repo.write(
        "tests/test_cart.py",
        "import pytest\n\nfrom app import make_cart, total\n\n\n"
        "def _make_cart():\n    return make_cart()\n\n\nclass TestCart:" + BASE.split("class TestCart:")[1],
    )
    out = tests_repo.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text


@pytest.mark.parametrize("how", ["deleted", "renamed"])
def test_deleting_or_renaming_a_protected_file_fails(tests_repo: GitRepo, how: str):
    if how == "deleted":
        tests_repo.remove("tests/test_a.py")
    else:
        tests_repo.git("mv", "tests/test_a.py", "tests/test_b.py")
    out = tests_repo.score()
    assert out.codes == {"test-weakened"}
    [v] = out.report["violations"]
    assert v["path"] == "tests/test_a.py" and how in v["message"]


JS = """describe('cart', () => {
  it('totals', () => {
    expect(total([1, 2])).toBe(3);
  });
});
"""
JS_FIRES = {
    "expect-removed": JS.replace("    expect(total([1, 2])).toBe(3);\n", ""),
    "it-skip": JS.replace("  it('totals'", "  it.skip('totals'"),
    "xit": JS.replace("  it('totals'", "  xit('totals'"),
    "only": JS.replace("  it('totals'", "  it.only('totals'"),
}
JS_QUIET = {
    "new-case": JS[: -len("});\n")] + "  it('empty', () => {\n    expect(total([])).toBe(0);\n  });\n});\n",
    "reindented": JS.replace("    expect(total([1, 2])).toBe(3);", "      expect( total([1, 2]) ).toBe( 3 );"),
}


@pytest.mark.parametrize("content", JS_FIRES.values(), ids=JS_FIRES.keys())
def test_weakening_a_javascript_test_fails(tests_repo: GitRepo, content: str):
    tests_repo.write("tests/a.test.js", content)
    out = tests_repo.score()
    assert out.codes == {"test-weakened"}, out.text


@pytest.mark.parametrize("content", JS_QUIET.values(), ids=JS_QUIET.keys())
def test_legitimate_javascript_test_edits_do_not_fire(tests_repo: GitRepo, content: str):
    tests_repo.write("tests/a.test.js", content)
    out = tests_repo.score()
    assert (out.exit_code, out.codes) == (0, set()), out.text


def test_the_required_tests_own_file_is_protected_by_default(tests_repo: GitRepo):
    tests_repo.manifest(
        allowed_paths=["app.py", "tests/test_a.py"], required_test=["python", "-m", "pytest", "tests/test_a.py", "-q"]
    )
    tests_repo.write("tests/test_a.py", FIRES["assertion-replaced-by-pass"])
    assert tests_repo.score().codes == {"test-weakened"}


def test_a_unittest_module_argument_names_its_file(tests_repo: GitRepo):
    tests_repo.manifest(
        allowed_paths=["app.py", "tests/test_a.py"], required_test=["python", "-m", "unittest", "tests.test_a"]
    )
    tests_repo.write("tests/test_a.py", FIRES["skip-decorator"])
    assert tests_repo.score().codes == {"test-weakened"}


def test_unprotected_tests_may_change(tests_repo: GitRepo):
    tests_repo.manifest(allowed_paths=["app.py", "tests/**"])
    tests_repo.write("tests/test_a.py", FIRES["assertion-replaced-by-pass"])
    assert tests_repo.score().exit_code == 0


def test_base_mode_compares_with_the_merge_base(tests_repo: GitRepo):
    tests_repo.git("checkout", "-q", "-b", "agent-x")
    tests_repo.write("tests/test_a.py", BASE + NEW_TEST)
    tests_repo.commit("a new test")
    tests_repo.write("tests/test_a.py", (BASE + NEW_TEST).replace("    assert total([]) == 0", "    pass"))
    tests_repo.commit("weaken")
    out = tests_repo.score("--base", "main")
    assert out.codes == {"test-weakened"}
    [v] = out.report["violations"]
    assert "test_total no longer reaches the assertion `assert total([]) == 0`" in v["message"]
    assert "(it came in with commit" in v["hint"]


def test_the_line_patterns_are_compiled_only_for_a_test_in_another_language(
    tests_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
):
    """Compiling the assertion and skip patterns costs about as much as a small scoring's checks
    (issue 29): a change to no such test never compiles them, and one that weakens a test still fails."""
    from scorer.checks import protected
    from scorer.secrets.secret_values import LazyPattern

    fresh = {name: LazyPattern(getattr(protected, name)._source) for name in ("_ASSERTION", "_SKIP")}
    for name, pattern in fresh.items():
        monkeypatch.setattr(protected, name, pattern)
    tests_repo.write("app.py", "def total(xs):\n    return sum(list(xs))\n")
    tests_repo.write("tests/test_a.py", BASE + "\n\ndef test_more():\n    assert total([3]) == 3\n")
    assert tests_repo.score().exit_code == 0
    assert [p._compiled for p in fresh.values()] == [None, None]
    tests_repo.write("tests/a.test.js", JS_FIRES["expect-removed"])
    assert tests_repo.score().codes == {"test-weakened"}
    tests_repo.write("tests/a.test.js", JS_FIRES["xit"])
    assert tests_repo.score().codes == {"test-weakened"}
    assert all(p._compiled is not None for p in fresh.values())
