"""msgpack for stored events, and the canonical bytes that event hashes are taken over (sorted-key JSON).

Stored events are dicts of plain values plus a few types msgpack has no native form for: UUIDs and tuples travel
as msgpack extension types, so that what is decoded is what was encoded. Timezone-aware datetimes are msgpack
timestamps, decoded as the same instant in UTC (the ledger makes every timestamp in UTC); datetimes stored as ISO
text by earlier versions are still read.

Decoding is bounded: a tuple's bytes are unpacked again, at most MAX_DEPTH deep, and bytes that come from outside
the ledger (`unpack_input`) are refused when any value in them nests deeper than MAX_DEPTH.
"""

from __future__ import annotations

import hashlib
import json
import threading
import zlib
from collections.abc import Callable, Iterable
from datetime import datetime
from itertools import chain
from typing import Any
from uuid import UUID

import msgpack
from eventsourcing.persistence import Transcoder

from evo_ledger.game.stored_shapes import STORED_SHAPES

EXT_UUID = 1
EXT_DATETIME = 2  # read only: written by earlier versions
EXT_TUPLE = 3


class CodecError(ValueError):
    """A value the codec cannot encode, or bytes it cannot decode."""


def _default(value: Any) -> msgpack.ExtType:
    if isinstance(value, UUID):
        return msgpack.ExtType(EXT_UUID, value.bytes)
    if isinstance(value, datetime):  # aware ones are packed natively
        raise CodecError(f"datetime {value!r} has no time zone; stored times are timezone-aware")
    if isinstance(value, tuple):  # a packer of its own: this one is in the middle of packing
        return msgpack.ExtType(EXT_TUPLE, msgpack.packb(list(value), **_PACKING))
    raise CodecError(f"cannot store a {type(value).__name__}: {value!r}")


# How deep lists, maps and tuples may nest in a decoded value: a stored event nests a few levels.
MAX_DEPTH = 32


def _ext_hook_at(depth: int, hooks: list[Callable[[int, bytes], Any]]) -> Callable[[int, bytes], Any]:
    """The extension hook for values `depth` tuples deep: a tuple's bytes are unpacked by the hook one deeper of
    `hooks`. Those of the compact form read no datetime as text: it never writes one, and one there would decode
    to a time whose canonical bytes, and so its seal, are those of another offset."""

    def ext_hook(code: int, data: bytes) -> Any:
        if code == EXT_UUID:
            return UUID(bytes=data)
        if code == EXT_DATETIME and hooks is _EXT_HOOKS:
            return datetime.fromisoformat(data.decode("ascii"))
        if code == EXT_TUPLE:
            if depth >= MAX_DEPTH:
                raise CodecError(f"tuples nest deeper than {MAX_DEPTH}")
            return tuple(_unpackb(data, depth + 1, hooks))
        raise CodecError(f"unknown msgpack extension type {code}")

    return ext_hook


_EXT_HOOKS: list[Callable[[int, bytes], Any]] = []
_EXT_HOOKS.extend(_ext_hook_at(depth, _EXT_HOOKS) for depth in range(MAX_DEPTH + 1))
_COMPACT_HOOKS: list[Callable[[int, bytes], Any]] = []
_COMPACT_HOOKS.extend(_ext_hook_at(depth, _COMPACT_HOOKS) for depth in range(MAX_DEPTH + 1))


# strict_types: a tuple must reach `_default`, or it would come back a list.
_PACKING: dict[str, Any] = {"default": _default, "use_bin_type": True, "strict_types": True, "datetime": True}
_packers = threading.local()


def pack(value: Any) -> bytes:
    """The value's msgpack bytes, by this thread's packer, made once and kept for every value after it (pays for:
    bench.ledger_speed appends)."""
    try:
        packer = _packers.packer
    except AttributeError:
        packer = _packers.packer = msgpack.Packer(**_PACKING)
    return packer.pack(value)  # type: ignore[no-any-return]


def _unpackb(data: bytes, depth: int = 0, hooks: list[Callable[[int, bytes], Any]] | None = None) -> Any:
    hook = (_EXT_HOOKS if hooks is None else hooks)[depth]
    return msgpack.unpackb(data, ext_hook=hook, raw=False, strict_map_key=False, timestamp=3)


# What unpacking bytes that are not a stored value can raise: a list as a map key is a TypeError, a timestamp
# beyond the year 9999 an OverflowError.
UNREADABLE = (ValueError, TypeError, OverflowError, msgpack.FormatError, msgpack.StackError)


def unpack(data: bytes) -> Any:
    try:
        return _unpackb(data)
    except UNREADABLE as error:
        raise CodecError(f"not a stored value: {error}") from None


