"""Smoke test for benchmarks/: the generator builds what it promises and the naive scorer runs.

Nothing here is timed; the benchmark itself is `python benchmarks/run.py`.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def load_generate():
    spec = importlib.util.spec_from_file_location("bench_generate", BENCHMARKS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tiny_repository_has_every_kind_of_change_and_naive_passes(tmp_path):
    generate = load_generate()
    size = generate.Size("tiny", files=20, changed=6, untracked=1)
    repo = tmp_path / "repo"
    info = generate.generate(size, seed=7, repo=repo, settle=False)

    entries = generate.status_entries(repo, generate.git_env(str(tmp_path)))
    assert len(entries) == info["status_entries"] == 6
    kinds = Counter(xy for xy, _ in entries)
    # 20 files, 6 changed, 1 untracked: 2 modified (staged, unstaged), 1 rename,
    # 1 deletion, 1 staged addition, 1 untracked file.
    assert kinds["??"] == 1
    assert kinds["A "] == 1
    assert sum(n for xy, n in kinds.items() if xy[0] == "R") == 1
    assert sum(n for xy, n in kinds.items() if "D" in xy) == 1
    # No path is staged and then edited again (score-diff reports that as hidden-change).
    assert not [xy for xy, _ in entries if xy != "??" and " " not in xy]
    untracked = next(path for xy, path in entries if xy == "??")
    assert " " in untracked and not untracked.isascii()

    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(generate.manifest("smoke", ["**"])))
    naive = subprocess.run(
        [sys.executable, str(BENCHMARKS / "naive_score.py"), str(manifest), str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert naive.returncode == 0, naive.stdout + naive.stderr
    assert naive.stdout.splitlines()[-1] == "PASS"


def test_generation_is_deterministic(tmp_path):
    generate = load_generate()
    size = generate.Size("tiny", files=20, changed=3, untracked=1)
    first = generate.generate(size, seed=3, repo=tmp_path / "a", settle=False)
    second = generate.generate(size, seed=3, repo=tmp_path / "b", settle=False)
    assert first["fingerprint"] == second["fingerprint"]
    assert first["changed_lines"] == second["changed_lines"]
