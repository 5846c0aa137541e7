"""`score-diff guard install --agent NAME [--print]`: the agent's hook configuration for this repository.

The file is merged, never replaced: the user's own hooks stay, and the guard's entry is
added once (a second install changes nothing).

- Claude Code: `.claude/settings.json`, `hooks.PreToolUse` with matcher `*` (every tool,
  so unknown tools are asked about) and `hooks.UserPromptSubmit` (the turn boundary)
  (https://code.claude.com/docs/en/hooks, "Configuration", "Hook locations").
- Codex: `.codex/hooks.json`, the same `{"hooks": {EVENT: [{matcher, hooks: [{type:
  "command", command}]}]}}` shape, read from the project's config folder
  (codex-rs/hooks/src/engine/discovery.rs).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from .payload import AGENTS, CLAUDE, CODEX

CONFIG_FILES = {CLAUDE: Path(".claude/settings.json"), CODEX: Path(".codex/hooks.json")}
EVENTS = ("PreToolUse", "UserPromptSubmit")


def command_for(agent: str) -> str:
    return f"score-diff guard --agent {agent}"


def merged(existing: dict[str, Any], agent: str) -> dict[str, Any]:
    """`existing` with the guard's hooks added where they are missing; nothing removed."""
    config = json.loads(json.dumps(existing))  # a deep copy
    hooks = config.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its 'hooks' is not an object; fix it by hand, then run install again")
    command = command_for(agent)
    for event in EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"its hooks.{event} is not a list; fix it by hand, then run install again")
        present = any(
            isinstance(g, dict)
            and any(isinstance(h, dict) and h.get("command") == command for h in g.get("hooks") or [])
            for g in groups
        )
        if not present:
            group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
            if event == "PreToolUse":
                group = {"matcher": "*", **group}
            groups.append(group)
    return config


def run_install(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO, cwd: str = ".") -> int:
    p = argparse.ArgumentParser(
        prog="score-diff guard install",
        description="Write (or print) the agent's hook "
        "configuration for this repository, keeping the hooks already there.",
    )
    p.add_argument("--agent", choices=AGENTS, required=True)
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the merged file; write nothing")
    args = p.parse_args(argv)
    from ..errors import GitError
    from ..inspection.git import locate

    try:
        root, _ = locate(os.path.join(cwd, args.repo), environ)
    except GitError as exc:
        stdout.write(f"score-diff guard install: {exc}\n")
        return 2
    path = Path(root) / CONFIG_FILES[args.agent]
    try:
        existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if not isinstance(existing, dict):
            raise ValueError("it is not a JSON object")
        text = json.dumps(merged(existing, args.agent), indent=2) + "\n"
    except (OSError, ValueError) as exc:
        stdout.write(f"score-diff guard install: cannot merge {path}: {exc}\n")
        return 2
    if args.print_only:
        stdout.write(text)
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stdout.write(
        f"wrote {path}: PreToolUse and UserPromptSubmit run `{command_for(args.agent)}`\n"
        f"commit it on the base branch, with the job manifest, so the job cannot switch its guard off\n"
    )
    return 0
