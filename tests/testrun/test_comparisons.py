"""A flipped test's comparison decided by a class the job defined fails `test-lenient-comparison`.

Each attack leaves the function wrong and returns a value of a class the job added whose
comparison or truthiness dunder says yes (a `str` equal to any string, a dict that normalises
keys, a list equal by length, an object always true, a container holding everything): stable, so
it ran to RESULT: PASS before. Each legitimate neighbour (a real fix returning a builtin, a value
class the base already defines, compared at the base and now, an existing dataclass) passes.
Every case runs in worktree mode and in --base mode (docs/required-test.md#comparison-types).
"""

from __future__ import annotations

import textwrap

import pytest

from tests.testing.calc import calc_project, passed, score_in
from tests.testing.repo import GitRepo, Outcome

MODES = ["worktree", "range"]
CODE = "test-lenient-comparison"


def _d(text: str) -> str:
    return textwrap.dedent(text)


# (name, the base's calc.py, the protected test, the job's calc.py)
GREET = ('def greet(name):\n    return "hi " + name\n', 'assert greet("bob") == "hello bob"')
HEADERS = ('def headers():\n    return {"content-type": "json"}\n', 'assert headers() == {"Content-Type": "json"}')
WORDS = ("def words(text):\n    return [text]\n", 'assert words("a b c") == ["a", "b", "c"]')
EVEN = ("def is_even(n):\n    return n % 2 == 1\n", "assert is_even(4)")
TAGS = ("def tags():\n    return []\n", 'assert "x" in tags()')


def _returning(case: tuple[str, str], header: str, body: str, value: str, prelude: str = "", before: str = "") -> str:
    """The job's calc.py: `case`'s function returning `value`, an instance of the class `header` whose
    `body` bends the comparison the test makes (`prelude` ahead of the class, `before` the return)."""
    signature = case[0].splitlines()[0]
    return f"{prelude}class {header}:\n{textwrap.indent(body, '    ')}\n\n\n{signature}\n{before}    return {value}\n"


EQUALS_ANY_STR = "def __eq__(self, other):\n    return isinstance(other, str)\n\n__hash__ = str.__hash__"
EQUAL_LENGTH = "def __eq__(self, other):\n    return len(self) == len(other)"
NORMALISED = (
    "def __eq__(self, other):\n"
    "    return {k.lower(): v for k, v in self.items()} == {k.lower(): v for k, v in other.items()}"
)
TRUTHY = "def __init__(self, value):\n    self.value = value\n\ndef __bool__(self):\n    return self.value is not None"
POSING_META = _d(
    """\
    class _Meta(type):
        def __eq__(cls, other):
            return other is str or type.__eq__(cls, other)

        def __hash__(cls):
            return hash(str)


    """
)
EXEC_EQ = (
    '_NS = {}\nexec(compile("def eq(self, other):\\n    return isinstance(other, str)\\n", "<frozen os>", "exec"), _NS)'
    "\n\n\n"
)
GREETING, WORDS_OF = '_Text("hi " + name)', "_Words([text, text, text])"
# name -> (the case, the job's calc.py): one shape, a class that bends a comparison and the function returning it
ATTACKS = {
    "str-equal-to-anything": (GREET, _returning(GREET, "_Text(str)", EQUALS_ANY_STR, GREETING)),
    "dict-normalising-keys": (
        HEADERS,
        _returning(HEADERS, "_Headers(dict)", NORMALISED, '_Headers({"content-type": "json"})'),
    ),
    "equal-by-length": (WORDS, _returning(WORDS, "_Words(list)", EQUAL_LENGTH, WORDS_OF)),
    "always-true": (EVEN, _returning(EVEN, "_Result", TRUTHY, "_Result(n % 2 == 1)")),
    "contains-everything": (
        TAGS,
        _returning(TAGS, "_Tags(list)", "def __contains__(self, item):\n    return isinstance(item, str)", "_Tags()"),
    ),
    # a method that runs in C makes no call event: the returned value's class still carries it
    "eq-bound-to-a-builtin": (
        GREET,
        _returning(GREET, "_Text(str)", "__eq__ = str.__ne__\n__hash__ = str.__hash__", GREETING),
    ),
    # code made by exec has no file: its name is the job's choice, so it counts as the job's
    "eq-made-by-exec": (GREET, _returning(GREET, "_Text(str)", '__eq__ = _NS["eq"]', GREETING, prelude=EXEC_EQ)),
    # a metaclass whose == and hash pose as str's: the probe looks classes up by identity
    "metaclass-posing-as-str": (
        GREET,
        _returning(GREET, "_Text(str, metaclass=_Meta)", "__eq__ = str.__ne__", GREETING, prelude=POSING_META),
    ),
    # a lambda is named "<lambda>", not "__eq__"
    "eq-a-lambda": (
        WORDS,
        _returning(
            WORDS, "_Words(list)", "__eq__ = lambda self, other: len(self) == len(other)  # noqa: E731", WORDS_OF
        ),
    ),
    # the probe switched off from inside the call: the record cannot be trusted
    "profile-switched-off": (
        GREET,
        _returning(GREET, "_Text(str)", EQUALS_ANY_STR, GREETING, "import sys\n\n\n", "    sys.setprofile(None)\n"),
    ),
}


