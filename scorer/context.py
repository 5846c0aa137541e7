"""What a subcommand may touch of the world: `scorer.main` builds it, `scorer.commands` read it.

It sits below both, so that neither imports the other to name it.
"""

from __future__ import annotations

from .records import NamedTuple

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from typing import TextIO

if TYPE_CHECKING:  # a name for the type checker only: subscripting Callable at import is the hook's cost
    from collections.abc import Callable, Mapping, Sequence

    # The whole command line as main() runs it: argv, environment, stdout -> exit code.
    ScoreDiff = Callable[[Sequence[str], Mapping[str, str], TextIO], int]


class Context(NamedTuple):
    """What a subcommand may touch of the world, passed in rather than read from globals."""

    environ: Mapping[str, str]
    stdout: TextIO
    stderr: TextIO
    stdin: TextIO
    cwd: str
    # score-diff itself, for a command that runs it (demo); main passes itself, so no command
    # imports the command line above it.
    score_diff: ScoreDiff | None = None
