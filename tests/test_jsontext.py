"""scorer.jsontext against json itself, side by side: for every input of a generated table (and the
inputs json refuses), the same value or the same error, type and message."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import pytest

from scorer import jsontext
from tests.testing import imports
from tests.testing.repo import GitRepo

SEED = 20261203


def outcome(call: Any, *args: Any, **kwargs: Any) -> tuple[str, str]:
    try:
        value = call(*args, **kwargs)
    except Exception as exc:  # the error itself is the outcome compared
        return type(exc).__qualname__, str(exc)
    return "value", repr(value)  # repr: the types, the key order and NaN compared too


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 4 else 6)
    scalars: list[Any] = [None, True, False, 0, -1, 2**70, 1.5, -0.0, 1e308, float("nan"), float("inf")]
    if kind == 0:
        return rng.choice(scalars)
    if kind in (1, 2):
        return "".join(
            rng.choice(["a", '"', "\\", "\n", "\x00", "é", "\u2028", "\ud800", "😀", "/", " "])
            for _ in range(rng.randrange(6))
        )
    if kind == 3:
        return rng.randrange(-(10**6), 10**6)
    if kind == 4:
        return rng.uniform(-1e6, 1e6)
    if kind == 5:
        return rng.choice(["", "x", "key"])
    if kind in (6, 7):
        return {
            _value(rng, 9) if rng.random() < 0.1 else str(rng.randrange(5)): _value(rng, depth + 1)
            for _ in range(rng.randrange(4))
        }
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def _documents() -> list[str | bytes]:
    rng = random.Random(SEED)
    docs: list[str | bytes] = []
    for _ in range(300):
        value = _value(rng, 0)
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1]))
        docs += [text, " \t\n\r" + text + "\r\n ", text.encode("utf-8", "surrogatepass")]
        cut = rng.randrange(len(text) + 1)
        docs += [
            text[:cut],
            text + " x",
            text + text,
            "\ufeff" + text,
            text.encode("utf-16", "surrogatepass"),
            text.encode("utf-32", "surrogatepass"),
        ]
        docs.append(text.encode("utf-16-le" if rng.random() < 0.5 else "utf-32-be", "surrogatepass"))
    return docs


REFUSED_OR_ODD: list[Any] = [
    "",
    " ",
    "\ufeff{}",
    b"\xef\xbb\xbf{}",
    b"",
    b"1",
    b"{",
    "{} {}",
    "[1] x",
    "1 2",
    "NaN",
    "-Infinity",
    "[NaN, Infinity]",
    "nan",
    '{"a": 1, "a": 2}',
    '{"a": {"b": 1, "b": [2]}}',
    "[" * 100_000,
    "[" * 5000 + "]" * 5000,
    b'"\xff"',
    b'"\xed\xa0\x80"',
    b'"\xc0\x80"',
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\u12"',
    '"\x01"',
    "'a'",
    "01",
    "1.",
    ".5",
    "-",
    "1e",
    "1e400",
    "-0",
    "[1,]",
    '{"a":1,}',
    "{1: 2}",
    "tru",
    "nul",
    "\v1",
    "\u00a01",
    b"\x00\x00\x00[",
    b"[\x00\x00\x00",
    b"[\x00",
    b"\x00[",
    b"\xfe\xff\x00[\x00]",
    12,
    None,
    bytearray(b"[1]"),
    memoryview(b"[1]"),
]


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("duplicate key")
    return dict(pairs)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


@pytest.mark.parametrize("hooks", [{}, {"object_pairs_hook": _pairs, "parse_constant": _no_constant}])
def test_loads_reads_what_json_reads_and_refuses_what_it_refuses(hooks: dict[str, Any]) -> None:
    for doc in [*_documents(), *REFUSED_OR_ODD]:
        assert outcome(jsontext.loads, doc, **hooks) == outcome(json.loads, doc, **hooks), doc[:80]


def _objects() -> list[Any]:
    rng = random.Random(SEED + 1)
    circular: list[Any] = []
    circular.append(circular)
    odd = [circular, {1: "a", 2.5: "b", None: 1, False: 2}, {(1, 2): 3}, {1, 2}, b"x", object(), (1, [2]), "\ud800"]
    return [_value(rng, 0) for _ in range(500)] + odd + [float("nan"), 10**400, {"b": 1, "a": {"d": 2, "c": 3}}]


@pytest.mark.parametrize(
    "options",
    [{}, {"ensure_ascii": False}, {"ensure_ascii": True, "separators": (",", ":")}, {"sort_keys": True}],
)
def test_dumps_writes_what_json_writes(options: dict[str, Any]) -> None:
    for obj in _objects():
        assert outcome(jsontext.dumps, obj, **options) == outcome(json.dumps, obj, **options), repr(obj)[:80]


def test_the_decode_error_is_jsons_own() -> None:
    assert jsontext.JSONDecodeError is json.JSONDecodeError
    with pytest.raises(jsontext.JSONDecodeError):
        jsontext.loads("[1] 2")
    with pytest.raises(AttributeError):
        jsontext.nothing  # noqa: B018


def test_reading_and_writing_import_no_json(repo: GitRepo) -> None:
    code = 'from scorer import jsontext; jsontext.dumps(jsontext.loads(b\'{"a": [1, 2.5, null, "\\\\u00e9"]}\'))'
    status, _, names = imports.imported(repo, ["-c", code])
    assert status == 0 and "scorer.jsontext" in names
    assert not [n for n in names if n == "json" or n.startswith("json.") or n == "re"]


def test_what_json_accepts_is_read_and_written_without_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table above is not passed by handing everything to json: the fast path finishes alone."""
    rng = random.Random(SEED + 2)
    values = [_value(rng, 0) for _ in range(300)]
    texts = [json.dumps(v, ensure_ascii=False) for v in values]
    monkeypatch.setitem(sys.modules, "json", None)  # importing json now fails
    for value, text in zip(values, texts):
        assert repr(jsontext.loads(" " + text + "\n")) == repr(
            jsontext.loads(f"{text} ".encode("utf-8", "surrogatepass"))
        )
        assert jsontext.dumps(value, ensure_ascii=False) == text
