"""What the required test's full jail costs on a real project, against `test_envelope: off`.

    python benchmarks/jail_cost.py --project /work/requests --python /work/venvs/requests/bin/python \\
        --test tests/test_utils.py --runs 7

The project (a plain source tree, for example psf/requests exported with `git archive`) is
copied to a temporary repository and committed on `main`; one line appended to `--source`
is the uncommitted change scored. Two manifests differ only in `test_envelope` (`required` by
default, and `off`); each round runs score-diff once with each, the order reversed every other
round, so that both see the same load. Reported: medians of the whole run's wall time and of the test run (the
report's `test.duration_s`, start to reap), their ratio, and which layers the jail named.
The benchmark stops unless every run PASSes: timing a failing test says nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

IDENTITY = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
POLICIES = ("jail", "off")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *IDENTITY, "-C", str(repo), *args], check=True, capture_output=True)


def _repository(project: Path, into: Path, source: str) -> Path:
    """A copy of `project` committed on main, with one uncommitted line appended to `source`."""
    repo = into / "project"
    shutil.copytree(project, repo, symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc"))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-verify", "-m", "project")
    with (repo / source).open("a", encoding="utf-8") as f:
        f.write("# benchmark: one changed line\n")
    return repo


def _manifests(into: Path, python: str, tests: Sequence[str], source: str, jail: str) -> dict[str, Path]:
    """One manifest per policy; `tests` is the argv after `python -m pytest`."""
    base = {
        "job_id": "jail-cost",
        "allowed_paths": [source],
        "required_test": [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        "test_timeout_s": 600,
    }
    paths = {}
    for name, policy in zip(POLICIES, (jail, "off"), strict=True):
        paths[name] = into / f"{name}.json"
        paths[name].write_text(json.dumps({**base, "test_envelope": policy}), encoding="utf-8")
    return paths


def _run(argv: Sequence[str], report: Path) -> tuple[float, dict[str, object]]:
    started = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    took = time.perf_counter() - started
    if proc.returncode != 0 or not proc.stdout.rstrip().endswith("RESULT: PASS"):
        raise SystemExit(f"score-diff did not PASS ({proc.returncode}):\n{proc.stdout[-3000:]}")
    test: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))["test"]
    return took, test


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True, type=Path, help="the project's source tree (not modified)")
    parser.add_argument("--python", required=True, help="the interpreter with the project's test dependencies")
    parser.add_argument("--test", nargs="+", default=["tests/test_utils.py"], help="pytest's arguments")
    parser.add_argument("--source", default="src/requests/utils.py", help="the file the scored change edits")
    parser.add_argument("--policy", default="required", choices=("required", "auto"), help="the jail's policy")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--script", help="the score-diff to time (default: the interpreter's console script)")
    args = parser.parse_args(argv)
    script = args.script or str(Path(sysconfig.get_path("scripts")) / "score-diff")
    with tempfile.TemporaryDirectory(prefix="score-diff-jailcost-") as scratch:
        repo = _repository(args.project, Path(scratch), args.source)
        manifests = _manifests(Path(scratch), args.python, args.test, args.source, args.policy)
        report = Path(scratch, "report.json")
        wall: dict[str, list[float]] = {p: [] for p in POLICIES}
        test: dict[str, list[float]] = {p: [] for p in POLICIES}
        layers: dict[str, object] = {}
        for round_ in range(args.runs + 1):  # the first round warms the caches and is not counted
            for policy in POLICIES if round_ % 2 else POLICIES[::-1]:  # ABBA: a drift in load hits both
                cmd = [script, "--repo", str(repo), "--manifest", str(manifests[policy]), "--no-log"]
                took, facts = _run([*cmd, "--format", "json", "--output", str(report), "--format", "text"], report)
                layers.setdefault(policy, facts.get("envelope"))
                layers.setdefault(f"{policy} evidence", facts.get("evidence"))
                if round_:
                    wall[policy].append(took)
                    test[policy].append(float(str(facts["duration_s"])))
        _print(args, wall, test, layers)
    return 0


def _print(
    args: argparse.Namespace, wall: dict[str, list[float]], test: dict[str, list[float]], layers: dict[str, object]
) -> None:
    print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.runs} interleaved rounds, test_envelope {args.policy} against off; medians:")
    for label, samples in (("whole score-diff run", wall), ("test run (duration_s)", test)):
        jail, off = (statistics.median(samples[p]) for p in POLICIES)
        print(f"  {label:22} jail {jail:6.2f} s  off {off:6.2f} s  ratio {jail / off:.2f}x")
        for p in POLICIES:
            print(f"    {p} samples: {', '.join(f'{v:.2f}' for v in samples[p])}")
    for policy in POLICIES:
        evidence = layers.get(f"{policy} evidence")
        if isinstance(evidence, dict):
            counts = ", ".join(f"{k} {evidence.get(k)}" for k in ("tests", "failures", "errors", "skipped"))
            print(f"  {policy}: the JUnit report says {counts}")
    envelope = layers.get("jail")
    if isinstance(envelope, dict):
        for line in (*envelope.get("enforced", ()), *(f"missing: {m}" for m in envelope.get("missing", ()))):
            print(f"  layer: {line}")


if __name__ == "__main__":
    raise SystemExit(main())
