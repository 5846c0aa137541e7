"""Memoised functions without functools: functools loads collections (for lru_cache's CacheInfo)
and reprlib, which with collections.abc is some 10M instructions of every agent tool call
(issue 29). An answer is kept as functools.lru_cache keeps it, by the call's arguments; a bounded
table that is full drops its oldest entry (first in, first out), which only costs a recomputation.
Exceptions are never kept. tests/test_memo.py holds it to lru_cache's answers."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    F = TypeVar("F", bound=Callable[..., object])


def memoised(maxsize: int | None = None) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)` for a function of hashable arguments."""

    def decorate(fn: F) -> F:
        kept: dict[object, object] = {}

        def call(*args: object, **kwargs: object) -> object:
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            try:
                return kept[key]
            except KeyError:
                pass
            value = fn(*args, **kwargs)
            if maxsize is not None and len(kept) >= maxsize:
                try:  # noqa: SIM105 - contextlib is not loaded on a Write; another thread (the sidecar's) may change the table
                    del kept[next(iter(kept))]
                except (StopIteration, KeyError, RuntimeError):
                    pass
            kept[key] = value
            return value

        call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        call.__wrapped__ = fn  # type: ignore[attr-defined]
        call.cache_clear = kept.clear  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return decorate
