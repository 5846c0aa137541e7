"""pyast.blob_id's memory of the bytes it hashed (issue 29): each check asks the blob id of the one
object `ReadOnce` read, so within one scoring each source is hashed once, however many modules
the change has; outside a scoring (the checks after the test run, a long-lived server) the memory
stays bounded."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from scorer.checks import pyast

MANY = pyast._MAX_TREES + 200  # more modules than the trees remembered: large changes 2,374


def counted_sha1(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    made: list[int] = []

    class Counting:
        @staticmethod
        def sha1(data: bytes, **options: Any) -> Any:
            made.append(1)
            return hashlib.sha1(data, **options)

    monkeypatch.setattr(pyast, "hashlib", Counting)
    return made


def sources(n: int) -> list[bytes]:
    return [f"x = {i}\n".encode() for i in range(n)]


def test_within_a_scoring_each_source_is_hashed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made = counted_sha1(monkeypatch)
    read = sources(MANY)
    with pyast.one_scoring():
        first = [pyast.blob_id(s) for s in read]  # one check's pass over the change
        again = [pyast.blob_id(s) for s in read]  # the next check's
        assert len(made) == MANY
    assert first == again == [hashlib.sha1(b"blob %d\0" % len(s) + s).digest() for s in read]
    assert pyast._IDS == {}  # let go with the scoring


def test_outside_a_scoring_the_memory_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    counted_sha1(monkeypatch)
    read = sources(MANY)
    try:
        ids = [pyast.blob_id(s) for s in read]
        assert len(pyast._IDS) <= pyast._MAX_TREES
        assert ids == [pyast.blob_id(s) for s in read]  # forgetting costs a hash, never an answer
    finally:
        pyast._IDS.clear()
