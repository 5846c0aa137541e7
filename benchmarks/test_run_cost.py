"""What running the required test costs: the temporary checkouts, the base's collection, the second pass.

    python benchmarks/test_run_cost.py --size medium --runs 3 --baseline SCRIPT

benchmarks/run.py times score-diff with --skip-test, so it never sees the test run. This copies
the generated repository (its 200 changed and 20 untracked files stay as they are), commits a
small pytest suite there (20 parametrized cases and a module under test, protected), and times
`score-diff` *with* the test, alternating with the baseline script in the same rounds:

- `spec`: the job changed only source, so one checkout, the base's collection and one pass;
- `spec+job`: the job also added a test to the protected file, so a second pass runs.

Each round runs every command once in a fixed order; medians of wall time are reported.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import generate

SUITE = (
    "import pytest\n\nfrom bench_calc import add\n\n\n"
    "@pytest.mark.parametrize('n', range(20))\ndef test_add(n):\n    assert add(n, 1) == n + 1\n"
)
ADDED = "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def _prepare(source: Path, into: Path) -> Path:
    repo = into / "repo"
    shutil.copytree(source, repo, symlinks=True)
    (repo / "bench_calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "bench_tests").mkdir()
    (repo / "bench_tests" / "test_bench.py").write_text(SUITE)
    _git(repo, "add", "bench_calc.py", "bench_tests")
    _git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--no-verify", "-m", "suite", "--", ".")
    return repo


def _manifest(into: Path) -> Path:
    path = into / "manifest.json"
    data = {
        "job_id": "bench",
        "allowed_paths": ["**"],
        "protected_tests": ["bench_tests/**"],
        "required_test": [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "bench_tests"],
    }
    path.write_text(json.dumps(data))
    return path


def _time(argv: Sequence[str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} did not PASS ({proc.returncode}):\n{proc.stdout[-2000:]}")
    return took


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(generate.SIZES), default="medium")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--script", help="the score-diff to time (default: the interpreter's console script)")
    parser.add_argument("--baseline", help="another build's score-diff console script, timed in the same rounds")
    args = parser.parse_args(argv)
    generated = generate.ensure(generate.SIZES[args.size])
    scripts = {"score-diff": args.script or str(Path(sysconfig.get_path("scripts")) / "score-diff")}
    if args.baseline:
        scripts["baseline"] = args.baseline
    with tempfile.TemporaryDirectory(prefix="score-diff-testcost-") as scratch:
        repo, manifest = _prepare(Path(generated.repo), Path(scratch)), _manifest(Path(scratch))
        samples: dict[str, list[float]] = {}
        for round_ in range(args.runs + 1):  # the first round warms the caches and is not counted
            for variant in ("spec", "spec+job"):
                test = repo / "bench_tests" / "test_bench.py"
                test.write_text(SUITE + (ADDED if variant == "spec+job" else ""))
                for name, script in scripts.items():
                    took = _time([script, "--repo", str(repo), "--manifest", str(manifest), "--no-log"])
                    if round_:
                        samples.setdefault(f"{variant} {name}", []).append(took)
        for key, values in samples.items():
            print(f"{key:24} median {statistics.median(values):6.2f} s  ({', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
