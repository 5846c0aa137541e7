"""Memoised functions without loading functools: functools loads collections (for lru_cache's
CacheInfo) and reprlib, which with collections.abc is some 10M instructions of every agent tool
call (issue 29). Where functools is loaded already, lru_cache itself; else an answer is kept in a
dict by the call's arguments, and a bounded table that is full drops its oldest entry (first in,
first out), which only costs a recomputation. Exceptions are never kept. tests/test_memo.py holds
the dict to lru_cache's answers."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing's, without importing typing on every tool call
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    F = TypeVar("F", bound=Callable[..., object])


def memoised(maxsize: int | None = None) -> Callable[[F], F]:
    """`functools.lru_cache(maxsize)` for a function of hashable arguments: lru_cache itself where
    functools is already loaded when the function is defined (the sidecar, a scoring: its C wrapper
    is faster on a process's thousandth call), else `in_dict`, which loads nothing."""

    def decorate(fn: F) -> F:
        functools = sys.modules.get("functools")
        if functools is not None:
            return functools.lru_cache(maxsize)(fn)
        return in_dict(fn, maxsize)

    return decorate


_KEYWORDS = object()  # between the positional arguments and the keywords in a key, as lru_cache's kwd_mark


def in_dict(fn: F, maxsize: int | None = None) -> F:
    """`fn` with its answers kept in a dict by its arguments; a full table drops its oldest."""
    table: dict[object, object] = {}

    def call(*args: object, **kwargs: object) -> object:
        key = (*args, _KEYWORDS, *sorted(kwargs.items())) if kwargs else args
        try:
            return table[key]
        except KeyError:
            pass
        value = fn(*args, **kwargs)
        if maxsize is not None and len(table) >= maxsize:
            try:  # noqa: SIM105 - contextlib is not loaded on a Write; another thread may change the table
                del table[next(iter(table))]
            except (StopIteration, KeyError, RuntimeError):
                pass
        table[key] = value
        return value

    call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    call.__wrapped__ = fn  # type: ignore[attr-defined]
    call.cache_clear = table.clear  # type: ignore[attr-defined]
    return call  # type: ignore[return-value]