def unpack_input(data: bytes) -> Any:
    """A value sent from outside the ledger: refused (CodecError) unless it decodes and nests at most MAX_DEPTH."""
    value = unpack(data)
    check_depth(value)
    return value


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Refuses (CodecError) a value whose lists, tuples and maps (keys included) nest deeper than `limit`."""
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            raise CodecError(f"a value nests deeper than {limit}")
        level = [child for item in level for child in _children(item) if isinstance(child, _CONTAINERS)]


_CONTAINERS = (list, tuple, dict)


def _children(container: list[Any] | tuple[Any, ...] | dict[Any, Any]) -> Iterable[Any]:
    return chain(container.keys(), container.values()) if isinstance(container, dict) else container


# A stored event sealed by a server key ends with its seal: 32 bytes of HMAC-SHA256, packed as msgpack binary.
SEAL_MARK = b"\xc4\x20"
SEAL_SIZE = len(SEAL_MARK) + 32


def unpack_sealed(data: bytes) -> tuple[Any, bytes | None]:
    """A stored value and the seal that follows it, if any, in either stored form (`compact`); other bytes after
    the value are an error."""
    return _unpack_compact(data) if data[:1] == COMPACT_MARK else _unpack_with_seal(data)


# The compact stored form: the canonical form's fields as a list in the order of a known shape (its field names, in
# `STORED_SHAPES`), hashes as bytes, after a byte msgpack never uses and the form's variant; a long one deflated.
COMPACT_MARK = b"\xc1"
PLAIN, DEFLATED = b"\x01", b"\x02"
# A state a store gives for an event it holds but cannot read (`evo_ledger.store.runs`): why, in text, after it.
DAMAGED = b"\x03"
DEFLATE_FROM = 512  # the packed fields' length from which they are deflated
HEX_FIELDS = frozenset({"hash", "prev_hash"})
HEX_LENGTH = 64
_SHAPE_IDS = {shape: number for number, shape in enumerate(STORED_SHAPES)}
_HEX_PLACES = [tuple(place for place, name in enumerate(shape) if name in HEX_FIELDS) for shape in STORED_SHAPES]


def compact(state: bytes, deflating: bool = True) -> bytes:
    """The compact form of a stored event's canonical bytes (a map of its fields, then its seal, if any): the same
    bytes where its fields have no known shape, or where the compact form would not give them back exactly. Not
    `deflating`: plain however long (for a store that deflates many events together)."""
    if state[:1] == COMPACT_MARK:
        return state
    try:
        fields, seal = unpack_sealed(state)
        if not isinstance(fields, dict) or pack(fields) != (state if seal is None else state[: len(state) - SEAL_SIZE]):
            return state  # the keyed bytes are not the map's own packing: only they are kept
        made = compact_fields(fields, seal, deflating)
    except CodecError:
        return state
    return state if made is None else made


def compact_fields(fields: dict[str, Any], seal: bytes | None = None, deflating: bool = True) -> bytes | None:
    """The compact form of the event whose canonical bytes are `pack(fields)` (then `seal`), made from its fields
    themselves: what decoding and packing again gives back is `pack`'s own bytes, for every value `pack` takes
    (pays for: bench.stored_size appends, the mapper not decoding what it has just encoded). None where the fields
    have no known shape, or keep a hash as bytes, which would be read back as text."""
    shape = _SHAPE_IDS.get(tuple(fields))
    if shape is None:
        return None
    values = [*fields.values(), shape]
    for place in _HEX_PLACES[shape]:
        value = values[place]
        if type(value) is bytes:
            return None
        values[place] = _as_bytes(value)
    packed = pack(values)
    if deflating and len(packed) >= DEFLATE_FROM:
        body = COMPACT_MARK + DEFLATED + pack(zlib.compress(packed))
    else:
        body = _PLAIN_HEAD + packed
    return body if seal is None else body + SEAL_MARK + seal


_PLAIN_HEAD = COMPACT_MARK + PLAIN


def canonical(state: bytes) -> bytes:
    """The canonical bytes of a stored event in either form: what its seal, and the digests of stored bytes that
    checkpoints sign, are taken over."""
    if state[:1] != COMPACT_MARK:
        return state
    fields, seal = _unpack_compact(state)
    body = pack(fields)
    return body if seal is None else body + SEAL_MARK + seal


def stored_digest(state: bytes) -> str:
    """The SHA-256 of a stored event's canonical bytes, in hex, whichever form it is stored in."""
    return hashlib.sha256(canonical(state)).hexdigest()


def _as_bytes(value: Any) -> Any:
    """A hash as its bytes, where they give the same text back (64 lowercase hex digits); any other value as it is."""
    if type(value) is str and len(value) == HEX_LENGTH:
        try:
            made = bytes.fromhex(value)
        except ValueError:
            return value
        if made.hex() == value:
            return made
    return value


