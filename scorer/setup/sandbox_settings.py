"""`doctor`: the agent's own sandbox is in place and matches the job manifest (guard/sandbox.py writes it).

For each agent whose folder is here and whose sandbox `guard install` writes (Claude Code,
Codex), the settings must say what the manifest says now: Claude Code's `sandbox` enabled,
failing when unavailable, with no unsandboxed escape, every path the fence denies in
`filesystem.denyWrite`, and no network domain unless the job allows the network; Codex's
`sandbox_mode = "workspace-write"` with the job's scratch roots and network access as the
job allows. A manifest edited since install (a new forbidden file) shows as a mismatch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# doctor's states; a finding is (state, what, fix), made a doctor.Finding by doctor.check
OK, MISSING = "ok", "MISSING"
Finding = tuple[str, str, str]


def findings(root: str, git_dir: str, environ: Mapping[str, str]) -> list[Finding]:
    """One finding per agent folder here whose sandbox the guard writes; none when there is no such folder."""
    agents = [a for a, folder in (("claude", ".claude"), ("codex", ".codex")) if Path(root, folder).is_dir()]
    if not agents:
        return []
    from ..errors import ScoreDiffError
    from ..guard.run import GuardOptions, load_fence

    try:
        fence = load_fence(root, git_dir, GuardOptions(agents[0]), environ, None).fence
    except ScoreDiffError as exc:
        return [(MISSING, f"the agent's sandbox cannot be checked: {exc}", "commit the job manifest")]
    return [_claude(root, fence) if agent == "claude" else _codex(root, fence) for agent in agents]


def _claude(root: str, fence: Any) -> Finding:
    from ..guard.sandbox import claude_sandbox

    fix = "score-diff guard install --agent claude"
    try:
        settings = json.loads(Path(root, ".claude", "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        settings = {}
    have = settings.get("sandbox") if isinstance(settings, dict) else None
    if not isinstance(have, dict):
        return (MISSING, ".claude/settings.json has no sandbox settings", fix)
    want = claude_sandbox(fence)
    wrong = [k for k in ("enabled", "failIfUnavailable", "allowUnsandboxedCommands") if have.get(k) is not want[k]]
    deny = (have.get("filesystem") or {}).get("denyWrite") or []
    missing = [p for p in want["filesystem"]["denyWrite"] if p not in deny]
    network = "network" in want and (have.get("network") or {}).get("allowedDomains") != []
    if wrong or missing or network:
        what = ", ".join([f"sandbox.{k}" for k in wrong] + [f"denyWrite lacks {p}" for p in missing[:3]])
        what += ", network is open" if network else ""
        return (MISSING, f"Claude Code's sandbox does not match the manifest ({what.lstrip(', ')})", fix)
    return (OK, "Claude Code's sandbox matches the manifest (.claude/settings.json)", "")


def _codex(root: str, fence: Any) -> Finding:
    from ..guard.sandbox import codex_config, read_codex

    fix = "score-diff guard install --agent codex"
    try:
        text = Path(root, ".codex", "config.toml").read_text(encoding="utf-8")
    except OSError:
        return (MISSING, ".codex/config.toml has no sandbox settings", fix)
    if read_codex(text) != read_codex(codex_config(fence)):
        return (MISSING, "Codex's sandbox (.codex/config.toml) does not match the manifest", fix)
    return (OK, "Codex's sandbox matches the manifest (.codex/config.toml)", "")
