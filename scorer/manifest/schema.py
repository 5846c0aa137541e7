"""The manifest checked against the shipped JSON Schema, by a walker of the keywords it uses.

jsonschema is the reference, and costs ~200 ms to import on every commit and every tool call;
this reads the same schema file at run time (nothing generated, so nothing can drift) and
gives jsonschema's Draft 2020-12 answers, with its messages, for the keywords the schema uses.
A keyword it does not implement is refused when the schema is read, never skipped:
tests/manifest/test_schema.py holds the walker to jsonschema on every fixture and on generated
manifests, and checks the shipped schema uses no other keyword.
"""

from __future__ import annotations

from .. import jsontext
from ..records import NamedTuple
from .globs import ASCII_LETTERS as _ASCII_LETTERS
from .globs import drive_rooted

TYPE_CHECKING = False  # typing's, without importing typing on every tool call (issue 29)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

# Keywords with no effect on validity here: annotations and the schema's own structure.
ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "$comment", "default", "examples"})
ASSERTIONS = frozenset(
    {"type", "enum", "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "minItems"}
)
APPLICATORS = frozenset({"$ref", "properties", "additionalProperties", "required", "items"})


class SchemaNotUnderstood(Exception):
    """The schema uses a keyword (or a form of one) this walker does not implement."""


class SchemaError(NamedTuple):
    """One failed keyword, as jsonschema's ValidationError reports it."""

    path: tuple[str | int, ...]  # jsonschema's absolute_path
    keyword: str  # jsonschema's validator
    message: str
    instance: Any
    schema: dict[str, Any]


def _is_type(instance: Any, name: str) -> bool:
    # jsonschema's Draft 2020-12 type checker: a bool is no number, 1.0 is an integer.
    if name == "string":
        return isinstance(instance, str)
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool) or not isinstance(instance, (int, float)):
        return False
    return name == "number" or isinstance(instance, int) or instance.is_integer()


def _length(instance: Any, limit: Any, kind: str, too: str) -> str | None:
    if not _is_type(instance, kind):
        return None
    if too == "short" and len(instance) < limit:
        return f"{instance!r} {'should be non-empty' if limit == 1 else 'is too short'}"
    if too == "long" and len(instance) > limit:
        return f"{instance!r} {'is expected to be empty' if limit == 0 else 'is too long'}"
    return None


def _number(instance: Any, bound: Any, keyword: str) -> str | None:
    if not _is_type(instance, "number"):
        return None
    if keyword == "minimum" and instance < bound:
        return f"{instance!r} is less than the minimum of {bound!r}"
    if keyword == "exclusiveMinimum" and instance <= bound:
        return f"{instance!r} is less than or equal to the minimum of {bound!r}"
    if keyword == "maximum" and instance > bound:
        return f"{instance!r} is greater than the maximum of {bound!r}"
    return None


def _type(instance: Any, types: Any) -> str | None:
    names = types if isinstance(types, list) else [types]
    if any(_is_type(instance, t) for t in names):
        return None
    return f"{instance!r} is not of type {', '.join(repr(t) for t in names)}"


_WORD = _ASCII_LETTERS | frozenset("0123456789_")
_LOWER_HEX = frozenset("0123456789abcdef")


def _before_end(text: str) -> str:
    """What a pattern ending in `$` must match up to: re.search's `$` also matches before a final newline."""
    return text[:-1] if text.endswith("\n") else text


def _identifier(text: str) -> bool:
    body = _before_end(text)
    return bool(body) and body[0] in _ASCII_LETTERS | {"_"} and all(c in _WORD for c in body)


def _digest(text: str) -> bool:
    body = _before_end(text)
    return body.startswith("sha256:") and 16 <= len(body) - 7 <= 64 and all(c in _LOWER_HEX for c in body[7:])


def _absolute(text: str) -> bool:
    return text.startswith(("/", "~/")) or drive_rooted(text)


# The shipped schemas' patterns as str tests: compiling them was ~1.8M instructions of every tool
# call (issue 29). tests/manifest/test_schema_patterns.py holds each to re.search side by side, and
# checks that every pattern the shipped schemas use is here; any other pattern goes to re.
_PATTERNS: dict[str, Callable[[str], bool]] = {
    "^[A-Za-z_][A-Za-z0-9_]*$": _identifier,
    "^/": lambda text: text.startswith("/"),
    "^sha256:[0-9a-f]{16,64}$": _digest,
    "^(/|~/|[A-Za-z]:[\\\\/])": _absolute,
}


