"""The one contract between the command walker and the programs it meets.

A program handler is a function `(walk, name, args)`: `name` is the program's basename, `args`
its words (None for a word that is not literal), and `walk` the part of the walk it may use,
described by `ShellWalk`. A handler records what the program would write through `walk`,
follows a command the program runs with `walk.dispatch` or `walk.run_code`, and raises
`Unknown` for what it cannot read exactly. Handlers import this module and options.py, never
each other and never the walker (in the spirit of pre-commit's `lang_base.py` Protocol, with
programs.py as its `all_languages.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import NamedTuple, Protocol

from ..payload import Target

Args = list[str | None]


class Unknown(Exception):
    """A command line the guard cannot read exactly as the program would."""


class Stdin(NamedTuple):
    """Where a command's standard input comes from, when the command itself says so."""

    what: str  # "a pipe", "a heredoc", "a here-string", "a file"
    text: str | None  # the literal text, when the command shows it


class ShellWalk(Protocol):
    """What a program handler may read and call of the walk it is part of."""

    cwds: tuple[str, ...] | None  # the directories the command may run in; None: not known
    home: str | None
    stdin: Stdin | None  # None: inherited from the agent, which the command does not control
    targets: list[Target]
    skips: list[str]  # what would skip or disable the commit gate

    def unknown(self, why: str) -> None:
        """Record that some write cannot be established."""

    def target(
        self, value: str | None, op: str, what: str, content: str | None = None, link: str | None = None
    ) -> None:
        """A path the program writes (`op`: write, edit, delete, ...), relative to each directory."""

    def tree_target(self, value: str | None, op: str, what: str) -> None:
        """A target that may be a directory: every file under it would change."""

    def isdir(self, value: str) -> bool:
        """Whether `value` is a directory (not a link to one) in any directory the command may run in."""

    def chdir(self, value: str | None) -> None:
        """`cd value`, as bash would take it."""

    def inside(self, value: str | None) -> AbstractContextManager[None]:
        """Run what follows in another directory (env -C, sudo -D, git -C)."""

    def env(self, name: str, value: str | None) -> None:
        """A variable the command sets for what it runs."""

    def run_code(self, code: str | None, what: str) -> None:
        """Bash code a runner takes from a string (`bash -c`, `trap`)."""

    def dispatch(self, name: str, args: Args) -> None:
        """Account for a command a program runs: `name` and its words, looked up in the program table."""


Handler = Callable[[ShellWalk, str, Args], None]
