"""`python -m tests.cheat_corpus`: score every case and print the figures per category.

Run from the repository root with this checkout's scorer first on the path
(`PYTHONPATH=. python -m tests.cheat_corpus`); `-v` prints each case's verdict and codes;
`-k NAME` scores only the cases whose name holds NAME;
`--layers` runs the required test even where a cheaper check failed, and also prints how
many cheats of each category the test run alone fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .cases import CASES
from .runner import by_the_test, score, summary


def _deterministic_git(home: Path) -> None:
    """The same git set-up the test suite's fixture gives: no personal config, fixed identities."""
    os.environ.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1",
            **{
                f"GIT_{who}_{k}": v
                for who in ("AUTHOR", "COMMITTER")
                for k, v in (
                    ("NAME", "Corpus Agent"),
                    ("EMAIL", "agent@example.invalid"),
                    ("DATE", "2026-01-01T00:00:00+00:00"),
                )
            },
        }
    )
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "SCORE_DIFF_MANIFEST", "PYTEST_ADDOPTS"):
        os.environ.pop(name, None)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.cheat_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", action="store_true", help="print each case's verdict and codes")
    parser.add_argument("--layers", action="store_true", help="run the required test even where a cheaper check failed")
    parser.add_argument("-k", action="append", default=[], metavar="NAME", help="only the cases whose name holds NAME")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    verbose, layers = args.v, args.layers
    chosen = [c for c in CASES if not args.k or any(k in c.name for k in args.k)]
    results = []
    with tempfile.TemporaryDirectory(prefix="cheat-corpus-") as tmp:
        _deterministic_git(Path(tmp, "home"))
        for i, case in enumerate(chosen):
            got = score(case, Path(tmp, str(i)), always_run_test=layers)
            results.append((case, got))
            if verbose:
                mark = "ok  " if got.verdict == case.expect else "MISS"
                print(f"{mark} {case.category:16} {case.name:40} {got.verdict} {','.join(got.codes)}")
    print("\n".join(summary(results)))
    if layers:
        print("\n".join(by_the_test(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
