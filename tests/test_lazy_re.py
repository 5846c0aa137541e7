"""scorer/lazy_re.py: re's flags by value, and patterns compiled on their first use that answer as
re does."""

from __future__ import annotations

import re

import pytest

from scorer import lazy_re


def test_the_flags_are_re_s() -> None:
    assert (lazy_re.IGNORECASE, lazy_re.MULTILINE, lazy_re.DOTALL) == (re.IGNORECASE, re.MULTILINE, re.DOTALL)


def test_a_pattern_is_compiled_on_first_use_and_kept() -> None:
    pattern = lazy_re.LazyPattern(r"a+", lazy_re.IGNORECASE)
    assert pattern._compiled is None
    first = pattern.compiled
    assert first is pattern.compiled and first.flags == re.compile(r"a+", re.IGNORECASE).flags


@pytest.mark.parametrize("text", ["", "xAay", "a\nb", "---- >8 ----", "main~1", "aaa@{u}", "\u212a"])
@pytest.mark.parametrize(
    ("source", "flags"),
    [(r"a+", lazy_re.IGNORECASE), (r"[~^:]|@\{", 0), (r"^\S\s*-{3,}\s*>8\s*-{3,}\s*$", lazy_re.MULTILINE), (r"k", 2)],
)
def test_each_method_answers_as_re_does(text: str, source: str, flags: int) -> None:
    ours, theirs = lazy_re.LazyPattern(source, flags), re.compile(source, flags)
    found, expected = ours.search(text), theirs.search(text)
    assert (found and found.span()) == (expected and expected.span())
    whole, expected = ours.fullmatch(text), theirs.fullmatch(text)
    assert (whole and whole.span()) == (expected and expected.span())
    assert ours.split(text) == theirs.split(text) and ours.split(text, 1) == theirs.split(text, 1)
    assert ours.sub("-", text) == theirs.sub("-", text)
