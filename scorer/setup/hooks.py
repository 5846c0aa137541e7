"""The hook configuration `score-diff init` and `score-diff install-hook` write, and the one
rule for writing it: a file that is already there is kept unless --force says otherwise."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..errors import ScoreDiffError

MARK = "# written by score-diff install-hook"


class Written(NamedTuple):
    path: Path
    state: str  # "written", "unchanged", "kept" (it differs, and --force was not given), "replaced"


def branch_args(branches: Sequence[str], since: str | None = None) -> list[str]:
    """--branches for each glob, and --since BASE when the base is known: the hook then scores the
    branch's commits and the uncommitted change together, as CI's --base BASE scores them."""
    return [w for b in branches for w in ("--branches", b)] + (["--since", since] if since else [])


def git_hook_scripts(python: str, branches: Sequence[str], since: str | None = None) -> dict[str, str]:
    """Plain `.git/hooks` scripts: the interpreter score-diff is installed in, named in full, so
    the hook works from any shell (an activated virtualenv is not on the hook's PATH)."""
    run = shlex.join([python, "-m", "scorer"])
    only = shlex.join(branch_args(branches, since))
    return {
        "pre-commit": f"#!/bin/sh\n{MARK}\nexec {run} {only} --defer-justifications --gate hook\n",
        # The test already ran at pre-commit on this same tree: commit-msg reads the trailers only.
        "commit-msg": f'#!/bin/sh\n{MARK}\nexec {run} commit-msg {only} --skip-test --gate hook "$1"\n',
    }


def _yaml_list(words: Sequence[str]) -> str:
    return "[" + ", ".join(f"'{w}'" if any(c in w for c in "*:#{}[],&!|>'\"%@`") else w for w in words) + "]"


def pre_commit_config(branches: Sequence[str], since: str | None = None) -> str:
    """A `repo: local` config with `language: system`: it runs the score-diff on PATH, so it works
    before any release is published (pre-commit builds nothing)."""
    return f"""# written by score-diff init: the agent job gate (see docs/teams.md)
default_install_hook_types: [pre-commit, commit-msg]
repos:
{local_repo_entry(branches, since)}"""


def local_repo_entry(branches: Sequence[str], since: str | None = None, indent: str = "  ") -> str:
    """The `- repo: local` entry with score-diff's two hooks, its lines indented by `indent`."""
    only = branch_args(branches, since)
    text = f"""- repo: local
  hooks:
    - id: score-diff
      name: score-diff (agent job gate)
      entry: score-diff
      args: {_yaml_list([*only, "--defer-justifications"])}
      language: system
      pass_filenames: false
      always_run: true
      verbose: true
      stages: [pre-commit]
    - id: score-diff-commit-msg
      name: score-diff (Blast-Radius trailers in the commit message)
      entry: score-diff commit-msg
      args: {_yaml_list([*only, "--skip-test"])}
      language: system
      always_run: true
      stages: [commit-msg]
"""
    return "".join(indent + line if line.strip() else line for line in text.splitlines(True))


def write_file(path: Path, text: str, force: bool, executable: bool = False) -> Written:
    """Write `text` unless the same file is there (unchanged) or another one is (kept, without force)."""
    try:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
    except (OSError, UnicodeDecodeError):
        current = ""
    if current == text:
        return Written(path, "unchanged")
    if (current is not None or path.is_symlink()) and not force:
        return Written(path, "kept")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()  # never write through a link to somewhere else
        path.write_text(text, encoding="utf-8")
        if executable:
            os.chmod(path, 0o755)  # noqa: S103 - git runs a hook only if it is executable
    except OSError as exc:
        raise ScoreDiffError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return Written(path, "written" if current is None else "replaced")


def install_git_hooks(
    hooks_dir: Path, python: str, branches: Sequence[str], force: bool, since: str | None = None
) -> list[Written]:
    return [
        write_file(hooks_dir / name, text, force, executable=True)
        for name, text in git_hook_scripts(python, branches, since).items()
    ]


def installed_since(text: str) -> str | None:
    """The `--since REF` a hook script or a pre-commit hook's args pass score-diff; None without one."""
    found = re.search(r"--since[\s,=']+([^\s,'\]]+)", text)
    return found.group(1) if found else None


def hooks_since(hooks_dir: Path, work_tree: str) -> tuple[bool, str | None]:
    """(a pre-commit hook runs score-diff, the --since it passes): read off the installed script,
    or off the pre-commit config when the script is pre-commit's own."""
    try:
        text = (hooks_dir / "pre-commit").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False, None
    if "File generated by pre-commit" in text or "-mpre_commit" in text:
        try:
            text = Path(work_tree, ".pre-commit-config.yaml").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False, None
        blocks = [b.split("- repo:")[0] for b in text.split("- id:")[1:] if b.split()[0].strip("'\"") == "score-diff"]
        text = blocks[0] if blocks else ""
    runs = "scorer" in text or "score-diff" in text
    return runs, installed_since(text) if runs else None


def describe(w: Written, shown: str) -> str:
    return {
        "written": f"wrote {shown}",
        "replaced": f"replaced {shown} (--force)",
        "unchanged": f"{shown} is already up to date",
        "kept": f"kept {shown}: it exists and differs (pass --force to overwrite)",
    }[w.state]
