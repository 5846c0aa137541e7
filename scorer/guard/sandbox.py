"""The agent's own OS sandbox, written from the job manifest (`score-diff guard install`).

Claude Code, `.claude/settings.json` key `sandbox` (https://code.claude.com/docs/en/settings,
"Sandbox settings"; https://code.claude.com/docs/en/sandboxing; the settings schema
`SandboxSettingsSchema` in Claude Code's entrypoints/sandboxTypes.ts):

- `enabled: true` sandboxes every Bash command (bubblewrap on Linux, Seatbelt on macOS);
- `failIfUnavailable: true` makes a missing sandbox a hard failure, not a warning and an
  unsandboxed run (v2.1.83+, anthropics/claude-code#38557);
- `allowUnsandboxedCommands: false` removes the `dangerouslyDisableSandbox` escape;
- `filesystem.denyWrite`: the paths sandboxed commands cannot write (`./` is relative to where
  Claude Code runs, the project root; hexdocs.pm/claude_code ClaudeCode.Sandbox.Filesystem,
  "Path Prefixes"): every existing file the fence denies, the manifest, its pin, and git's
  `config`, `hooks` and `info`;
- `network.allowedDomains: []` (no domain reachable) unless the job's `test_network` allows it.

Codex, `.codex/config.toml` (openai/codex docs/config.md, "sandbox_mode",
"sandbox_workspace_write"): `sandbox_mode = "workspace-write"` (the workspace and the
temporary directories writable, the rest read-only; `.git` is kept read-only by Codex's own
protected paths), `[sandbox_workspace_write] writable_roots` = the job's scratch_roots, and
`network_access = false` unless the job's `test_network` allows it. Codex has no per-file
deny: forbidden files inside the workspace are the guard's and the commit gate's to keep.
"""

from __future__ import annotations

import json
import os
from typing import Any

from .decide import GuardScope

CLAUDE_KEYS = ("enabled", "failIfUnavailable", "allowUnsandboxedCommands")
AGENT_CONFIG = (".claude", ".claude/settings.json")


def denied_paths(fence: GuardScope) -> list[str]:
    """Repo-relative paths the agent's sandbox must keep read-only (jailed.read_only, from the root)."""
    from .jailed import read_only

    found = read_only(fence, [fence.root])
    return sorted({os.path.relpath(p, fence.root).replace(os.sep, "/") for p in found})


def claude_sandbox(fence: GuardScope) -> dict[str, Any]:
    """Claude Code's `sandbox` settings for this job."""
    settings: dict[str, Any] = {
        "enabled": True,
        "failIfUnavailable": True,
        "allowUnsandboxedCommands": False,
        # the agent's own configuration too, which install is writing now (it would switch the guard off)
        "filesystem": {"denyWrite": list(dict.fromkeys([f"./{p}" for p in [*denied_paths(fence), *AGENT_CONFIG]]))},
    }
    if not fence.job.manifest.test_network:
        settings["network"] = {"allowedDomains": []}
    return settings


def merged_claude(existing: dict[str, Any], fence: GuardScope) -> dict[str, Any]:
    """`existing` settings with the job's sandbox in place (the guard's keys win; others stay)."""
    config = json.loads(json.dumps(existing))
    sandbox: dict[str, Any] = config["sandbox"] if isinstance(config.get("sandbox"), dict) else {}
    wanted = claude_sandbox(fence)
    sandbox.update({k: wanted[k] for k in CLAUDE_KEYS})
    filesystem: dict[str, Any] = sandbox["filesystem"] if isinstance(sandbox.get("filesystem"), dict) else {}
    deny = [p for p in filesystem.get("denyWrite", []) if isinstance(p, str)]
    filesystem["denyWrite"] = list(dict.fromkeys(deny + wanted["filesystem"]["denyWrite"]))
    sandbox["filesystem"] = filesystem
    if "network" in wanted:
        sandbox["network"] = {**(sandbox.get("network") or {}), "allowedDomains": []}
    config["sandbox"] = sandbox
    return config


def codex_config(fence: GuardScope) -> str:
    """Codex's sandbox block for `.codex/config.toml`."""
    roots = ", ".join(json.dumps(r) for r in fence.scratch)
    network = "true" if fence.job.manifest.test_network else "false"
    return (
        "# written by score-diff guard install --agent codex, from the job manifest\n"
        'sandbox_mode = "workspace-write"\n\n'
        "[sandbox_workspace_write]\n"
        f"writable_roots = [{roots}]\n"
        f"network_access = {network}\n"
    )


def merged_codex(existing: str, fence: GuardScope) -> str:
    """`existing` config.toml with the sandbox block; a file that already sets the sandbox is refused."""
    if "sandbox_mode" in existing or "[sandbox_workspace_write]" in existing:
        current = read_codex(existing)
        if current == read_codex(codex_config(fence)):
            return existing
        raise ValueError(
            "it already sets sandbox_mode or [sandbox_workspace_write]; remove them, then run install again"
        )
    block = codex_config(fence)
    # top-level keys must come before the first table: the block's own key goes first
    return block + ("\n" + existing if existing.strip() else "")


def read_codex(text: str) -> dict[str, Any]:
    """The sandbox keys of a config.toml (tomllib where Python has it, else the lines this module writes)."""
    try:
        import tomllib

        data = tomllib.loads(text)
    except ImportError:  # Python 3.10
        data = _read_simple(text)
    except ValueError:
        return {}
    table = data.get("sandbox_workspace_write") if isinstance(data.get("sandbox_workspace_write"), dict) else {}
    return {
        "sandbox_mode": data.get("sandbox_mode"),
        "writable_roots": table.get("writable_roots"),
        "network_access": table.get("network_access"),
    }


def _read_simple(text: str) -> dict[str, Any]:
    data: dict[str, Any] = {}
    table: dict[str, Any] = data
    for line in text.splitlines():
        line = line.strip()
        if line == "[sandbox_workspace_write]":
            table = data.setdefault("sandbox_workspace_write", {})
        elif line.startswith("["):
            table = {}
        elif "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            try:
                table[key.strip()] = json.loads(value.strip())
            except ValueError:
                table[key.strip()] = value.strip()
    return data
