"""What the observer costs one Python the required test starts: start-up plus the imports of a
typical test run, with no observer, with this tree's, and (optionally) with another observer.

    python benchmarks/observer_cost.py --runs 21 [--baseline-site DIR]

DIR holds an older `sitecustomize.py` (for example `git show REV:scorer/testrun/observer_site/sitecustomize.py`).
Each round runs every variant once, in a fixed order; medians of wall time are reported. The
child's only attempt is none at all: the listener must receive no finding.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

from scorer.testrun import observer

IMPORTS = "import pytest, asyncio, email.parser, http.client, json, unittest, decimal, pathlib, tempfile, argparse"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--baseline-site", help="a directory with another observer's sitecustomize.py")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        listener = observer.start(scratch)
        if listener is None:
            print("no unix socket here: nothing to measure")
            return 1
        plain = {"PATH": os.environ.get("PATH", os.defpath), "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        variants = {"none": plain, "this tree": observer.environment(plain, listener, (scratch,), False, None)}
        if args.baseline_site:
            variants["baseline"] = dict(variants["this tree"], PYTHONPATH=os.path.abspath(args.baseline_site))
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, env in variants.items():
                started = time.perf_counter()
                subprocess.run([sys.executable, "-c", IMPORTS], env=env, check=True)
                times[name].append(time.perf_counter() - started)
        found = listener.stop()
    for name, values in times.items():
        print(f"{name:>10}: median {1000 * statistics.median(values):6.1f} ms over {len(values)} runs")
    print(f"findings: {found}")
    return 0 if not found else 1


if __name__ == "__main__":
    raise SystemExit(main())
