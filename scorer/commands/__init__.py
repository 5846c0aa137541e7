"""The subcommands, one module each. Every module has `add_arguments(parser)` and
`run(args, ctx) -> int`; `scorer.main` lists them in one table.

Nothing below this package imports it: the pipeline, checks and renderers never see argv.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, TextIO


class Context(NamedTuple):
    """What a subcommand may touch of the world, passed in rather than read from globals."""

    environ: Mapping[str, str]
    stdout: TextIO
    stderr: TextIO
    stdin: TextIO
    cwd: str
