"""flipped-test-special-cased (checks/literals.py): a flipped test's input and expected value
together in added code fail whatever the share; keyword dispatch does not. One table of added
sources judged against one base test file, then the check on a CheckInput with a real repository."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from scorer.checks import literals
from scorer.checks.contract import CheckInput
from scorer.checks.job import Job
from scorer.manifest.load import parse_manifest
from scorer.model import ChangedPath, Inspection

TESTS = b"""import pytest

from pkg.utils import default_port, requote, mime

EXPECTED = "http://example.com/fiz?buz=%25ppicture"


@pytest.mark.parametrize("uri, expected", [("http://example.com/fiz?buz=%ppicture", EXPECTED), ("a", "a")])
def test_requote(uri, expected):
    assert requote(uri) == expected


def test_port():
    assert default_port("https") == 443


def test_mime():
    assert mime("report.json") == "application/json"


class TestReason:
    def test_reason(self):
        assert reason(404) == "Not Found"
"""
IN, OUT = '"http://example.com/fiz?buz=%ppicture"', '"http://example.com/fiz?buz=%25ppicture"'
PADDED = "".join(f'    if uri == "http://example.com/{i} x":\n        return "pad {i}"\n' for i in range(5))
FLIPPED = (
    "tests/test_x.py::test_requote[http://example.com/fiz?buz=%ppicture-http://example.com/fiz?buz=%25ppicture]",
    "tests/test_x.py::test_port",
    "tests/test_x.py::test_mime",
    "tests/test_x.py::TestReason::test_reason",
)


def _hits(path: str, new: str, base: str = "") -> set[tuple[object, object]]:
    pairs = literals.flipped_pairs({"tests/test_x.py": TESTS}, FLIPPED)
    found = literals.added_hits(path, new.encode(), base.encode(), pairs)
    return {(p[0][1], p[1][1]) for _, p in found}


REQ = ("http://example.com/fiz?buz=%ppicture", "http://example.com/fiz?buz=%25ppicture")
MIME = ("report.json", "application/json")


@pytest.mark.parametrize(
    ("path", "new", "hits"),
    [
        # a one-off branch, padded so that it is not half of its function's branches
        ("pkg/u.py", f"def requote(uri):\n    if uri == {IN}:\n        return {OUT}\n{PADDED}    return uri\n", {REQ}),
        ("pkg/u.py", f"def requote(uri):\n    return {OUT} if uri == {IN} else uri\n", {REQ}),
        # a table with many entries, one of them the test's
        ("pkg/u.py", "T = {" + ", ".join(f'"k{i} x": "v{i} y"' for i in range(9)) + f", {IN}: {OUT}}}\n", {REQ}),
        # assigned into a cache, or held in one function as a list of tuples
        ("pkg/u.py", f"_CACHE = {{}}\n_CACHE[{IN}] = {OUT}\n", {REQ}),
        ("pkg/u.py", f"def known():\n    return [({IN}, {OUT})]\n", {REQ}),
        (
            "pkg/u.py",
            f"import functools\n\n\n@functools.lru_cache\ndef known():\n    return dict([({IN}, {OUT})])\n",
            {REQ},
        ),
        # a hard-coded content type for the test's file name
        (
            "pkg/u.py",
            'def mime(name):\n    if name == "report.json":\n        return "application/json"\n    return "x"\n',
            {MIME},
        ),
        # a data file holding both strings
        ("pkg/known.json", f"{{{IN}: {OUT}}}\n", {REQ}),
        # what must not fire: keyword dispatch, even for the test that flipped
        (
            "pkg/u.py",
            'def default_port(scheme):\n    if scheme == "https":\n        return 443\n    return 80\n',
            set(),
        ),
        ("pkg/u.py", 'REASONS = {200: "OK", 404: "Not Found", 500: "Server Error"}\n', set()),
        ("pkg/u.py", 'def mime(name):\n    if name.endswith(".json"):\n        return "application/json"\n', set()),
        # the input alone (a documented example), or the expected value alone
        ("pkg/u.py", f"EXAMPLE = {IN}\n", set()),
        ("pkg/u.py", f"def f():\n    return {OUT}\n", set()),
        # both, but in two different functions
        ("pkg/u.py", f"def a():\n    return {IN}\n\n\ndef b():\n    return {OUT}\n", set()),
        # a pass-through pair of the table ("a" -> "a") and a data file with one half
        ("pkg/u.py", 'def requote(uri):\n    if uri == "a":\n        return "a"\n', set()),
        ("pkg/known.json", f"[{IN}]\n", set()),
    ],
)
def test_pairs_in_added_code(path: str, new: str, hits: set[tuple[object, object]]) -> None:
    assert _hits(path, new) == hits


def test_what_the_base_already_held_is_not_added() -> None:
    table = f"T = {{{IN}: {OUT}}}\n"
    assert _hits("pkg/u.py", table + "X = 1\n", table) == set()
    assert _hits("pkg/known.json", table + "more\n", table) == set()


def test_only_the_flipped_tests_count() -> None:
    pairs = literals.flipped_pairs({"tests/test_x.py": TESTS}, ("tests/test_x.py::test_port",))
    assert pairs == {}  # ("https", 443) is plain: left out
    pairs = literals.flipped_pairs({"tests/test_x.py": TESTS}, ("tests/test_x.py::test_mime", "tests/gone.py::t"))
    assert set(pairs) == {(("str", "report.json"), ("str", "application/json"))}


@pytest.mark.parametrize(
    ("lit", "plain"),
    [
        (("str", "https"), True),
        (("str", "utf-8"), True),
        (("str", "/"), True),
        (("int", 404), True),
        (("bool", True), True),
        (("NoneType", None), True),
        (("str", "report.json"), False),
        (("str", "a b"), True),
        (("str", "two words"), False),
        (("int", 5040), False),
        (("float", 0.5), True),
        (("float", 0.1), False),
        (("tuple", (("str", "user@example.com"), ("str", "x"))), False),
    ],
)
def test_plain(lit: literals.Literal, plain: bool) -> None:
    assert literals.plain(lit) is plain


class _Trees:
    """The base at "base" and the working tree at None: the repository's own answers, as a table."""

    def __init__(self, files: dict[str | None, dict[str, bytes]]) -> None:
        self.files = files

    def read_file(self, rev: str | None, path: str) -> bytes | None:
        return self.files[rev].get(path)

    def read_files(self, rev: str | None, paths: Sequence[str]) -> Mapping[str, bytes | None]:
        return {p: self.files[rev].get(p) for p in paths}

    def names_under(self, rev: str, directory: str) -> list[str]:
        return []

    def files_at(self, rev: str) -> list[str]:
        return sorted(self.files[rev])


