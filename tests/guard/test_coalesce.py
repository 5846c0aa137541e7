"""coalesce.py: the sidecar's requests share a fence read only when it started after they all arrived."""

from __future__ import annotations

import threading
import time

import pytest

from scorer.guard.coalesce import Coalescer


def _wait_for(predicate, limit_s: float = 5.0) -> None:
    until = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < until, "condition never became true"
        time.sleep(0.001)


class _Blocking:
    """A read that returns the state it saw, held open until released."""

    def __init__(self) -> None:
        self.state = 0
        self.started = 0
        self.release = threading.Event()

    def __call__(self) -> int:
        self.started += 1
        seen = self.state
        assert self.release.wait(5)
        return seen


def _spawn(c: Coalescer[int], load, out: list, key: str = "repo") -> threading.Thread:
    t = threading.Thread(target=lambda: out.append(c.read(key, load)))
    t.start()
    return t


def test_requests_that_arrive_during_a_read_share_the_next_one():
    c: Coalescer[int] = Coalescer(5.0)
    load, first, rest = _Blocking(), [], []
    a = _spawn(c, load, first)
    _wait_for(lambda: load.started == 1)
    others = [_spawn(c, load, rest) for _ in range(8)]
    time.sleep(0.05)  # all eight are waiting behind the running read
    load.release.set()
    for t in [a, *others]:
        t.join(5)
    assert first == [0] and rest == [0] * 8
    assert load.started == 2 and c.loads == 2  # nine requests, two reads, never nine


def test_requests_one_after_another_each_read_afresh():
    c: Coalescer[int] = Coalescer(5.0)
    calls = []
    for i in range(5):
        assert c.read("repo", lambda i=i: calls.append(i) or i) == i
    assert calls == [0, 1, 2, 3, 4]


def test_a_change_made_while_a_read_runs_is_seen_by_a_request_that_came_after_it():
    """The sneak: the fence tightens after a read began; a request arriving then must not get the old read."""
    c: Coalescer[int] = Coalescer(5.0)
    load, first, later = _Blocking(), [], []
    a = _spawn(c, load, first)
    _wait_for(lambda: load.started == 1)
    load.state = 1  # the change (a new commit of the manifest) lands now
    b = _spawn(c, load, later)
    time.sleep(0.05)
    load.release.set()
    a.join(5)
    b.join(5)
    assert first == [0] and later == [1]


def test_different_repositories_do_not_share_a_read():
    c: Coalescer[str] = Coalescer(5.0)
    assert c.read("a", lambda: "A") == "A"
    assert c.read("b", lambda: "B") == "B"
    assert c.loads == 2


def test_a_failed_read_refuses_every_request_that_shared_it_and_is_not_kept():
    c: Coalescer[int] = Coalescer(5.0)
    gate = threading.Event()
    started = []
    errors: list[BaseException] = []

    def failing() -> int:
        started.append(1)
        assert gate.wait(5)
        raise ValueError("manifest unreadable")

    def call() -> None:
        try:
            c.read("repo", failing)
        except ValueError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    _wait_for(lambda: len(started) == 1)
    time.sleep(0.05)
    gate.set()
    for t in threads:
        t.join(5)
    assert len(errors) == 4  # no request of a failed read gets an answer
    assert c.read("repo", lambda: 7) == 7  # and the next request reads afresh


def test_a_wait_past_the_deadline_is_an_error_not_an_answer():
    c: Coalescer[int] = Coalescer(0.1)
    load = _Blocking()
    a = _spawn(c, load, [])
    _wait_for(lambda: load.started == 1)
    with pytest.raises(TimeoutError):
        c.read("repo", lambda: 1)
    load.release.set()
    a.join(5)
