"""`score-diff guard install --agent NAME [--print]`: the agent's hook configuration for this repository.

The file is merged, never replaced: the user's own hooks stay, and the guard's entry is
added once (a second install changes nothing).

- Claude Code: `.claude/settings.json`, `hooks.PreToolUse` with matcher `*` (every tool,
  so unknown tools are asked about), `hooks.UserPromptSubmit` (the turn boundary) and
  `hooks.SessionStart` (the fence handed to the agent as context, docs/agent-feedback.md)
  (https://code.claude.com/docs/en/hooks, "Configuration", "Hook locations").
- Codex: `.codex/hooks.json`, the same `{"hooks": {EVENT: [{matcher, hooks: [{type:
  "command", command}]}]}}` shape, read from the project's config folder
  (codex-rs/hooks/src/engine/discovery.rs).
- Gemini CLI: `.gemini/settings.json` ("Project settings"), the same grouped shape under
  `hooks.BeforeTool` (matcher `*`: "matches all occurrences") and `hooks.BeforeAgent`
  (https://geminicli.com/docs/hooks, "Configuration", "Matchers";
  https://geminicli.com/docs/hooks/reference, "Configuration schema").
- GitHub Copilot: a file of its own, `.github/hooks/score-diff.json` (every
  `.github/hooks/*.json` is loaded), `{"version": 1, "hooks": {EVENT: [{type: "command",
  bash, powershell, timeoutSec}]}}` for `preToolUse` and `userPromptSubmitted`, entries not
  grouped and no matcher (every tool) (https://docs.github.com/en/copilot/reference/hooks-reference,
  "Hooks locations", "Command hooks", "Matcher filtering").
- The agent's own sandbox (Claude Code's `sandbox` settings in the same file, Codex's
  `.codex/config.toml`), written from the job manifest: sandbox.py cites each key.
- Cursor: `.cursor/hooks.json` (project level), `{"version": 1, "hooks": {EVENT: [{command}]}}`
  for `beforeShellExecution` and `beforeMCPExecution` (eqtylab/cupcake
  docs/docs/reference/harnesses/cursor.md, "Setup"; johnlindquist/cursor-hooks src/types.ts,
  `CursorHooksConfig`).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from .payload import AGENTS, CLAUDE, CODEX, COPILOT, CURSOR, GEMINI

CONFIG_FILES = {
    CLAUDE: Path(".claude/settings.json"),
    CODEX: Path(".codex/hooks.json"),
    GEMINI: Path(".gemini/settings.json"),
    COPILOT: Path(".github/hooks/score-diff.json"),
    CURSOR: Path(".cursor/hooks.json"),
}
# (the tool-call event, the new-turn event) in each agent's configuration
EVENTS = {
    CLAUDE: ("PreToolUse", "UserPromptSubmit", "SessionStart"),  # SessionStart: the fence, as context
    CODEX: ("PreToolUse", "UserPromptSubmit"),
    GEMINI: ("BeforeTool", "BeforeAgent"),
    COPILOT: ("preToolUse", "userPromptSubmitted"),
    CURSOR: ("beforeShellExecution", "beforeMCPExecution"),  # the turn is generation_id: no prompt event
}


def command_for(agent: str) -> str:
    return f"score-diff guard --agent {agent}"


def sidecar_command(agent: str, port: int) -> str:
    """A command hook that asks `score-diff serve` and fails closed: when the sidecar does not
    answer (not running, a non-2xx status, a timeout), exit 2 with the reason blocks the call.
    An `"type": "http"` hook would fail open there: Claude Code treats a non-2xx answer, a
    connection failure and a timeout as non-blocking (https://code.claude.com/docs/en/hooks,
    "HTTP response handling")."""
    url = f"http://127.0.0.1:{port}/score?agent={agent}"
    why = f"score-diff serve did not answer on 127.0.0.1:{port}: start it with score-diff serve --port {port}"
    return (
        f"curl -sS --fail --max-time 10 -H 'Content-Type: application/json' --data-binary @- '{url}' "
        f"|| {{ echo '{why}' >&2; exit 2; }}"
    )


def merged(existing: dict[str, Any], agent: str, command: str | None = None) -> dict[str, Any]:
    """`existing` with the guard's hooks added where they are missing; nothing removed."""
    config = json.loads(json.dumps(existing))  # a deep copy
    if agent in (COPILOT, CURSOR) and config.setdefault("version", 1) != 1:
        raise ValueError(f"its version is {config['version']!r}, not 1; fix it by hand, then run install again")
    hooks = config.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its 'hooks' is not an object; fix it by hand, then run install again")
    command = command or command_for(agent)
    for i, event in enumerate(EVENTS[agent]):
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ValueError(f"its hooks.{event} is not a list; fix it by hand, then run install again")
        if agent == COPILOT:  # entries are not grouped; bash or powershell runs, by platform
            if not any(isinstance(h, dict) and command in (h.get("bash"), h.get("command")) for h in groups):
                groups.append({"type": "command", "bash": command, "powershell": command, "timeoutSec": 30})
            continue
        if agent == CURSOR:  # entries are not grouped and have no matcher (agents/cursor.py)
            if not any(isinstance(h, dict) and h.get("command") == command for h in groups):
                groups.append({"command": command})
            continue
        present = any(
            isinstance(g, dict)
            and isinstance(g.get("hooks"), list)
            and any(isinstance(h, dict) and h.get("command") == command for h in g["hooks"])
            for g in groups
        )
        if not present:
            group: dict[str, Any] = {"hooks": [{"type": "command", "command": command}]}
            if i == 0:  # every tool, so unknown tools are asked about
                group = {"matcher": "*", **group}
            groups.append(group)
    return config


