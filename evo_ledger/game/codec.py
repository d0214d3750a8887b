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
from collections.abc import Callable, Iterable
from datetime import datetime
from itertools import chain
from typing import Any
from uuid import UUID

import msgpack
from eventsourcing.persistence import Transcoder

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


def _ext_hook_at(depth: int) -> Callable[[int, bytes], Any]:
    """The extension hook for values `depth` tuples deep: a tuple's bytes are unpacked by a hook one deeper."""

    def ext_hook(code: int, data: bytes) -> Any:
        if code == EXT_UUID:
            return UUID(bytes=data)
        if code == EXT_DATETIME:
            return datetime.fromisoformat(data.decode("ascii"))
        if code == EXT_TUPLE:
            if depth >= MAX_DEPTH:
                raise CodecError(f"tuples nest deeper than {MAX_DEPTH}")
            return tuple(_unpackb(data, depth + 1))
        raise CodecError(f"unknown msgpack extension type {code}")

    return ext_hook


_EXT_HOOKS = [_ext_hook_at(depth) for depth in range(MAX_DEPTH + 1)]


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


def _unpackb(data: bytes, depth: int = 0) -> Any:
    return msgpack.unpackb(data, ext_hook=_EXT_HOOKS[depth], raw=False, strict_map_key=False, timestamp=3)


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
    """A stored value and the seal that follows it, if any; other bytes after the value are an error."""
    try:
        return _unpackb(data), None
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
