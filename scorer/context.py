"""What a subcommand may touch of the world: `scorer.main` builds it, `scorer.commands` read it.

It sits below both, so that neither imports the other to name it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, TextIO

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