SANDBOXED = (CLAUDE, CODEX)  # agents whose own OS sandbox install writes from the manifest (sandbox.py)


def _fence(root: str, git_dir: str, args: argparse.Namespace, environ: Mapping[str, str], cwd: str) -> tuple[Any, str]:
    """The job's fence as the guard reads it, or (None, why) when there is none to write a sandbox from."""
    from ..errors import ScoreDiffError
    from .run import GuardOptions, load_fence

    try:
        loaded = load_fence(root, git_dir, GuardOptions(args.agent, manifest=args.manifest, cwd=cwd), environ, None)
    except ScoreDiffError as exc:
        return None, f"{exc}; pass --manifest, or commit the manifest and run install again"
    return loaded.fence, ""


def _codex_sandbox(root: Path, fence: Any, stdout: TextIO) -> int:
    from .sandbox import merged_codex

    path = root / ".codex" / "config.toml"
    try:
        text = merged_codex(path.read_text(encoding="utf-8") if path.exists() else "", fence)
    except (OSError, ValueError) as exc:
        stdout.write(f"score-diff guard install: cannot merge {path}: {exc}\n")
        return 2
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stdout.write(f"wrote {path}: sandbox_mode = workspace-write, network off unless the job allows it\n")
    return 0


def run_install(argv: Sequence[str], environ: Mapping[str, str], stdout: TextIO, cwd: str = ".") -> int:
    p = argparse.ArgumentParser(
        prog="score-diff guard install",
        description="Write (or print) the agent's hook "
        "configuration for this repository, keeping the hooks already there.",
    )
    p.add_argument("--agent", choices=AGENTS, required=True)
    p.add_argument("--repo", default=".", help="repository (default: the current directory)")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the merged file; write nothing")
    p.add_argument(
        "--sidecar",
        action="store_true",
        help="Claude Code only: ask score-diff serve through curl, failing closed when it does not answer",
    )
    p.add_argument("--port", type=int, default=7749, help="the sidecar's port, with --sidecar (default 7749)")
    p.add_argument(
        "--manifest", help="job manifest the agent's sandbox is written from (default: as the guard finds it)"
    )
    p.add_argument("--no-sandbox", action="store_true", help="write the hooks only, not the agent's sandbox settings")
    args = p.parse_args(argv)
    if args.sidecar and args.agent != CLAUDE:
        p.error("--sidecar is for --agent claude; other agents reach the sidecar as docs/guard.md shows")
    command = sidecar_command(args.agent, args.port) if args.sidecar else command_for(args.agent)
    from ..errors import GitError
    from ..inspection.git import locate

    try:
        root, git_dir = locate(os.path.join(cwd, args.repo), environ)
    except GitError as exc:
        stdout.write(f"score-diff guard install: {exc}\n")
        return 2
    path = Path(root) / CONFIG_FILES[args.agent]
    fence, why = (None, "--no-sandbox") if args.no_sandbox else _fence(root, git_dir, args, environ, cwd)
    try:
        existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        if not isinstance(existing, dict):
            raise ValueError("it is not a JSON object")
        config = merged(existing, args.agent, command)
        if fence is not None and args.agent == CLAUDE:
            from .sandbox import merged_claude

            config = merged_claude(config, fence)
        text = json.dumps(config, indent=2) + "\n"
    except (OSError, ValueError) as exc:
        stdout.write(f"score-diff guard install: cannot merge {path}: {exc}\n")
        return 2
    if fence is not None and args.agent == CODEX and not args.print_only:  # --print: the hook file only
        if _codex_sandbox(Path(root), fence, stdout) != 0:
            return 2
    elif args.agent in SANDBOXED and fence is None and not args.print_only:
        stdout.write(f"score-diff guard install: the agent's sandbox settings are not written ({why})\n")
    if args.print_only:
        stdout.write(text)
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    stdout.write(
        f"wrote {path}: {' and '.join(EVENTS[args.agent])} run `{command}`\n"
        f"commit it on the base branch, with the job manifest, so the job cannot switch its guard off\n"
    )
    return 0
