"""One codec between frozen dataclass records and their JSON forms, driven by fields and hints.

`to_json_dict(obj)` and `from_json_dict(cls, data)` work for any dataclass whose fields are
str, int, float, bool, None, Literal[...], tuples, lists, dicts of those, and other such
dataclasses. Tuples are written as lists and rebuilt as tuples; a Literal field is checked
when read, so a bad value is an error naming the record and the field.

Each class's encoder and decoder is generated once, as straight-line Python (the way
dataclasses writes __init__): as fast as the hand-written pairs it replaces
(bench/bench_codec.py), with no per-field dispatch at run time.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, TypeVar, get_args, get_origin

T = TypeVar("T")

OMIT_NONE: dict[str, str] = {"json": "omit_none"}
"""Field metadata: the key is left out of the JSON form when the value is None."""
OMIT_EMPTY: dict[str, str] = {"json": "omit_empty"}
"""Field metadata: the key is left out of the JSON form when the value is empty (falsy)."""
SKIP: dict[str, str] = {"json": "skip"}
"""Field metadata: not part of the JSON form (read back as the field's default)."""


class CodecError(ValueError):
    """A JSON form that does not fit its record; the message names the record and the field."""


class MissingField(CodecError):
    """A JSON form without a field its record requires."""

    def __init__(self, record: str, name: str) -> None:
        super().__init__(f"{record}.{name}: missing")
        self.record = record
        self.name = name


_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_DECODERS: dict[type, Callable[[Any], Any]] = {}


def to_json_dict(obj: Any) -> dict[str, Any]:
    """Return the JSON form of a dataclass record: tuples as lists, nested records as dicts."""
    cls = type(obj)
    encode = _ENCODERS.get(cls) or _build_encoder(cls)
    return encode(obj)


def from_json_dict(cls: type[T], data: Any) -> T:
    """Rebuild a record of cls from its JSON form; CodecError names a missing or bad field."""
    decode = _DECODERS.get(cls) or _build_decoder(cls)
    result: T = decode(data)
    return result


def _json_fields(cls: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    """Return the fields of cls that the JSON form holds, with their resolved types."""
    hints = typing.get_type_hints(cls)
    return [(f, hints[f.name]) for f in dataclasses.fields(cls) if f.metadata.get("json") != "skip"]


def _optional(tp: Any) -> Any:
    """Return X for X | None, else None."""
    if get_origin(tp) in (types.UnionType, typing.Union):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(get_args(tp)) == 2:
            return args[0]
    return None


class _Namespace:
    """Names the generated code refers to (encoders, decoders, allowed values)."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}

    def add(self, value: Any) -> str:
        """Return the name value is bound to in the generated code."""
        name = f"_n{len(self.names)}"
        self.names[name] = value
        return name


def _encode_expr(tp: Any, v: str, ns: _Namespace, depth: int = 0) -> str | None:
    """Return Python turning v (of type tp) into JSON values; None when v is one already."""
    if dataclasses.is_dataclass(tp):
        return f"{ns.add(_encoder_of(typing.cast(type, tp)))}({v})"
    inner = _optional(tp)
    if inner is not None:
        expr = _encode_expr(inner, v, ns, depth)
        return None if expr is None else f"(None if {v} is None else {expr})"
    origin, args, x = get_origin(tp), get_args(tp), f"x{depth}"
    if origin in (tuple, list):
        item = _encode_expr(args[0], x, ns, depth + 1) if args else None
        if item is None or (origin is tuple and args[-1] is not Ellipsis):
            return f"list({v})"
        return f"[{item} for {x} in {v}]"
    if origin is dict:
        item = _encode_expr(args[1], x, ns, depth + 1)
        return None if item is None else f"{{k{depth}: {item} for k{depth}, {x} in {v}.items()}}"
    return None


def _decode_expr(tp: Any, v: str, ns: _Namespace, where: str, depth: int = 0) -> str:
    """Return Python rebuilding a value of type tp from v, its JSON form."""
    if dataclasses.is_dataclass(tp):
        return f"{ns.add(_decoder_of(typing.cast(type, tp)))}({v})"
    inner = _optional(tp)
    if inner is not None:
        expr = _decode_expr(inner, v, ns, where, depth)
        return v if expr == v else f"(None if {v} is None else {expr})"
    origin, args, x = get_origin(tp), get_args(tp), f"x{depth}"
    if origin is Literal:
        allowed, bad, y = ns.add(args), ns.add(_bad_value), f"y{depth}"
        return f"({y} if ({y} := {v}) in {allowed} else {bad}({where!r}, {y}, {allowed}))"
    if origin in (tuple, list):
        same = bool(args) and (origin is list or args[-1] is Ellipsis)
        item = _decode_expr(args[0], x, ns, where, depth + 1) if same else x
        build = origin.__name__
        return f"{build}({v})" if item == x else f"{build}([{item} for {x} in {v}])"
    if origin is dict:
        item = _decode_expr(args[1], x, ns, where, depth + 1)
        return (
            f"dict({v})" if item == x else f"{{k{depth}: {item} for k{depth}, {x} in {v}.items()}}"
        )
    return v


def _bad_value(where: str, value: Any, allowed: tuple[Any, ...]) -> Any:
    """Raise the error of a value outside its Literal."""
    raise CodecError(f"{where}: {value!r} is not one of {', '.join(map(repr, allowed))}")


def _compile(source: str, ns: _Namespace, name: str) -> Any:
    """Run the generated source and return the function it defines."""
    scope: dict[str, Any] = dict(ns.names)
    exec(compile(source, f"<codec {name}>", "exec"), scope)  # generated from field names only
    return scope["codec"]


def _encoder_of(cls: type) -> Callable[[Any], dict[str, Any]]:
    """Return cls's encoder, built on first use."""
    return _ENCODERS.get(cls) or _build_encoder(cls)


def _decoder_of(cls: type) -> Callable[[Any], Any]:
    """Return cls's decoder, built on first use."""
    return _DECODERS.get(cls) or _build_decoder(cls)


def _build_encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    """Generate, cache and return the encoder of dataclass cls."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass record")
    ns, items, optional = _Namespace(), [], []
    for f, tp in _json_fields(cls):
        expr = _encode_expr(tp, f"o.{f.name}", ns) or f"o.{f.name}"
        if f.metadata.get("json") == "omit_none":
            optional.append(f"    if o.{f.name} is not None:\n        out[{f.name!r}] = {expr}\n")
        elif f.metadata.get("json") == "omit_empty":
            optional.append(f"    if o.{f.name}:\n        out[{f.name!r}] = {expr}\n")
        else:
            items.append(f"{f.name!r}: {expr}")
    body = "".join(optional)
    source = f"def codec(o):\n    out = {{{', '.join(items)}}}\n{body}    return out\n"
    encode: Callable[[Any], dict[str, Any]] = _compile(source, ns, cls.__name__)
    _ENCODERS[cls] = encode
    return encode


def _build_decoder(cls: type) -> Callable[[Any], Any]:
    """Generate, cache and return the decoder of dataclass cls."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass record")
    ns, args = _Namespace(), []
    for f, tp in _json_fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            raw = f"d.get({f.name!r}, {ns.add(f.default)})"
        elif f.default_factory is not dataclasses.MISSING:
            raw = f"(d[{f.name!r}] if {f.name!r} in d else {ns.add(f.default_factory)}())"
        else:
            raw = f"d[{f.name!r}]"
        args.append(f"{f.name}={_decode_expr(tp, raw, ns, f'{cls.__name__}.{f.name}')}")
    cls_name, fail = ns.add(cls), ns.add(_failure)
    source = (
        "def codec(d):\n"
        "    try:\n"
        f"        return {cls_name}({', '.join(args)})\n"
        "    except (KeyError, TypeError, AttributeError) as exc:\n"
        f"        raise {fail}({cls_name}, d, exc) from None\n"
    )
    decode: Callable[[Any], Any] = _compile(source, ns, cls.__name__)
    _DECODERS[cls] = decode
    return decode


def _failure(cls: type, data: Any, exc: Exception) -> CodecError:
    """Return the error of a JSON form that could not be read as cls."""
    if not isinstance(data, dict):
        return CodecError(f"{cls.__name__}: expected a JSON object, got {type(data).__name__}")
    if isinstance(exc, KeyError):
        return MissingField(cls.__name__, str(exc.args[0]))
    return CodecError(f"{cls.__name__}: a field of the wrong type ({exc})")
