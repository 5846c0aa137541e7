"""Protected tests: a job may add tests but not remove or loosen them (test-weakened)."""

from __future__ import annotations

import pytest
from conftest import GitRepo

BASE = """import pytest

from app import make_cart, total


def _make_cart():
    return make_cart()


def test_total():
    assert total([1, 2]) == 3
    assert total([]) == 0


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
    assert "`git restore --staged --worktree --source=HEAD -- tests/test_a.py`" in v["hint"]


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
