"""`NamedTuple` for the guard's hot path: the same records, made without compiling anything.

`typing.NamedTuple` compiles a `__new__` for every class (collections.namedtuple's `eval`) and,
under `from __future__ import annotations`, each field's annotation string once more (as a
`ForwardRef`). The command hook imports about 35 such classes on every agent tool call: 40M of
its 200M instructions (issue 29). A class made here is a tuple subclass with the fields'
accessors, defaults, `_fields`, `_field_defaults`, `_asdict`, `_replace`, `_make`, the repr and
pickling of a namedtuple; `tests/test_records.py` holds it to `typing.NamedTuple` side by side.
The type checker sees `typing.NamedTuple` itself, so every record is checked as one.

Not importing `typing` here is the point: it is 16M instructions of its own.
"""

from __future__ import annotations

try:
    from _collections import _tuplegetter  # the C field accessor collections.namedtuple uses
except ImportError:  # an interpreter without CPython's accelerator: the accessor namedtuple falls back to
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index: int, doc: str) -> property:
        return property(_itemgetter(index), doc=doc)


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the type checker knows the name)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import ClassVar

__all__ = ["NamedTuple"]

# What the class statement itself puts in the namespace; everything else there is the class's own.
_STATEMENT_NAMES = frozenset({"__module__", "__qualname__", "__annotations__", "__orig_bases__"})


class _Record(tuple):  # the runtime base of every record
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_defaults: ClassVar[dict[str, object]] = {}

    def __new__(cls, *args: object, **kwargs: object) -> _Record:
        fields = cls._fields
        if len(args) == len(fields) and not kwargs:
            return tuple.__new__(cls, args)
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments, {len(args)} given")
        values = list(args)
        for name in fields[len(args) :]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in cls._field_defaults:
                values.append(cls._field_defaults[name])
            else:
                raise TypeError(f"{cls.__name__}() missing required argument: {name!r}")
        if kwargs:  # a name that is no field, or a field also given by position
            raise TypeError(f"{cls.__name__}() got unexpected or repeated arguments: {sorted(kwargs)}")
        return tuple.__new__(cls, values)

    @classmethod
    def _make(cls, iterable: Iterable[object]) -> _Record:
        values = tuple(iterable)
        if len(values) != len(cls._fields):
            raise TypeError(f"expected {len(cls._fields)} arguments, got {len(values)}")
        return tuple.__new__(cls, values)

    def _replace(self, **changes: object) -> _Record:
        values = [changes.pop(name, value) for name, value in zip(self._fields, self, strict=True)]
        if changes:
            raise ValueError(f"got unexpected field names: {list(changes)!r}")
        return tuple.__new__(type(self), values)

    def _asdict(self) -> dict[str, object]:
        return dict(zip(self._fields, self, strict=True))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True))
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)


class _RecordMeta(type):
    """Turns `class X(NamedTuple): a: int` into a record class (itself a plain type)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if namespace.get("_is_the_base"):
            return super().__new__(mcls, name, bases, namespace)
        if bases != (_NamedTupleBase,):
            raise TypeError("a record's only base is NamedTuple")
        annotations = dict(namespace.get("__annotations__") or {})  # type: ignore[call-overload]
        fields = tuple(annotations)
        defaults = {f: namespace[f] for f in fields if f in namespace}
        _check_fields(name, fields, defaults)
        body: dict[str, object] = {k: v for k, v in namespace.items() if k not in _STATEMENT_NAMES}
        for index, field in enumerate(fields):
            body[field] = _tuplegetter(index, f"Alias for field number {index}")
        body.update(
            __slots__=(),
            __module__=namespace.get("__module__"),
            __qualname__=namespace.get("__qualname__", name),
            __annotations__=annotations,
            __match_args__=fields,
            _fields=fields,
            _field_defaults=defaults,
        )
        return type(name, (_Record,), body)


def _check_fields(name: str, fields: tuple[str, ...], defaults: dict[str, object]) -> None:
    for field in fields:
        if field.startswith("_"):
            raise ValueError(f"{name}: field names cannot start with an underscore: {field!r}")
    defaulted = [f in defaults for f in fields]
    if defaulted != sorted(defaulted):  # once one field has a default, every later one has
        raise TypeError(f"{name}: a field without a default follows one with a default")


class _NamedTupleBase(metaclass=_RecordMeta):
    _is_the_base = True


if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _NamedTupleBase