def _search(pattern: str, text: str) -> bool:
    """re.search(pattern, text) is not None, as jsonschema asks it."""
    known = _PATTERNS.get(pattern)
    if known is not None:
        return known(text)
    import re  # here: every pattern the shipped schemas use is a str test above (issue 29)

    return re.search(pattern, text) is not None


_ASSERT: dict[str, Callable[[Any, Any], str | None]] = {
    "type": _type,
    # Only enums of strings are understood, where jsonschema's equality is plain ==.
    "enum": lambda i, v: None if isinstance(i, str) and i in v else f"{i!r} is not one of {v!r}",
    "minLength": lambda i, v: _length(i, v, "string", "short"),
    "maxLength": lambda i, v: _length(i, v, "string", "long"),
    "minItems": lambda i, v: _length(i, v, "array", "short"),
    "pattern": lambda i, v: None if not isinstance(i, str) or _search(v, i) else f"{i!r} does not match {v!r}",
    "minimum": lambda i, v: _number(i, v, "minimum"),
    "maximum": lambda i, v: _number(i, v, "maximum"),
    "exclusiveMinimum": lambda i, v: _number(i, v, "exclusiveMinimum"),
}


class Validator:
    """The schema, checked once for keywords this walker knows; `errors` yields jsonschema's errors
    in jsonschema's order (schema keywords in the order the schema spells them)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        _understood(schema, schema, "#")

    def errors(self, instance: Any) -> Iterator[SchemaError]:
        return self._walk(instance, self.schema, ())

    def _walk(self, instance: Any, schema: dict[str, Any], path: tuple[str | int, ...]) -> Iterator[SchemaError]:
        for keyword, value in schema.items():
            if keyword in _ASSERT:
                message = _ASSERT[keyword](instance, value)
                if message is not None:
                    yield SchemaError(path, keyword, message, instance, schema)
            elif keyword == "$ref":
                yield from self._walk(instance, _resolve(self.schema, value), path)
            elif keyword == "properties" and isinstance(instance, dict):
                for name, sub in value.items():
                    if name in instance:
                        yield from self._walk(instance[name], sub, (*path, name))
            elif keyword == "additionalProperties" and isinstance(instance, dict):
                extra = [k for k in instance if k not in schema.get("properties", {})]
                if extra:  # only `false` is understood (checked when the schema was read)
                    listed = ", ".join(repr(k) for k in sorted(extra))
                    verb = "was" if len(extra) == 1 else "were"
                    message = f"Additional properties are not allowed ({listed} {verb} unexpected)"
                    yield SchemaError(path, keyword, message, instance, schema)
            elif keyword == "required" and isinstance(instance, dict):
                for name in value:
                    if name not in instance:
                        yield SchemaError(path, keyword, f"{name!r} is a required property", instance, schema)
            elif keyword == "items" and isinstance(instance, list):
                for index, item in enumerate(instance):
                    yield from self._walk(item, value, (*path, index))


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _understood(schema: Any, root: dict[str, Any], where: str) -> None:
    """Raise SchemaNotUnderstood unless every keyword of `schema` (and below) is one implemented here."""
    if not isinstance(schema, dict):
        raise SchemaNotUnderstood(f"{where} is not an object schema")
    for keyword, value in schema.items():
        if keyword == "$ref" and not (isinstance(value, str) and value.startswith("#/")):
            raise SchemaNotUnderstood(f"{where}/$ref {value!r}: only local references are implemented")
        if keyword == "$ref":
            _understood(_resolve(root, value), root, value)
        elif keyword in ("properties", "$defs"):
            for name, sub in value.items():
                _understood(sub, root, f"{where}/{keyword}/{name}")
        elif keyword == "items":
            _understood(value, root, f"{where}/items")
        elif keyword == "additionalProperties" and value is not False:
            raise SchemaNotUnderstood(f"{where}/additionalProperties: only false is implemented")
        elif keyword == "pattern" and value not in _PATTERNS:  # each of those compiles (tests/manifest)
            import re

            re.compile(value)
        elif keyword == "enum" and not all(isinstance(v, str) for v in value):
            raise SchemaNotUnderstood(f"{where}/enum: only strings are implemented")
        elif keyword not in ANNOTATIONS | ASSERTIONS | APPLICATORS:
            raise SchemaNotUnderstood(
                f"{where} uses {keyword!r}, which scorer/manifest/schema.py does not implement: add it there "
                "(jsonschema's meaning, and a case in tests/manifest/test_schema.py)"
            )


def validator_for(text: str) -> Validator:
    return Validator(jsontext.loads(text))
