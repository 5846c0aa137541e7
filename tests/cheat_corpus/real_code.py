"""How often the cheat checks fire on real code: every non-test Python file under the given
directories (default: this interpreter's standard library and site-packages), read as if the
whole file were new. Nothing there was written to fool a test, so every FAIL-level finding
is a false positive of the shape, the figure to keep low.

    PYTHONPATH=. python -m tests.cheat_corpus.real_code [-v] [DIR ...]

special-cased-input is left out: it needs the base's tests, and fires only on their literals.
`--tests DIR` measures the two checks that do (special-cased-input and flipped-test-special-cased)
as if every test under DIR had flipped (the worst case: a real run flips a few), against the
source directories given:

    PYTHONPATH=. python -m tests.cheat_corpus.real_code --tests requests-2.x/tests requests-2.x/src
"""

from __future__ import annotations

import ast
import sys
import sysconfig
from collections import Counter
from pathlib import Path

from scorer.checks import cheats, literals, pyast, special_cases


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


def test_ids(tests: Path) -> tuple[dict[str, bytes], list[str]]:
    """Every test file under `tests` (by its path) and the node id of every test function in it."""
    sources, ids = {}, []
    for path in sorted(tests.rglob("test*.py")):
        rel, data = path.as_posix(), path.read_bytes()
        sources[rel] = data
        tree = pyast.parse(data)
        for node in tree.body if tree is not None else ():
            if isinstance(node, ast.ClassDef) and "Test" in node.name:  # unittest: FooTests, TestFoo
                ids += [f"{rel}::{node.name}::{name}" for m in node.body if (name := _test_name(m))]
            elif name := _test_name(node):
                ids.append(f"{rel}::{name}")
    return sources, ids


def _test_name(node: ast.AST) -> str:
    is_test = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")
    return node.name if is_test and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""


def literal_hits(tests: Path, roots: list[Path]) -> tuple[int, int, int, list[str]]:
    """(pairs judged, flipped-test-special-cased hits, special-cased-input hits, shown) over `roots`,
    every source file read as new, every test under `tests` flipped."""
    sources, ids = test_ids(tests)
    pairs: dict[special_cases.Pair, str] = {}
    for at in range(0, len(ids), literals.MAX_FLIPPED):  # the check reads at most MAX_FLIPPED per run
        pairs.update(literals.flipped_pairs(sources, ids[at : at + literals.MAX_FLIPPED]))
    spec = special_cases.Spec(lambda: list(sources.values()))
    flipped = special = 0
    shown = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if cheats.is_test_path(path.relative_to(root).as_posix()):
                continue
            data = path.read_bytes()
            for line, (lit, want) in literals.added_hits(path.as_posix(), data, None, pairs):
                flipped += 1
                shown.append(f"{literals.FLIPPED} {path}:{line} {lit[1]!r} -> {want[1]!r}"[:160])
            for f in cheats.findings(data, plugin=False):
                if f.candidate is not None and spec.matched(f.candidate) is not None:
                    special += 1
                    shown.append(f"{cheats.SPECIAL} {path}:{f.line}")
    return len(pairs), flipped, special, shown


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    if "--tests" in argv:
        at = argv.index("--tests")
        tests, roots = Path(argv[at + 1]), [Path(a) for a in argv[at + 2 :] if a != "-v"]
        judged, flipped, special, shown = literal_hits(tests, roots)
        print(f"{judged} (input, expected) pairs of the tests under {tests}, every test flipped")
        print(f"{literals.FLIPPED:26} {flipped}\n{cheats.SPECIAL:26} {special}")
        if verbose:
            print("\n".join(shown))
        return 0
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
