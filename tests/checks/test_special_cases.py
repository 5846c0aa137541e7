"""special_cases' kept candidates (results_cache.py keeps digests, never literals), side by side
with the candidates themselves: a digest is equal exactly when its pair is, and a kept candidate
matches a spec exactly when the candidate does."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

from scorer.checks import cheats, pyast, special_cases

LITERALS: list[special_cases.Literal] = [
    *[("str", v) for v in ("a", "a ", "http://x/a b", "")],
    *[("bytes", b"a"), ("bytes", b"http://x/a b")],
    *[("int", v) for v in (1, -1, 1025, -1025)],
    *[("bool", v) for v in (True, False, -1)],
    *[("float", v) for v in (0.0, -0.0, 1.5, -1.5, float("inf"))],
    *[("complex", v) for v in (1j, 0j, complex(-0.0, -0.0))],
    ("NoneType", None),
    ("tuple", (("str", "a"), ("int", 1))),
    ("tuple", (("str", "a"), ("float", 1.0))),
    ("tuple", (("str", "a"), ("float", -0.0))),
    ("tuple", (("str", "a"), ("float", 0.0))),
]


def test_two_pairs_digest_alike_exactly_when_they_are_equal() -> None:
    pairs = [(a, b) for a in LITERALS for b in LITERALS[:8]]
    for p, q in itertools.product(pairs, repeat=2):
        assert (special_cases.pair_digest(p) == special_cases.pair_digest(q)) == (p == q), (p, q)


def _candidates(source: bytes) -> Iterator[special_cases.Candidate]:
    tree = pyast.parse(source)
    if tree is not None:
        with pyast.one_scoring():
            walked = pyast.units(tree)
            yield from (
                f.candidate for f in cheats._unit_findings(tree, source, walked, False, cheats._EVERY) if f.candidate
            )


def test_a_kept_candidate_matches_the_base_tests_as_the_candidate_does() -> None:
    import sysconfig

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    found = [c for p in sorted(stdlib.glob("*.py"))[:120] for c in _candidates(p.read_bytes())]
    assert len(found) > 20
    every = sorted({p for c in found for g in c.group for p in g}, key=repr)
    for share in (1, 2, 3, 5):  # specs holding every pair, every other one, ...
        spec = special_cases.Spec(list)
        spec._pairs = set(every[::share])
        for c in found:
            own, group = special_cases.kept_pairs(c.pairs), [special_cases.kept_pairs(g) for g in c.group]
            assert own is not None and None not in group
            assert spec.matched_kept(own, group) == (spec.matched(c) is not None), c  # type: ignore[arg-type]
