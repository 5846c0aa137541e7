"""The job's fence as instructions an agent can follow before it starts (`score-diff fence`, and
the guard's session-start context): what to change, what never to touch, the limits, the
tokens, the sensitive paths and how to justify them, the test and how the gate runs."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

from ..report.escape import json_safe, printable

if TYPE_CHECKING:
    from ..manifest.load import Manifest

_LIMITS = (
    ("max_files_changed", "changed files"),
    ("max_hunk_lines", "added+removed lines per hunk (keep edits small and apart; do not rewrite or reformat files)"),
    ("max_changed_lines", "changed lines in all"),
    ("max_file_bytes", "bytes per file"),
)
TRAILERS = ("Blast-Radius: {path}", "Justification: <file>:<line> <why>", "Rollback: <how to undo it>")


def fence_facts(manifest: Manifest, manifest_rel: str | None = None) -> dict[str, Any]:
    """Everything the agent is told, as data (the JSON form)."""
    from ..checks.protected import protected_paths
    from ..checks.sensitive import classify
    from ..manifest.globs import is_glob

    m = manifest
    sensitive = []
    for entry in m.allowed_paths:
        hit = (
            None
            if is_glob(entry)
            else classify(
                entry, extra_globs=m.sensitive_globs, exempt=frozenset(m.sensitive_exempt), manifest_path=manifest_rel
            )
        )
        if hit is not None:
            sensitive.append(
                {
                    "path": entry,
                    "category": hit.category,
                    "reason": hit.reason,
                    "trailers": [t.format(path=entry) for t in TRAILERS],
                }
            )
    return {
        "job_id": m.job_id,
        "description": m.description,
        "allowed_paths": list(m.allowed_paths),
        "forbidden_globs": list(m.forbidden_globs),
        "limits": {key: getattr(m, key) for key, _ in _LIMITS if getattr(m, key) is not None},
        "forbidden_substrings": list(m.forbidden_substrings),
        "forbidden_patterns": list(m.forbidden_patterns),
        "allow": {"binary": m.allow_binary, "symlinks": m.allow_symlinks, "submodules": m.allow_submodules},
        "sensitive_allowed_paths": sensitive,
        "protected_tests": protected_paths(m),
        "required_test": {
            "argv": list(m.required_test),
            "command": shlex.join(m.required_test),
            "timeout_s": m.test_timeout_s,
            "always_run": m.always_run_test,
        },
        "manifest": manifest_rel,
    }


def _codes(values: list[str]) -> str:
    return ", ".join(f"`{v}`" for v in values)


def _limits(facts: dict[str, Any]) -> str:
    words = dict(_LIMITS)
    parts = [f"at most {value} {words[key]}" for key, value in facts["limits"].items()]
    kinds = [k for k, on in facts["allow"].items() if not on]
    if kinds:
        parts.append(f"text files only (no {', '.join(kinds)})")
    return "; ".join(parts) or "none"


def _never_add(facts: dict[str, Any]) -> str:
    parts = [_codes(facts["forbidden_substrings"])] if facts["forbidden_substrings"] else []
    if facts["forbidden_patterns"]:
        parts.append("lines matching " + _codes(facts["forbidden_patterns"]))
    parts.append(
        "credentials (read them from the environment at run time); risky shell (a download piped to a "
        "shell, shell profiles, SSH config, chmod 777)"
    )
    return "; ".join(parts)


def _sensitive(facts: dict[str, Any]) -> str:
    granted = facts["sensitive_allowed_paths"]
    if not granted:
        return (
            "none granted: leave environment files, migrations, CI, build files, lockfiles, infrastructure, "
            "and auth, billing or security code alone"
        )
    paths = "; ".join(f"`{s['path']}` ({s['category']})" for s in granted)
    return (
        f"{paths}: change one only if the job needs it, and put these trailer lines in the commit message, "
        "the evidence being a file and line you read that shows the change is needed: "
        + "; ".join(_codes(s["trailers"]) for s in granted)
    )


def render_markdown(facts: dict[str, Any]) -> str:
    """The fence in words, for the agent's prompt."""
    t = facts["required_test"]
    out = [f"# Your job: {facts['job_id']}"]
    if facts["description"]:
        out.append(facts["description"])
    out += [
        "",
        f"- **Change only:** {_codes(facts['allowed_paths'])}",
        f"- **Never change** (these win): {_codes(facts['forbidden_globs']) or 'nothing else is named'}",
        f"- **Limits:** {_limits(facts)}",
        f"- **Never add:** {_never_add(facts)}",
        f"- **Sensitive paths:** {_sensitive(facts)}",
    ]
    if facts["protected_tests"]:
        out.append(
            f"- **Tests you may add to, never weaken:** {_codes(facts['protected_tests'])} (no removed or "
            "loosened assertion, removed test, skip or xfail, early `return` or `if False:`, deleted or "
            "renamed file): make the code pass the test"
        )
    out += [
        f"- **Required test** (must pass; run it from the repository root, {t['timeout_s']:g} s at most): "
        f"`{t['command']}`",
        f"- **The gate:** {_gate(facts.get('gate'))} The last line is `RESULT: PASS` or `RESULT: FAIL`; "
        "under each FAIL line, `-> do:` says what to do "
        "next: do exactly that, then run `score-diff` again. The fence is set by the user: do not edit it, its "
        "pin or the hook configuration.",
    ]
    return printable("\n".join(out)) + "\n"


def _gate(gate: dict[str, Any] | None) -> str:
    """What the installed hooks really score (`score-diff fence` reads them off this clone)."""
    since = gate.get("since") if gate else None
    if gate is None or not gate.get("hooks"):
        start = "`score-diff`" if gate is None else "no score-diff hook is installed in this clone; `score-diff`"
        runs = " and runs on every commit" if gate is None else ""
        return (
            f"{start} scores the working tree against HEAD (staged, unstaged and untracked files){runs}; "
            "`score-diff --base <the branch you started from>` scores your commits, as CI does."
        )
    if since is None:
        return (
            "the hook on every commit scores the working tree against HEAD only (staged, unstaged and untracked "
            "files); CI's `score-diff --base <the branch you started from>` also scores your commits."
        )
    return (
        f"the hook on every commit runs `score-diff --since {since}`: your commits since the merge-base with "
        f"{since} and the working tree together (staged, unstaged and untracked files), with {since}'s tests, "
        f"exactly as CI's `score-diff --base {since}` will; run that command yourself to see the verdict."
    )


def render_json(facts: dict[str, Any]) -> str:
    return json_safe(json.dumps(facts, indent=2, ensure_ascii=False)) + "\n"
