"""JSON read and written by the C scanner and encoder that `json` itself uses, without importing `json`.

`import json` loads `json.decoder`, `json.scanner` and `json.encoder`, which compile seven regular
expressions at import: about 1.5 ms of CPU in a guard hook, where every call is a new process.
`loads` reads with the same `_json` scanner `json.loads` builds (json's defaults: strict strings,
`float`, `int`, the NaN and Infinity constants unless `parse_constant` says otherwise) and `dumps`
writes with the same `_json` encoder `json.dumps` uses for one-shot output. Whatever this path does
not finish (any error, a byte order mark, bytes json would not read as UTF-8, data after the
document, an object json cannot write) is handed to `json` itself, which then raises or returns
exactly what it would have: this module never decides an error of its own.
tests/test_jsontext.py holds both to `json`, side by side, on a generated table.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from json import JSONDecodeError as JSONDecodeError
    from typing import Any

_WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE is [ \t\n\r]*
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}  # json.decoder's
_scanners: dict[tuple[object, object], Callable[[str, int], tuple[Any, int]]] = {}


def __getattr__(name: str) -> object:
    """`jsontext.JSONDecodeError` is json's own class, imported when an `except` clause asks for it
    (only after something raised: an error from the scanner has imported json.decoder already)."""
    if name == "JSONDecodeError":
        from json import JSONDecodeError

        return JSONDecodeError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Decoder:
    """The attributes `_json.make_scanner` reads from the json.JSONDecoder it is given."""

    strict = True
    object_hook = None
    parse_float = float  # the exact types: the scanner's fast paths, as json.JSONDecoder's defaults
    parse_int = int

    def __init__(self, object_pairs_hook: object, parse_constant: object) -> None:
        self.object_pairs_hook = object_pairs_hook
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__


def _scanner(object_pairs_hook: object, parse_constant: object) -> Callable[[str, int], tuple[Any, int]]:
    key = (object_pairs_hook, parse_constant)
    if key not in _scanners:
        _scanners[key] = _json.make_scanner(_Decoder(object_pairs_hook, parse_constant))  # type: ignore[arg-type]
    return _scanners[key]


def _utf8(raw: bytes) -> str:
    """The text json.loads makes of bytes, when json.detect_encoding would answer utf-8 for certain:
    two leading bytes, neither NUL (UTF-16/32 without a mark) nor the first byte of a byte order mark."""
    if len(raw) < 2 or not raw[0] or not raw[1] or raw[0] in b"\xef\xfe\xff":
        raise ValueError("not certainly UTF-8: json decides")
    return raw.decode("utf-8", "surrogatepass")


def loads(
    s: str | bytes,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """json.loads(s, object_pairs_hook=..., parse_constant=...), value for value and error for error."""
    try:
        text = s if isinstance(s, str) else _utf8(s)
        if text.startswith("\ufeff"):
            raise ValueError("json refuses a byte order mark in text")
        value, end = _scanner(object_pairs_hook, parse_constant)(text, len(text) - len(text.lstrip(_WHITESPACE)))
        if text[end:].strip(_WHITESPACE):
            raise ValueError("extra data: json says where")
        return value
    except Exception:  # json raises its own error, in its own words (or reads what this path did not)
        import json

        return json.loads(s, object_pairs_hook=object_pairs_hook, parse_constant=parse_constant)


def _not_serializable(o: object) -> object:
    raise TypeError("json says why")  # json.JSONEncoder.default; json.dumps then raises its own


def dumps(
    obj: object, *, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": "), sort_keys: bool = False
) -> str:
    """json.dumps(obj, ensure_ascii=..., separators=..., sort_keys=...) with json's other defaults
    (circular references checked, NaN and Infinity written, no indent)."""
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    try:
        if isinstance(obj, str):  # json.JSONEncoder.encode's own shortcut
            return quote(obj)
        item, key = separators
        encode = _json.make_encoder({}, _not_serializable, quote, None, key, item, sort_keys, False, True)
        return "".join(encode(obj, 0))
    except Exception:
        import json

        return json.dumps(obj, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys)