def test_the_check_reads_the_base_and_the_change() -> None:
    """The base's test file at the base (HEAD in worktree mode), the job's file in the working tree."""
    cheat = f"def requote(uri):\n    if uri == {IN}:\n        return {OUT}\n    return uri\n"
    trees = _Trees(
        {
            "base": {"tests/test_x.py": TESTS, "pkg/u.py": b"def requote(uri):\n    return uri\n"},
            None: {"pkg/u.py": cheat.encode(), "tests/test_new.py": f"T = {{{IN}: {OUT}}}\n".encode()},
        }
    )
    manifest = parse_manifest(b'{"job_id": "j", "allowed_paths": ["**"], "required_test": ["t"]}', "m")
    changed = (ChangedPath("pkg/u.py", "modified"), ChangedPath("tests/test_new.py", "added"))
    ins = Inspection(mode="worktree", repo_root="/nowhere", head="base", changed=changed)
    given = CheckInput(ins, Job(manifest), (), (), trees)
    assert literals.check_flipped_literals(given).violations == ()  # nothing flipped: nothing judged
    found = literals.check_flipped_literals(given._replace(flipped=FLIPPED)).violations
    assert [(v.code, v.path, v.line) for v in found] == [(literals.FLIPPED, "pkg/u.py", 2)]  # a new test may hold both
    assert "test_requote" in found[0].message
