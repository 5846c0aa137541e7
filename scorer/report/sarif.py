"""SARIF 2.1.0 for GitHub code scanning: one run, one result per violation.

A violation without a path is placed on the manifest (when its path is relative
to the repository), because code scanning shows no result that lacks a location.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from typing import Any
from urllib.parse import quote

from ..codes import CODES
from ..model import Result, Violation
from .escape import printable
from .facts import to_dict

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/score-diff/score-diff"
FINGERPRINT_KEY = "scoreDiffViolation/v1"
_DIGITS = re.compile(r"\d+")
_DRIVE = re.compile(r"[A-Za-z]:")


def help_uri(code: str) -> str:
    """The section of docs/codes.md that documents `code` (its anchor is `code-<code>`)."""
    return f"{INFORMATION_URI}/blob/main/docs/codes.md#code-{code}"


def _rule(code: str) -> dict[str, Any]:
    info = CODES.get(code)
    title, text = (info.title, info.help) if info else (code, f"Violation code {code}.")
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.split("-")),
        "shortDescription": {"text": title},
        "fullDescription": {"text": text},
        "help": {"text": text, "markdown": f"{text}\n\n[Documentation]({help_uri(code)})"},
        "helpUri": help_uri(code),
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["score-diff"]},
    }


def fingerprints(violations: tuple[Violation, ...]) -> list[str]:
    """One stable id per violation: code, path and message with numbers blanked, plus occurrence.

    Numbers are blanked so a violation keeps its identity when lines move or counts
    change; the occurrence suffix keeps two such violations in one file apart.
    """
    seen: Counter[str] = Counter()
    out = []
    for v in violations:
        key = "\0".join((v.code, v.path or "", _DIGITS.sub("0", v.message)))
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()
        seen[digest] += 1
        out.append(f"{digest}:{seen[digest]}")
    return out


def artifact_uri(path: str) -> str:
    """A repository path as a relative URI reference; undecodable bytes keep their byte value."""
    return quote(path, safe="/", errors="surrogateescape")


def _is_repo_relative(path: str) -> bool:
    absolute = path.startswith(("/", "\\")) or _DRIVE.match(path) is not None
    return not absolute and ".." not in path.replace("\\", "/").split("/")


def _location(path: str, line: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(path), "uriBaseId": "%SRCROOT%"}}
    if line is not None and line >= 1:
        physical["region"] = {"startLine": line}
    return {"physicalLocation": physical}


def _result(v: Violation, rule_index: int, fingerprint: str, result: Result) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": v.code,
        "ruleIndex": rule_index,
        "level": "note" if result.shadow else "error",
        "message": {"text": printable(v.message or v.code) + (f"\nDo: {printable(v.hint)}" if v.hint else "")},
    }
    if v.hint or v.fix:  # the agent's next step and the manifest author's option, as data too
        out["properties"] = {k: printable(text) for k, text in (("hint", v.hint), ("fix", v.fix)) if text}
    if v.path:
        out["locations"] = [_location(v.path, v.line)]
    elif result.manifest_path and _is_repo_relative(result.manifest_path):
        out["locations"] = [_location(result.manifest_path, None)]
    out["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    return out


def _invocation(result: Result) -> dict[str, Any]:
    out: dict[str, Any] = {"executionSuccessful": result.exit_code != 2, "exitCode": result.exit_code}
    if result.started_at:
        out["startTimeUtc"] = result.started_at
    notes = [{"level": "warning", "message": {"text": printable(w)}} for w in result.warnings]
    if notes:
        out["toolExecutionNotifications"] = notes
    return out


def to_sarif(result: Result) -> dict[str, Any]:
    """The SARIF log as a dict; run.properties.scoreDiff carries the JSON report's other facts."""
    present = {v.code for v in result.violations}
    codes = [c for c in CODES if c in present] + sorted(present - CODES.keys())
    index = {code: i for i, code in enumerate(codes)}
    facts = {k: v for k, v in to_dict(result).items() if k != "violations"}
    prints = fingerprints(result.violations)
    driver = {
        "name": "score-diff",
        "version": result.version,
        "informationUri": INFORMATION_URI,
        "rules": [_rule(c) for c in codes],
    }
    run = {
        "tool": {"driver": driver},
        "invocations": [_invocation(result)],
        "results": [_result(v, index[v.code], fp, result) for v, fp in zip(result.violations, prints, strict=True)],
        "properties": {"scoreDiff": facts},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(result: Result) -> str:
    """SARIF JSON; ASCII-only so undecodable path bytes cannot break the file's encoding."""
    return json.dumps(to_sarif(result), indent=2, ensure_ascii=True) + "\n"
