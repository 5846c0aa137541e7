"""verify-report: does a JSON report say PASS for exactly these facts?

A report is evidence only for what it was bound to. Before a merge trusts one, it
must be a real PASS (not shadow, exit 0, no violations, the required test run and
passed) and its binding must name the manifest, base and head the merge is about.
"""

from __future__ import annotations

from typing import Any

from .model import PASS, TEST_PASSED, TEST_SKIPPED


def _test_problems(report: dict[str, Any], allow_skipped_test: bool) -> list[str]:
    """A PASS vouches for the required test only if the test ran and passed."""
    test = report.get("test")
    status = test.get("status") if isinstance(test, dict) else None
    if status == TEST_PASSED or (allow_skipped_test and status == TEST_SKIPPED):
        return []
    if status == TEST_SKIPPED:
        return ["the required test was skipped (--skip-test); pass --allow-skipped-test to accept that"]
    return [f"test.status is {status!r}, not 'passed'"]


def _envelope_problems(report: dict[str, Any], require_envelope: bool) -> list[str]:
    """The observer log must be the one its digest names; with `require_envelope`, the test must
    have run with the whole envelope enforced (docs/required-test.md#the-envelope)."""
    test = report.get("test")
    envelope = test.get("envelope") if isinstance(test, dict) else None
    if not isinstance(envelope, dict):
        return (
            ["the report has no test envelope (the test did not run, or an older score-diff ran it)"]
            if require_envelope
            else []
        )
    problems = []
    observed = envelope.get("observed")
    if not isinstance(observed, list) or not all(isinstance(line, str) for line in observed):
        problems.append("test.envelope.observed is not a list of lines")
    elif envelope.get("log_sha256") != _log_digest(observed):
        problems.append(
            "test.envelope.log_sha256 does not match the observed log it stands for (the report was edited)"
        )
    elif observed:
        problems.append(f"the observer saw {len(observed)} attempt(s) outside the test's envelope")
    if require_envelope:
        if envelope.get("policy") == "off":
            problems.append("the required test ran with test_envelope off")
        missing = envelope.get("missing")
        if not isinstance(missing, list) or missing:
            problems.append(f"the test's envelope was not all enforced: {missing!r}")
    return problems


def _log_digest(observed: list[str]) -> str:
    import hashlib

    return hashlib.sha256("".join(f"{line}\n" for line in observed).encode("utf-8")).hexdigest()


def _verdict_problems(report: dict[str, Any]) -> list[str]:
    problems = []
    if report.get("result") != PASS:
        problems.append(f"result is {report.get('result')!r}, not 'PASS'")
    if report.get("exit_code") != 0:
        problems.append(f"exit_code is {report.get('exit_code')!r}, not 0")
    if report.get("shadow") is not False:
        problems.append("report comes from a shadow run, which never blocks and so proves nothing")
    if report.get("violations"):
        problems.append(f"report lists {len(report['violations'])} violation(s)")
    return problems


def _binding_problems(binding: dict[str, Any], expected: dict[str, str | None]) -> list[str]:
    problems = []
    for key, want in expected.items():
        if want is None:
            continue
        got = binding.get(key)
        if not isinstance(got, str) or got.lower() != want.lower():
            problems.append(f"binding.{key} is {got!r}, expected {want!r}")
    return problems


def verify_report(
    report: dict[str, Any],
    *,
    manifest_sha256: str | None,
    base: str | None,
    head: str | None,
    change_digest: str | None = None,
    allow_skipped_test: bool = False,
    require_envelope: bool = False,
) -> list[str]:
    """Problems that stop `report` from vouching for these facts; empty means it does.

    Facts given as None are not checked. `base` and `head` are full commit ids. The required
    test must have passed; with `allow_skipped_test`, a run with --skip-test is accepted too. The
    observer log must match its digest; with `require_envelope`, the whole envelope must have held.
    """
    if not isinstance(report, dict):
        return ["report is not a JSON object"]
    problems = _verdict_problems(report) + _test_problems(report, allow_skipped_test)
    problems += _envelope_problems(report, require_envelope)
    binding = report.get("binding")
    if not isinstance(binding, dict):
        return [*problems, "report has no binding object"]
    if head is not None and report.get("mode") != "range":
        # A worktree report scored uncommitted changes on top of HEAD; that commit
        # does not contain what was scored, so it cannot vouch for it.
        mode = report.get("mode")
        problems.append(f"report mode is {mode!r}; only a 'range' report binds to a head commit")
    expected = {"manifest_sha256": manifest_sha256, "base": base, "head": head}
    return problems + _binding_problems(binding, {**expected, "change_digest": change_digest})
