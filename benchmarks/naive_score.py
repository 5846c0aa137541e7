#!/usr/bin/env python3
"""The naive reference scorer: what a blog post would write in an afternoon.

    python naive_score.py MANIFEST [REPO]

It is here as a yardstick for the benchmark, not as a model: it shells out to
porcelain commands, reads whole files, and misses renames, quoted paths and more.
It does not run the required test (the benchmark times score-diff with --skip-test).
"""

import fnmatch
import json
import os
import subprocess
import sys


def git(repo: str, *args: str) -> str:
    result = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    return result.stdout


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        manifest = json.load(f)
    repo = sys.argv[2] if len(sys.argv) > 2 else "."
    changed = git(repo, "diff", "--name-only", "HEAD").splitlines()
    untracked = git(repo, "ls-files", "--others", "--exclude-standard").splitlines()
    diff = git(repo, "diff", "HEAD")
    problems = []

    paths = changed + untracked
    if len(paths) > manifest["max_files_changed"]:
        problems.append(f"too many files changed: {len(paths)}")

    for path in paths:
        if not any(fnmatch.fnmatch(path, pattern) for pattern in manifest["allowed_paths"]):
            problems.append(f"path not allowed: {path}")
        if any(fnmatch.fnmatch(path, pattern) for pattern in manifest["forbidden_globs"]):
            problems.append(f"forbidden path: {path}")

    # Count the +/- lines of every hunk in the diff.
    hunk_lines = 0
    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("diff --git"):
            in_hunk = False
        elif line.startswith("@@"):
            in_hunk = True
            hunk_lines = 0
        elif in_hunk and line[:1] in ("+", "-"):
            hunk_lines += 1
            if hunk_lines == manifest["max_hunk_lines"] + 1:
                problems.append(f"hunk too big: {line[:40]}")

    # Look for forbidden substrings in every changed file that still exists.
    for path in paths:
        full = os.path.join(repo, path)
        if not os.path.isfile(full):
            continue  # deleted
        with open(full, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for needle in manifest["forbidden_substrings"]:
            if needle in text:
                problems.append(f"forbidden substring {needle!r} in {path}")

    for problem in problems:
        print(problem)
    print("FAIL" if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
