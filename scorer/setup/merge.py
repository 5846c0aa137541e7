"""score-diff's hooks merged into a `.pre-commit-config.yaml` that already exists, as text.

The user's file keeps every byte it had: its hooks, their order, its comments (a YAML
round trip would drop the comments). Two edits, both by line, for the shapes pre-commit's
own documentation and `pre-commit sample-config` use:

- the `- repo: local` entry with score-diff's two hooks is appended at the end of the
  block list under the top-level `repos:` key, at the list's own indentation;
- `default_install_hook_types` gets `pre-commit` and `commit-msg` (a flow list on one line
  is extended; a missing key is added above `repos:`), so `pre-commit install` installs both
  stages.

Anything else (flow-style `repos: [...]`, anchors, tabs, a block-style
`default_install_hook_types`, a file that already names score-diff's hooks some other way)
is not guessed at: `Unmergeable` says why, and init prints the exact lines to add.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .hooks import local_repo_entry

HOOK_IDS = ("score-diff", "score-diff-commit-msg")
STAGES = ("pre-commit", "commit-msg")
_REPOS = re.compile(r"^repos:[ \t]*(#.*)?$")
_TYPES = re.compile(r"^default_install_hook_types:[ \t]*(?P<value>[^#]*?)[ \t]*(?P<comment>#.*)?$")
_ITEM = re.compile(r"^(?P<indent>[ ]*)- ")
_ANCHOR = re.compile(r"(^|[\s\[,:])[&*][A-Za-z0-9_-]+")  # &name, *name; not the '*' in 'agent-*'


class Unmergeable(Exception):
    """The file's shape is not one the textual merge handles; the message says which."""


class Merged(NamedTuple):
    text: str
    changed: bool  # False: the hooks were already there


def merge(text: str, branches: Sequence[str], since: str | None) -> Merged:
    """`text` with score-diff's hooks and both hook types added; raises Unmergeable."""
    if "\t" in text or "\r" in text:
        raise Unmergeable("it has tabs or CR line ends")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    named = [i for i in HOOK_IDS if re.search(rf"^\s*-?\s*id:\s*['\"]?{re.escape(i)}['\"]?\s*(#.*)?$", text, re.M)]
    if len(named) == len(HOOK_IDS):
        same = _with_types(lines)
        return Merged("".join(same), same != lines)
    if named:
        raise Unmergeable(f"it names {named[0]} already but not the other score-diff hook")
    start = next((i for i, line in enumerate(lines) if _REPOS.match(line.rstrip("\n"))), None)
    if start is None:
        raise Unmergeable("it has no block-style top-level 'repos:' key")
    indent, end = _block(lines, start)
    entry = local_repo_entry(branches, since, indent=indent)
    lines[end:end] = [entry]
    merged = _with_types(lines)
    return Merged("".join(merged), True)


def _block(lines: list[str], start: int) -> tuple[str, int]:
    """(the list items' indentation, the index after the block's last item line)."""
    indent: str | None = None
    last = start
    for i in range(start + 1, len(lines)):
        body = lines[i].rstrip("\n")
        if not body.strip() or body.lstrip().startswith("#"):
            continue
        if indent is None:
            m = _ITEM.match(body)
            if m is None:
                raise Unmergeable("the line after 'repos:' is not a list item ('- repo: ...')")
            indent = m.group("indent")
        if body.startswith(indent + "-") or (body.startswith(indent + " ") and body[: len(indent) + 1].strip() == ""):
            last = i
            continue
        if indent and not body.startswith(" "):
            break
        if not indent and not body.startswith((" ", "-")):
            break
        raise Unmergeable(f"line {i + 1} is indented less than the list under 'repos:'")
    if indent is None:
        raise Unmergeable("'repos:' has no entries to add to")
    if any(_ANCHOR.search(line) for line in lines[start : last + 1]):
        raise Unmergeable("the repos list uses YAML anchors or aliases")
    return indent, last + 1


def _with_types(lines: list[str]) -> list[str]:
    """`lines` with default_install_hook_types holding both stages (a new list of lines).

    A hook with no `stages` runs at every hook type that is installed (`default_stages`
    defaults to all stages, pre-commit.com "Confining hooks to run at certain stages"), so
    installing commit-msg would also run the user's hooks on the commit message. Without a
    `default_stages` of the user's own, one is added naming the types installed before: the
    user's hooks keep running exactly where they ran.
    """
    out = list(lines)
    at = next((i for i, line in enumerate(out) if line.startswith("default_install_hook_types:")), None)
    have = ["pre-commit"]  # what `pre-commit install` installs without the key
    if at is not None:
        m = _TYPES.match(out[at].rstrip("\n"))
        value = m.group("value") if m else ""
        if not (value.startswith("[") and value.endswith("]")):
            raise Unmergeable("default_install_hook_types is not a one-line [list]")
        have = [w.strip().strip("'\"") for w in value[1:-1].split(",") if w.strip()]
    missing = [s for s in STAGES if s not in have]
    if not missing:
        return out
    repos = next(i for i, line in enumerate(out) if _REPOS.match(line.rstrip("\n")))
    if not any(line.startswith("default_stages:") for line in out) and "commit-msg" in missing:
        note = "# added by score-diff init: your hooks run where they did"
        out.insert(repos, f"default_stages: [{', '.join(have)}]  {note}\n")
        at = at + 1 if at is not None and at >= repos else at
        repos += 1
    if at is None:
        out.insert(repos, f"default_install_hook_types: [{', '.join(STAGES)}]  # added by score-diff init\n")
    else:
        m = _TYPES.match(out[at].rstrip("\n"))
        comment = f"  {m.group('comment')}" if m and m.group("comment") else ""
        out[at] = f"default_install_hook_types: [{', '.join([*have, *missing])}]{comment}\n"
    return out


def lines_to_add(branches: Sequence[str], since: str | None) -> str:
    """What a person adds by hand when the file's shape is not one merge() handles."""
    return (
        "under the top-level `repos:` list, add:\n"
        + local_repo_entry(branches, since, indent="  ")
        + f"and make sure the file has: default_install_hook_types: [{', '.join(STAGES)}]\n"
    )
