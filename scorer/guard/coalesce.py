"""One fence read shared by the sidecar's requests that arrive together for the same repository.

Ten clients at once with the manifest committed at HEAD would start ten `git ls-tree`s and
queue on them. Here a request joins a read only while that read has not started yet, so
every read a request is given began after the request arrived: it sees every change git
would have shown the request's own read, and nothing is kept once the read's waiters have
it (no cache, so nothing can be stale). A request that arrives while a read runs waits for
it to end and then joins the next one, which starts at once for all that arrived meanwhile:
at most two reads for any burst. A read that fails fails every request that shared it; a
wait past the deadline is an error (a deny), never an answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class _Round(Generic[T]):
    """One read and the requests that arrived before it started."""

    def __init__(self) -> None:
        self.done = False
        self.value: T | None = None
        self.error: BaseException | None = None


class Coalescer(Generic[T]):
    """`read(key, load)`: load's result, from a load that started after this call did."""

    def __init__(self, deadline_s: float) -> None:
        self._cond = threading.Condition()
        self._waiting: dict[Hashable, _Round[T]] = {}  # the next read of each key, not started yet
        self._running: set[Hashable] = set()
        self.deadline_s = deadline_s
        self.loads = 0  # reads started (for tests and the benchmark)

    def read(self, key: Hashable, load: Callable[[], T]) -> T:
        until = time.monotonic() + self.deadline_s
        with self._cond:
            mine = self._waiting.setdefault(key, _Round())
            while key in self._running and not mine.done:  # a read that began before this call: not ours
                if not self._cond.wait(until - time.monotonic()) and time.monotonic() >= until:
                    raise TimeoutError(f"the fence was not read within {self.deadline_s:g} s")
            if not mine.done:  # nobody started our round yet: this request does
                del self._waiting[key]
                self._running.add(key)
                self.loads += 1
                leader = True
            else:
                leader = False
        if leader:
            self._lead(key, mine, load)
        if mine.error is not None:
            raise mine.error
        return mine.value  # type: ignore[return-value]  # set whenever error is None

    def _lead(self, key: Hashable, mine: _Round[T], load: Callable[[], T]) -> None:
        try:
            mine.value = load()
        except BaseException as exc:  # every request of the round is refused with it
            mine.error = exc
        finally:
            with self._cond:
                mine.done = True
                self._running.discard(key)
                self._cond.notify_all()
