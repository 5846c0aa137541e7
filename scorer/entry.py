"""The console entry point. `score-diff guard` runs on every agent tool call, so it skips importing
the other subcommands (and their jsonschema, reports and demo) that scorer.main loads for its table."""

from __future__ import annotations

import sys


def main() -> int:
    if sys.argv[1:2] == ["guard"]:
        from .commands.guard import run_hook

        return run_hook(sys.argv[2:])
    from .main import main as full

    return full()
