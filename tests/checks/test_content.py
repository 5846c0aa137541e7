"""scorer/checks/content.py: the forbidden substrings' alternation is run only over a text that holds
one of them (issue 29), and finds what it found before, held to tests/testing/content_reference.py."""

from __future__ import annotations

import json
import random

import pytest

from scorer.checks.content import MAX_LISTED, check_added_tokens
from scorer.checks.job import Job
from scorer.manifest.load import parse_manifest
from scorer.model import AddedText
from tests.testing import content_reference


def _job(**fields: object) -> Job:
    data = {"job_id": "j", "allowed_paths": ["**"], "required_test": ["true"], **fields}
    return Job(parse_manifest(json.dumps(data).encode(), "test"))


JOBS = [
    {"forbidden_substrings": ["eval(", "exec(", "pickle"]},
    {"forbidden_substrings": ["a.b", "(?x)", "[", "\\"]},  # regex metacharacters, escaped in the alternation
    {"forbidden_substrings": ["two\nlines", "\r"]},  # across a line end; a CR alone
    {"forbidden_substrings": ["ｅｖａｌ(", "eval("]},  # fullwidth: NFKC reads it as eval(
    {"forbidden_substrings": ["eval("], "forbidden_patterns": ["^import ctypes", "e.a"]},
    {"forbidden_patterns": ["os\\.system"]},
]
TEXTS = [
    "",
    "x = 1\n",
    "x = eval(y)\n",
    "ｅｖａｌ(y)\n",  # only the NFKC reading holds eval(
    "a\rimport ctypes\n",  # a lone CR: JavaScript's and Python's reading ends the line there
    "two\nlines\n",
    "a.b (?x) [ \\ \r\n",
    "os.system(1)\nexec(2)\npickle\n",
    "eval(\n" * (MAX_LISTED + 5),  # more hits than are listed
    "Eval( EVAL( evaluate\n",
]


def _added(text: str) -> AddedText:
    half = text.find("\n", len(text) // 2) + 1 if "\n" in text[len(text) // 2 :] else 0
    if 0 < half < len(text):
        return AddedText(text, (0, half), (("a.py", 1), ("b.py", 10)))
    return AddedText(text, (0,), (("a.py", 1),)) if text else AddedText()


@pytest.mark.parametrize("fields", JOBS)
@pytest.mark.parametrize("text", TEXTS)
def test_forbidden_tokens_found_as_before(fields: dict[str, object], text: str) -> None:
    job, added = _job(**fields), _added(text)
    assert check_added_tokens(added, job) == content_reference.check_added_tokens(added, job)


def test_forbidden_tokens_found_as_before_on_random_texts() -> None:
    rng = random.Random(29)
    pieces = ["eval(", "ｅｖａｌ(", "exec", "(", "pickle", "pick", "le", "\n", "\r", "\r\n", "x", " ", "two", "lines"]
    jobs = [_job(**fields) for fields in JOBS]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(20)))
        added = _added(text if text.endswith("\n") or not text else text + "\n")
        for job in jobs:
            assert check_added_tokens(added, job) == content_reference.check_added_tokens(added, job), text
