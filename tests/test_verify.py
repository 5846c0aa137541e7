"""verify_report: a report vouches only for a real PASS bound to exactly the given facts."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scorer.model import EnvelopeFacts, Result
from scorer.model import TestOutcome as Outcome
from scorer.report.facts import to_dict
from scorer.verify import verify_report

SHA = "ab" * 32
BASE = "1" * 40
HEAD = "2" * 40
DIGEST = "cd" * 32


def good_report() -> dict:
    result = Result(
        verdict="PASS",
        exit_code=0,
        job_id="j",
        mode="range",
        base=BASE,
        head=HEAD,
        change_digest=DIGEST,
        manifest_path="job_manifest.json",
        manifest_sha256=SHA,
        version="0.1.0",
        test=Outcome("passed", ("pytest",), 0),
    )
    return to_dict(result)


def check(report: dict, **facts: Any) -> list[str]:
    given = {"manifest_sha256": SHA, "base": BASE, "head": HEAD, **facts}
    return verify_report(report, **given)


def test_matching_pass_report_has_no_problems():
    assert check(good_report()) == []
    assert check(good_report(), change_digest=DIGEST) == []


def test_commit_ids_compare_case_insensitively():
    assert check(good_report(), head=HEAD.upper(), manifest_sha256=SHA.upper()) == []


def test_unchecked_facts_are_skipped():
    assert verify_report(good_report(), manifest_sha256=None, base=None, head=None) == []


def _with(**changes: object) -> dict:
    report = copy.deepcopy(good_report())
    for dotted, value in changes.items():
        *parents, key = dotted.split("__")
        node = report
        for p in parents:
            node = node[p]
        node[key] = value
    return report


@pytest.mark.parametrize(
    ("report", "facts", "problem"),
    [
        (_with(result="FAIL"), {}, "result is 'FAIL'"),
        (_with(exit_code=1), {}, "exit_code is 1"),
        (_with(exit_code=2, result="FAIL"), {}, "exit_code is 2"),
        (_with(shadow=True), {}, "shadow run"),
        (_with(violations=[{"code": "secret"}]), {}, "1 violation(s)"),
        (_with(mode="worktree"), {}, "only a 'range' report binds to a head commit"),
        (_with(binding__manifest_sha256="ff" * 32), {}, "binding.manifest_sha256"),
        (_with(binding__manifest_sha256=None), {}, "binding.manifest_sha256 is None"),
        (_with(binding__base="3" * 40), {}, "binding.base"),
        (_with(binding__head="3" * 40), {}, "binding.head"),
        (good_report(), {"head": "3" * 40}, "expected '3333"),
        (good_report(), {"change_digest": "ee" * 32}, "binding.change_digest"),
        (_with(binding=None), {}, "no binding object"),
        (_with(binding__head=7), {}, "binding.head is 7"),
        (_with(test__status="skipped"), {}, "the required test was skipped"),
        (_with(test__status="not-run"), {}, "test.status is 'not-run'"),
        (_with(test=None), {}, "test.status is None"),
    ],
)
def test_each_problem_is_reported(report, facts, problem):
    problems = check(report, **facts)
    assert any(problem in p for p in problems), problems


def test_missing_everything_lists_every_problem():
    problems = check({})
    assert len(problems) == 5  # result, exit_code, shadow, test, binding


def test_not_an_object():
    assert verify_report([], manifest_sha256=None, base=None, head=None) == ["report is not a JSON object"]


def _enveloped(**facts: Any) -> dict:
    from scorer.testrun.envelope import log_digest

    observed = facts.pop("observed", ())
    env = EnvelopeFacts(
        "auto", ("network: user+network namespace",), observed=observed, log_sha256=log_digest(observed)
    )
    report = good_report()
    report["test"]["envelope"] = {
        k: list(v) if isinstance(v, tuple) else v for k, v in env._replace(**facts)._asdict().items()
    }
    return report


def test_the_observer_log_must_match_its_digest():
    assert check(_enveloped()) == []
    edited = _enveloped(observed=("wrote /home/me/.bashrc",))
    assert check(edited) == ["the observer saw 1 attempt(s) outside the test's envelope"]
    edited["test"]["envelope"]["observed"] = []  # the attempt cut out of the log, the digest left
    assert check(edited) == [
        "test.envelope.log_sha256 does not match the observed log it stands for (the report was edited)"
    ]


def test_require_envelope():
    assert check(_enveloped(), require_envelope=True) == []
    assert check(good_report(), require_envelope=True) == [
        "the report has no test envelope (the test did not run, or an older score-diff ran it)"
    ]
    assert check(good_report()) == []  # without the flag, a report from before the envelope still binds
    missing = _enveloped(missing=("network: Operation not permitted",))
    assert check(missing, require_envelope=True) == [
        "the test's envelope was not all enforced: ['network: Operation not permitted']"
    ]
    assert check(_enveloped(policy="off"), require_envelope=True) == ["the required test ran with test_envelope off"]
