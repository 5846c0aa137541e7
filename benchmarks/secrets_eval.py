"""Recall and false alarms of the secret detectors on the labelled corpus, per category.

    python benchmarks/secrets_eval.py [--seed N] [--detect-secrets]

Each case is scanned as its own added file (scorer.secrets.detectors.scan). A true secret
counts as found if any `secret` violation is reported; a near-miss counts as a false alarm
if any violation is. Wall time is for scanning the whole corpus as one change, median of
five. --detect-secrets also runs `detect-secrets scan` (if installed) on the same cases,
one file each, with --no-verify so that it never sends a candidate to a provider.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import secrets_corpus

from scorer.model import AddedText
from scorer.secrets.detectors import scan


def fires_score_diff(line: str) -> bool:
    text = line + "\n"
    return any(v.code == "secret" for v in scan(AddedText(text, (0,), (("case.txt", 1),))))


def detect_secrets_findings(cases: Sequence[secrets_corpus.Case]) -> list[bool]:
    """One file per case; True where detect-secrets reports anything in that file."""
    exe = shutil.which("detect-secrets") or str(Path(sys.executable).with_name("detect-secrets"))
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i, case in enumerate(cases):
            name = f"case{i:04d}.txt"
            (Path(tmp) / name).write_text(case.line + "\n", encoding="utf-8")
            names.append(name)
        done = subprocess.run(
            [exe, "scan", "--no-verify", "--all-files", *names], cwd=tmp, capture_output=True, text=True, check=True
        )
    results = json.loads(done.stdout)["results"]
    return [bool(results.get(name)) for name in names]


def tally(cases: Sequence[secrets_corpus.Case], fired: Sequence[bool]) -> list[str]:
    per: dict[tuple[bool, str], list[int]] = collections.defaultdict(lambda: [0, 0])
    for case, hit in zip(cases, fired, strict=True):
        per[(case.secret, case.category)][0] += hit
        per[(case.secret, case.category)][1] += 1
    rows = ["| kind | category | fired / cases |", "| --- | --- | ---: |"]
    for (secret, category), (fired_count, total) in sorted(per.items(), key=lambda kv: (not kv[0][0], kv[0][1])):
        rows.append(f"| {'true secret' if secret else 'near-miss'} | {category} | {fired_count} / {total} |")
    secrets = [h for c, h in zip(cases, fired, strict=True) if c.secret]
    misses = [h for c, h in zip(cases, fired, strict=True) if not c.secret]
    rows.append(
        f"| **all** | recall | **{sum(secrets)} / {len(secrets)} ({100 * sum(secrets) / len(secrets):.1f}%)** |"
    )
    rows.append(f"| **all** | false alarms | **{sum(misses)} / {len(misses)}** |")
    return rows


def timed(run: Callable[[], object], repeat: int = 5) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--detect-secrets", action="store_true")
    args = parser.parse_args(argv)
    cases = secrets_corpus.corpus(args.seed)
    print("### score-diff\n")
    print("\n".join(tally(cases, [fires_score_diff(c.line) for c in cases])))
    whole = "".join(c.line + "\n" for c in cases)
    seconds = timed(lambda: scan(AddedText(whole, (0,), (("corpus.txt", 1),))))
    print(f"\nWall time, the whole corpus ({len(cases)} cases, {len(whole):,} characters) as one change: "
          f"{seconds * 1000:.1f} ms (median of 5)")  # fmt: skip
    if args.detect_secrets:
        started = time.perf_counter()
        found = detect_secrets_findings(cases)
        print(
            "\n### detect-secrets (`detect-secrets scan --no-verify --all-files`, "
            f"{time.perf_counter() - started:.1f} s)\n"
        )
        print("\n".join(tally(cases, found)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
