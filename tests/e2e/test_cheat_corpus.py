"""The labelled corpus (tests/cheat_corpus): every case scored by the full pipeline, required
test included, gets the verdict its label says. `python -m tests.cheat_corpus` prints the
figures per category."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cheat_corpus.cases import CASES, CHEATS, FAIL, LEGIT, PASS, Case
from tests.cheat_corpus.runner import Verdict, score, summary


def _param(case: Case) -> object:
    marks = [pytest.mark.xfail(reason=case.xfail, strict=case.strict)] if case.xfail else []
    return pytest.param(case, id=f"{case.category}:{case.name}", marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_each_case_gets_its_verdict(case: Case, tmp_path: Path):
    got = score(case, tmp_path)
    assert got.verdict == case.expect, got
    assert got.last_line == f"RESULT: {case.expect}", got
    assert got.exit_code == (1 if case.expect == FAIL else 0), got
    if case.expect == PASS:
        assert got.codes == (), got
    if case.caught_by:
        assert case.caught_by in got.codes, got


def test_the_corpus_covers_every_category_with_unique_names():
    assert {c.category for c in CASES} == set(CHEATS) | set(LEGIT)
    assert len({c.name for c in CASES}) == len(CASES)
    assert all(sum(c.category == cat for c in CASES) >= 2 for cat in (*CHEATS, *LEGIT))


def test_the_summary_counts_caught_and_passed_per_category():
    cheat, legit = (next(c for c in CASES if c.category == cat) for cat in ("equality", "legit-fix"))
    lines = summary([(cheat, Verdict(FAIL, 1, ("constant-equality",), "")), (legit, Verdict(FAIL, 1, ("x",), ""))])
    assert "equality         caught 1/1" in lines
    assert "legit-fix        passed 0/1" in lines
    assert lines[-2:] == ["all cheats       caught 1/1", "all legitimate   passed 0/1"]
