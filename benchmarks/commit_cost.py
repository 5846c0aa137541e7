"""What a commit costs with the installed hooks and a required test, against running that test by hand.

    python benchmarks/commit_cost.py --runs 5 --baseline /work/venvs/main-base/bin/score-diff
    python benchmarks/commit_cost.py --project ~/src/requests --source src/requests/utils.py \\
        --test "python -m pytest -q -p no:cacheprovider tests/test_utils.py" \\
        --by-hand "env PYTHONPATH=src python -m pytest -q -p no:cacheprovider tests/test_utils.py" --runs 5

Each build under test gets its own clone of the project, with a manifest committed on `main`
(the source tree allowed, the tests protected, the test as `required_test`) and the hooks its
own `score-diff install-hook --since main` writes (the pre-commit and commit-msg scripts, with
that build's interpreter). Each round, in a fixed order: the test run by hand in the first
clone, then, per build, one more line appended to the source file on branch `agent-bench`,
staged, and `git commit` timed: both hooks, with whatever test runs they make. Medians of wall
time and of CPU time (user + system of every descendant reaped), each build's ratio to the test
by hand, and the load average at start and end. Without --project, a generated pytest project (a
module and 200 parametrized cases) stands in.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

SOURCE = "calc.py"
SUITE = (
    "import pytest\n\nfrom calc import add\n\n\n"
    "@pytest.mark.parametrize('n', range(200))\ndef test_add(n):\n    assert add(n, 1) == n + 1\n"
)
IDENTITY = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    )


def _generated(into: Path) -> Path:
    repo = into / "project"
    (repo / "tests").mkdir(parents=True)
    (repo / SOURCE).write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests" / "test_calc.py").write_text(SUITE)
    (repo / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-verify", "-m", "project")
    return repo


def _clone(project: Path, into: Path, script: str, source: str, test: list[str], env: dict[str, str]) -> Path:
    """A clone with the manifest committed on main and `script`'s hooks installed, on agent-bench."""
    _git(into, "clone", "-q", "--no-hardlinks", str(project), str(into / "repo"))
    repo = into / "repo"
    _git(repo, "checkout", "-q", "-B", "main")
    manifest = {
        "job_id": "bench",
        "allowed_paths": [source],
        "protected_tests": ["tests/**"],
        "required_test": test,
    }
    (repo / "job_manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    _git(repo, "add", "job_manifest.json")
    _git(repo, "commit", "-q", "--no-verify", "-m", "the fence")
    subprocess.run(
        [script, "install-hook", "--repo", str(repo), "--since", "main"], check=True, capture_output=True, env=env
    )
    _git(repo, "checkout", "-q", "-b", "agent-bench")
    return repo


def _cpu() -> float:
    """User and system time of every child reaped so far (the hooks, git, pytest, the jail's processes)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its descendants)."""
    started, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)
    took = time.perf_counter() - started, _cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(
            f"{shlex.join(argv)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return took


def _commit(repo: Path, source: str, n: int, env: dict[str, str]) -> tuple[float, float]:
    with open(repo / source, "a", encoding="utf-8") as fh:
        fh.write(f"# round {n}\n")
    _git(repo, "add", source)
    return _timed(["git", *IDENTITY, "commit", "-q", "-m", f"round {n}"], repo, env)


def _print(samples: dict[str, list[tuple[float, float]]]) -> None:
    """Medians of wall and CPU time, each as a ratio to the test by hand's."""
    wall = statistics.median(w for w, _ in samples["test by hand"])
    cpu = statistics.median(c for _, c in samples["test by hand"])
    for key, values in samples.items():
        w, c = statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)
        each = ", ".join(f"{v[0]:.2f}" for v in values)
        print(f"{key:22} wall {w:6.2f} s {w / wall:4.1f}x   CPU {c:6.2f} s {c / cpu:4.1f}x  (wall: {each})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--script", help="the score-diff to time (default: the interpreter's console script)")
    parser.add_argument("--baseline", help="another build's score-diff console script, timed in the same rounds")
    parser.add_argument("--project", type=Path, help="a git repository whose main branch holds the test")
    parser.add_argument("--source", default=SOURCE, help="the file each commit edits (the job's one allowed path)")
    parser.add_argument("--test", help="the test command, run by hand and as required_test (default: pytest on tests/)")
    parser.add_argument("--by-hand", help="the command run by hand, when it differs (a src layout's PYTHONPATH=src)")
    args = parser.parse_args(argv)
    scripts = {"score-diff": args.script or str(Path(sysconfig.get_path("scripts")) / "score-diff")}
    if args.baseline:
        scripts["baseline"] = args.baseline
    test = (
        shlex.split(args.test)
        if args.test
        else [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    )
    hand = shlex.split(args.by_hand) if args.by_hand else test
    with tempfile.TemporaryDirectory(prefix="score-diff-commitcost-") as scratch:
        home = Path(scratch, "home")
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
        project = args.project or _generated(Path(scratch))
        clones = {}
        for name, script in scripts.items():
            (Path(scratch) / name).mkdir()
            clones[name] = _clone(project, Path(scratch) / name, script, args.source, test, env)
        by_hand = next(iter(clones.values()))
        samples: dict[str, list[tuple[float, float]]] = {}
        print(f"load average at start {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        for round_ in range(args.runs + 1):  # the first round warms the caches and is not counted
            took = {"test by hand": _timed(hand, by_hand, env)}
            for name, repo in clones.items():
                took[f"commit, {name}"] = _commit(repo, args.source, round_, env)
            if round_:
                for key, value in took.items():
                    samples.setdefault(key, []).append(value)
        _print(samples)
        print(f"load average at end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
