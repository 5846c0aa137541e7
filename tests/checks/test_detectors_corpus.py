"""The labelled corpus in benchmarks/ meets the issue's targets: >= 90% recall, <= 2 false alarms in 60."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
_spec = importlib.util.spec_from_file_location("secrets_eval", BENCHMARKS / "secrets_eval.py")
assert _spec is not None and _spec.loader is not None
secrets_eval = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(secrets_eval)  # puts benchmarks/ on sys.path for its secrets_corpus
secrets_corpus = secrets_eval.secrets_corpus


@pytest.mark.parametrize("seed", [14, 1, 2])
def test_recall_and_false_alarms_meet_the_targets(seed: int) -> None:
    cases = secrets_corpus.corpus(seed)
    fired = [secrets_eval.fires_score_diff(c.line) for c in cases]
    secrets = [hit for c, hit in zip(cases, fired, strict=True) if c.secret]
    misses = [hit for c, hit in zip(cases, fired, strict=True) if not c.secret]
    assert len(misses) == 60
    assert sum(secrets) >= 0.9 * len(secrets)
    assert sum(misses) <= 2
