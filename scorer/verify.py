"""verify-report: does a JSON report say PASS for exactly these facts?

A report is evidence only for what it was bound to. Before a merge trusts one, it
must be a real PASS (not shadow, exit 0, no violations) and its binding must name
the manifest, base and head the merge is about.
"""

from __future__ import annotations

from typing import Any

from .model import PASS


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
) -> list[str]:
    """Problems that stop `report` from vouching for these facts; empty means it does.

    Facts given as None are not checked. `base` and `head` are full commit ids.
    """
    if not isinstance(report, dict):
        return ["report is not a JSON object"]
    problems = _verdict_problems(report)
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
