"""scorer/memo.py: answers kept as functools.lru_cache keeps them, without loading functools."""

from __future__ import annotations

import functools
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from scorer.memo import in_dict, memoised


def _counted() -> tuple[list[tuple[object, ...]], Any]:
    calls: list[tuple[object, ...]] = []

    def square(x: int, y: int = 0) -> int:
        """x squared plus y."""
        calls.append((x, y))
        return x * x + y

    return calls, square


@pytest.mark.parametrize("maxsize", [None, 1, 3, 64])
def test_the_answers_are_lru_cache_s_and_each_miss_calls_once(maxsize: int | None) -> None:
    calls, square = _counted()
    ours, theirs = in_dict(square, maxsize), functools.lru_cache(maxsize)(square)
    rng = random.Random(f"memo-{maxsize}")
    for _ in range(500):
        x = rng.randrange(8)
        before = len(calls)
        assert ours(x) == theirs(x) == x * x
        assert len(calls) - before <= 2  # at most one call each
    if maxsize is None:
        assert calls.count((3, 0)) == 2  # once for each cache, never again


def test_a_kept_answer_is_not_recomputed_and_a_full_table_drops_the_oldest() -> None:
    calls, square = _counted()
    kept = in_dict(square, 2)
    assert [kept(1), kept(1), kept(2), kept(3), kept(2), kept(1)] == [1, 1, 4, 9, 4, 1]
    assert calls == [(1, 0), (2, 0), (3, 0), (1, 0)]  # 3 dropped 1, the oldest; 2 was still kept


def test_keywords_are_part_of_the_key_and_the_function_keeps_its_name() -> None:
    calls, square = _counted()
    kept = in_dict(square)
    assert (kept(2, y=1), kept(2, y=1), kept(2, y=2)) == (5, 5, 6) and len(calls) == 2
    assert (kept.__name__, kept.__doc__, kept.__wrapped__) == ("square", "x squared plus y.", square)
    kept.cache_clear()
    kept(2, y=1)
    assert len(calls) == 3


def test_positional_arguments_that_look_like_keywords_are_another_call() -> None:
    """f((1,), (("y", 2),)) is not f(1, y=2): a key that only paired the two would answer one with the other."""

    def pair(*args: object, **kwargs: object) -> tuple[object, ...]:
        return (args, kwargs)

    kept = in_dict(pair)
    assert kept(1, y=2) == ((1,), {"y": 2})
    assert kept((1,), (("y", 2),)) == (((1,), (("y", 2),)), {})
    assert kept(1, ("y", 2)) == ((1, ("y", 2)), {})


def test_an_exception_is_never_kept() -> None:
    seen: list[int] = []

    def fails_once(x: int) -> int:
        seen.append(x)
        if len(seen) == 1:
            raise ValueError("first")
        return x

    fails_once = in_dict(fails_once)

    with pytest.raises(ValueError, match="first"):
        fails_once(1)
    assert fails_once(1) == 1 and seen == [1, 1]


def test_threads_sharing_a_full_table_all_get_the_right_answer() -> None:
    kept = in_dict(lambda x: x * 2, 4)
    wrong: list[int] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(2000):
            x = rng.randrange(50)
            if kept(x) != x * 2:
                wrong.append(x)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_where_functools_is_loaded_it_is_lru_cache_itself() -> None:
    assert hasattr(memoised(8)(abs), "cache_info")  # this test's process has functools


def test_where_functools_is_not_loaded_nothing_is_imported() -> None:
    script = (
        "import sys; from scorer.memo import memoised; f = memoised(2)(abs); "
        "print(hasattr(f, 'cache_info'), f(-3), f(-3), 'functools' in sys.modules, 'collections' in sys.modules)"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-S", "-c", script], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["False", "3", "3", "False", "False"]