REAL_FIXES = {
    "greet": (GREET, 'def greet(name):\n    return "hello " + name\n'),
    "headers": (HEADERS, 'def headers():\n    return {"Content-Type": "json"}\n'),
    "even": (EVEN, "def is_even(n):\n    return n % 2 == 0\n"),
    "tags": (TAGS, 'def tags():\n    return ["x"]\n'),
}

MONEY_BASE = _d(
    """\
    class Money:
        def __init__(self, cents):
            self.cents = cents

        def __eq__(self, other):
            return isinstance(other, Money) and self.cents == other.cents

        __hash__ = None


    def total(a, b):
        return Money(a.cents - b.cents)
    """
)
MONEY_FIXED = MONEY_BASE.replace("a.cents - b.cents", "a.cents + b.cents")
POINT_BASE = _d(
    """\
    import dataclasses


    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int


    def origin():
        return (0, 0)
    """
)
POINT_FIXED = POINT_BASE.replace("return (0, 0)", "return Point(0, 0)")
VALUE_CLASSES = {
    "base-value-class": (
        MONEY_BASE,
        "from calc import Money\n",
        "assert total(Money(2), Money(3)) == Money(5)",
        MONEY_FIXED,
        "total",
    ),
    "existing-dataclass": (
        POINT_BASE,
        "from calc import Point\n",
        "assert origin() == Point(0, 0)",
        POINT_FIXED,
        "origin",
    ),
}


def project(repo: GitRepo, base: str, assertion: str, name: str, imports: str = "") -> GitRepo:
    """calc.py has a bug the base's one test catches; the job may touch calc.py only."""
    test = f"{imports}from calc import {name}\n\n\ndef test_it():\n    {assertion}\n"
    return calc_project(
        repo, test, ["calc.py"], calc=base, message="calc with a bug, and its test", test_envelope="off"
    )


def _name(base: str) -> str:
    return base.split("def ", 1)[1].split("(", 1)[0]


def score(repo: GitRepo, mode: str, source: str) -> Outcome:
    repo.write("calc.py", source)
    return score_in(repo, mode)


@pytest.mark.slow  # each case scores a real repository, running pytest four to six times
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_job_defined_comparison_deciding_a_flipped_test_fails(repo: GitRepo, mode: str, attack: str) -> None:
    (base, assertion), source = ATTACKS[attack]
    out = score(project(repo, base, assertion, _name(base)), mode, source)
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL", out.text
    assert out.codes == {CODE}, out.text
    assert any("tests/test_calc.py::test_it" in v["message"] for v in out.report["violations"]), out.text


@pytest.mark.slow  # each case scores a real repository, running pytest four to six times
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fix", sorted(REAL_FIXES))
def test_a_real_fix_returning_a_builtin_passes(repo: GitRepo, mode: str, fix: str) -> None:
    (base, assertion), source = REAL_FIXES[fix]
    out = score(project(repo, base, assertion, _name(base)), mode, source)
    assert passed(out), out.text


@pytest.mark.slow  # each case scores a real repository, running pytest four to six times
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(VALUE_CLASSES))
def test_a_value_class_the_base_defines_passes(repo: GitRepo, mode: str, case: str) -> None:
    base, imports, assertion, source, name = VALUE_CLASSES[case]
    out = score(project(repo, base, assertion, name, imports), mode, source)
    assert passed(out), out.text


# A class the base already compares, whose == the job rewrites: it is known at the base, so only
# what its == now says decides. Loose (equal with each of the dict's values changed in turn) fails;
# a real fix, and an == that reads only some of the values, pass.
STORE_BASE = _d(
    """\
    class Headers:
        def __init__(self, data):
            self._store = {k.lower(): v for k, v in data.items()}

        def __eq__(self, other):
            if not isinstance(other, Headers):
                return NotImplemented
            return self._store == other._store

        __hash__ = None


    def headers():
        return Headers({"Content-Type": "json", "Accept": "text"})
    """
)
STORE_TEST = 'assert headers() == {"content-type": "json", "accept": "text"}'
_STORE_EQ = "        if not isinstance(other, Headers):\n            return NotImplemented\n        return self._store == other._store\n"
LOOSENED = {
    "keys-only": "        return set(self._store) == {k.lower() for k in other}\n",
    "by-length": "        return len(self._store) == len(other)\n",
    "ne-and-eq-from-a-constant": "        return not self.__ne__(other)\n\n    def __ne__(self, other):\n        return False\n",
}
TIGHT = {
    "real-fix": "        other = Headers(other) if isinstance(other, dict) else other\n        return self._store == other._store\n",
    "reads-some-values": "        theirs = {k.lower(): v for k, v in other.items()}\n"
    '        return self._store["content-type"] == theirs.get("content-type")\n',
}


