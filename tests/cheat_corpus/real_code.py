"""How often the cheat checks fire on real code: every non-test Python file under the given
directories (default: this interpreter's standard library and site-packages), read as if the
whole file were new. Nothing there was written to fool a test, so every FAIL-level finding
is a false positive of the shape, the figure to keep low.

    PYTHONPATH=. python -m tests.cheat_corpus.real_code [-v] [DIR ...]

special-cased-input is left out: it needs the base's tests, and fires only on their literals.
"""

from __future__ import annotations

import sys
import sysconfig
from collections import Counter
from pathlib import Path

from scorer.checks import cheats


def scan(roots: list[Path]) -> tuple[int, Counter[str], list[str]]:
    files, counts, shown = 0, Counter[str](), []
    seen: set[Path] = set()  # site-packages lies under the standard library's directory
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            rel = path.relative_to(root).as_posix()
            if cheats.is_test_path(rel) or "test" in path.name:
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            files += 1
            for f in cheats.findings(data, plugin=cheats._is_plugin(data)):
                if f.code != cheats.SPECIAL:
                    counts[f.code] += 1
                    if f.code != cheats.STACK:
                        shown.append(f"{f.code} {path}:{f.line} {f.message[:90]}")
    return files, counts, shown


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    dirs = [Path(a) for a in argv if a != "-v"]
    paths = sysconfig.get_paths()
    roots = dirs or sorted({Path(paths["stdlib"]), Path(paths["purelib"])})
    files, counts, shown = scan(roots)
    print(f"{files} non-test Python files under {', '.join(map(str, roots))}")
    for code in (cheats.RUNNER, cheats.EQUALITY, cheats.STACK):
        print(f"{code:22} {counts[code]}")
    if verbose:
        print("\n".join(shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
