"""The one table of programs the guard knows: a program's name, and the handler that reads its words.

A program is one row. A runner (runners.py) runs other code, a writer (writers.py,
gitcmd.py) writes the targets its command line names, an interpreter (interpreters.py) runs
inline code, a fetcher (fetchers.py) writes what its input or a server names. A name with no
row is "another program", whose own writes the guide leaves to the commit gate. A row whose
name ends in `*` also stands for the name followed by a version (`python3.12`, `node18`).
The walker looks the name up here (`lookup`) and calls the handler with itself; handlers
never call each other.
"""

from __future__ import annotations

import re

from . import fetchers, gitcmd, interpreters, runners, writers
from .base import Handler

VERSIONED = "*"


def _rows(*groups: dict[str, Handler]) -> dict[str, Handler]:
    """The groups as one table; a name in two groups is a mistake to find at import, not a shadowed row."""
    table: dict[str, Handler] = {}
    for group in groups:
        doubled = table.keys() & group.keys()
        if doubled:
            raise ValueError(f"programs in two rows: {sorted(doubled)}")
        table.update(group)
    return table


PROGRAMS: dict[str, Handler] = _rows(
    # runners
    dict.fromkeys(runners.WRAPPERS, runners.wrapper),
    dict.fromkeys(runners.SHELLS, runners.shell),
    dict.fromkeys(runners.UNKNOWN_BUILTINS, runners.unknown_builtin),
    dict.fromkeys(runners.OPAQUE, runners.opaque),
    dict.fromkeys(runners.OTHER_RUNNERS, runners.other_runner),
    dict.fromkeys(runners.EDITORS, runners.editor),
    {
        "cd": runners.cd,
        "pushd": runners.cd,
        "busybox": runners.busybox,
        "trap": runners.trap,
        "coproc": runners.coproc,
    },
    # writers
    {
        "tee": writers.tee,
        "sed": writers.sed,
        "rm": writers.delete,
        "unlink": writers.delete,
        "shred": writers.delete,
        "touch": writers.make,
        "truncate": writers.make,
        "chmod": writers.chmod,
        "dd": writers.dd,
        "sort": writers.sort,
        "cp": writers.copy,
        "mv": writers.copy,
        "ln": writers.copy,
        "install": writers.copy,
        "rsync": writers.copy,
        "find": writers.find,
        "apply_patch": writers.apply_patch,
        "applypatch": writers.apply_patch,
        "git": gitcmd.git,
    },
    # interpreters
    {"python" + VERSIONED: interpreters.python},
    {name + VERSIONED: interpreters.inline for name in interpreters.INLINE},
    dict.fromkeys(("awk", "gawk", "mawk", "nawk"), interpreters.awk),
    # fetchers
    dict.fromkeys(fetchers.UNPACKERS, fetchers.unpacker),
    {"curl": fetchers.curl, "wget": fetchers.wget},
)


def lookup(name: str) -> Handler | None:
    """The handler for the program `name` (a basename), or None: another program."""
    return PROGRAMS.get(name) or PROGRAMS.get(re.sub(r"[\d.]+$", "", name) + VERSIONED)