@pytest.mark.slow  # each case scores a real repository, running pytest four to six times
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("attack", sorted(LOOSENED))
def test_a_loosened_comparison_of_a_class_the_base_compared_fails(repo: GitRepo, mode: str, attack: str) -> None:
    out = score(project(repo, STORE_BASE, STORE_TEST, "headers"), mode, STORE_BASE.replace(_STORE_EQ, LOOSENED[attack]))
    assert out.exit_code == 1 and out.last_line == "RESULT: FAIL", out.text
    assert CODE in out.codes and out.codes <= {CODE, "constant-equality"}, out.text  # a constant != is also static
    assert "says equal with each value changed" in out.text, out.text


@pytest.mark.slow  # each case scores a real repository, running pytest four to six times
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fix", sorted(TIGHT))
def test_a_comparison_that_reads_the_values_passes(repo: GitRepo, mode: str, fix: str) -> None:
    out = score(project(repo, STORE_BASE, STORE_TEST, "headers"), mode, STORE_BASE.replace(_STORE_EQ, TIGHT[fix]))
    assert passed(out), out.text


# --- the judgement alone, on records as the plugin writes them -------------------------------------

T = "tests/test_calc.py::test_it"


def _line(
    *seen: tuple[str, str, str], named: tuple[str, ...] = (), tampered: bool = False, loose: object = False
) -> dict[str, object]:
    items = [{"cls": c, "dunder": d, "where": [w], "loose": loose} for c, d, w in seen]
    return {"cmp": T, "seen": items, "named": list(named), "tampered": tampered}


def _judge(now: list[dict[str, object]], base: list[dict[str, object]], changed: tuple[str, ...] = ("calc.py",)):
    from scorer.testrun import comparisons, stream

    def said(lines: list[dict[str, object]]) -> stream.Stream:
        return stream.Stream({}, 0, 0, tuple(lines))

    return comparisons.lenient(comparisons.records(said(now)), comparisons.records(said(base)), [T], changed)


TEXT = ("calc:_Text", "__eq__", "calc.py")
JUDGED = {
    # (now, base, changed) -> fires
    "job-class-new": ([_line(TEXT)], [], ("calc.py",), True),
    "forged-empty-line-first": ([_line(), _line(TEXT)], [], ("calc.py",), True),
    "unchanged-file": ([_line(TEXT)], [], ("other.py",), False),
    "outside-the-checkout": ([_line(("fractions:Fraction", "__eq__", "<outside>"))], [], ("calc.py",), False),
    "exec-code-no-file": ([_line(("calc:_Text", "__eq__", "<unknown>"))], [], (), True),
    "seen-at-base": ([_line(TEXT)], [_line(TEXT)], ("calc.py",), False),
    "named-at-base": ([_line(TEXT)], [_line(named=("calc:_Text",))], ("calc.py",), False),
    "named-now-only": ([_line(TEXT, named=("calc:_Text",))], [], ("calc.py",), True),
    "no-record": ([], [], ("calc.py",), True),
    "tampered": ([_line(tampered=True)], [], ("calc.py",), True),
    "malformed": ([{"cmp": T, "seen": "x", "named": [], "tampered": False}], [], ("calc.py",), True),
    "builtins-only": ([_line()], [], ("calc.py",), False),
    "loose-now-known-at-base": ([_line(TEXT, loose=True)], [_line(TEXT)], ("calc.py",), True),
    "loose-at-base-too": ([_line(TEXT, loose=True)], [_line(TEXT, loose=True)], ("calc.py",), False),
    "loose-in-an-unchanged-file": ([_line(TEXT, loose=True)], [_line(TEXT)], ("other.py",), False),
    "loose-forged-away": ([_line(TEXT, loose=True), _line(TEXT)], [_line(TEXT)], ("calc.py",), True),
    "loose-not-a-bool": ([_line(TEXT, loose="no")], [_line(TEXT)], ("calc.py",), True),
}


@pytest.mark.parametrize("case", sorted(JUDGED))
def test_the_judgement(case: str) -> None:
    now, base, changed, fires = JUDGED[case]
    assert bool(_judge(now, base, changed)) is fires