def _unpack_compact(data: bytes) -> tuple[dict[str, Any], bytes | None]:
    """The fields of compact bytes (a list of the values of a shape's fields, then the shape's number) and the
    seal after them (pays for: bench.ledger_speed full fold, as the keyed form)."""
    variant = data[1:2]
    if variant == DAMAGED:
        raise CodecError(f"not a stored value: {data[2:].decode('utf-8', 'replace')}")
    values, seal = _unpack_with_seal(data[2:], _COMPACT_HOOKS)
    if variant != PLAIN:
        values = _inflated(variant, values)
    shape = values[-1] if type(values) is list and values else None
    if type(shape) is not int or not 0 <= shape < len(STORED_SHAPES):
        raise CodecError("not a stored value: compact bytes without a known shape")
    names, hex_places, fields_of = _READING[shape]
    if len(values) != len(names) + 1:
        raise CodecError(f"not a stored value: {len(values) - 1} values for a shape of {len(names)} fields")
    for place in hex_places:
        value = values[place]
        if type(value) is bytes:
            values[place] = value.hex()
    return fields_of(values), seal


def _fields_reader(names: tuple[str, ...]) -> Callable[[list[Any]], dict[str, Any]]:
    """A function that makes the map of a shape's fields from their values, written as a dict display of the
    shape's names: twice as fast as `dict(zip(names, values))` (pays for: bench.stored_size full fold)."""
    display = ", ".join(f"{name!r}: values[{place}]" for place, name in enumerate(names))
    reader: Callable[[list[Any]], dict[str, Any]] = eval(f"lambda values: {{{display}}}")
    return reader


_READING = [(names, places, _fields_reader(names)) for names, places in zip(STORED_SHAPES, _HEX_PLACES, strict=True)]


# The most a deflated stored value may inflate to: a snapshot of a long game is tens of kilobytes, a game's first
# event carries its kit (a request of a megabyte at most).
MAX_INFLATED = 2 * 1024 * 1024


def _inflated(variant: bytes, deflated: Any) -> Any:
    if variant != DEFLATED or type(deflated) is not bytes:
        raise CodecError(f"not a stored value: an unknown compact variant {variant!r}, or not deflated bytes")
    inflated = inflated_within(deflated, MAX_INFLATED, zlib.MAX_WBITS, "stored value")
    try:
        return _unpackb(inflated, 0, _COMPACT_HOOKS)
    except UNREADABLE as error:
        raise CodecError(f"not a stored value: {error}") from None


def inflated_within(deflated: bytes, limit: int, window_bits: int, what: str) -> bytes:
    """Deflated bytes inflated (`window_bits` as zlib takes them: negative for a raw stream), or CodecError naming
    `what` they are not, where they cannot be, or would inflate to more than `limit` bytes (read no further)."""
    inflating = zlib.decompressobj(window_bits)
    try:
        inflated = inflating.decompress(deflated, limit)
    except zlib.error as error:
        raise CodecError(f"not a {what}: {error}") from None
    if inflating.unconsumed_tail:
        raise CodecError(f"not a {what}: it inflates to more than {limit} bytes")
    return inflated


def _unpack_with_seal(data: bytes, hooks: list[Callable[[int, bytes], Any]] | None = None) -> tuple[Any, bytes | None]:
    try:
        return _unpackb(data, 0, hooks), None
    except msgpack.ExtraData as extra:
        trailer = extra.extra
        if len(trailer) == SEAL_SIZE and trailer.startswith(SEAL_MARK):
            return extra.unpacked, bytes(trailer[len(SEAL_MARK) :])
        raise CodecError(f"not a stored value: {len(trailer)} bytes follow it that are not a seal") from None
    except UNREADABLE as error:
        raise CodecError(f"not a stored value: {error}") from None


class MsgpackTranscoder(Transcoder):
    """The event store's transcoder: msgpack, with UUID, datetime and tuple kept as they were."""

    def encode(self, obj: Any) -> bytes:
        return pack(obj)

    def decode(self, data: bytes) -> Any:
        """The stored value; a seal after it is left to `evo_ledger.game.seal`."""
        return unpack_sealed(data)[0]


def _json_default(value: Any) -> str:
    if isinstance(value, UUID | datetime):
        return str(value) if isinstance(value, UUID) else value.isoformat()
    raise CodecError(f"cannot hash a {type(value).__name__}: {value!r}")


# Sorted keys, no spaces, text as it is (not escaped to ASCII), no NaN, and no check for circular values (hashed
# values are trees): made once.
_CANONICAL = json.JSONEncoder(
    ensure_ascii=False,
    check_circular=False,
    allow_nan=False,
    sort_keys=True,
    separators=(",", ":"),
    default=_json_default,
)


def canonical_bytes(value: Any) -> bytes:
    """The bytes hashes are taken over: JSON with sorted keys and no spaces (tuples as lists, times as ISO text)."""
    return _CANONICAL.encode(value).encode("utf-8")


def digest(value: Any) -> str:
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
