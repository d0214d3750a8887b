"""A run: consecutive events of one aggregate, appended together, kept in one stored row (the packed stored form).

A run's body keeps each event's topic and compact state (`evo_ledger.game.codec.compact`) as it was given, except
that the hash of the event before, where it is the previous event's of the same run, is cut out and put back when
the run is read: it is stored once, as that event's own hash. The body is deflated whole where that makes it
shorter, so that the field values and topics that repeat from event to event are stored once. An event is kept in
the plain compact variant where it has a known shape (one given deflated, or keyed, is made so) and as it was given
otherwise: what a run gives back has the canonical bytes of what was given to it (what hashes, seals and checkpoints
are taken over), and a plain compact state comes back byte for byte.

Body: a variant byte (`RUN_PLAIN`, `RUN_DEFLATED`), then a msgpack list of entries, one an event: its topic, its
state's
bytes (a compact state without its two leading bytes, any other state whole), whether it is compact, where the
hash of the event before was cut out of it (or nil), and where its own hash is in it (or nil).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import msgpack

from evo_ledger.game.codec import (
    COMPACT_MARK,
    DAMAGED,
    MAX_INFLATED,
    PLAIN,
    CodecError,
    canonical,
    compact,
    compact_hashes,
    inflated_within,
)

__all__ = ["RUN_EVENTS", "damaged", "pack_run", "plain_compact", "unpack_run"]

# The most events one run holds, and the most bytes of their states a run takes on after its first event: reading
# one event of a run inflates the whole of it.
RUN_EVENTS = 100
RUN_BYTES = 1024 * 1024
# The entries' length from which a run is deflated. A run of one event gains nothing, one of a few events a fifth,
# and deflating costs about as much as the rest of an append's work in Python (pays for: bench.stored_size
# appends, the packed form); `evo-ledger migrate` deflates the runs left plain (`pack_run(..., deflating=True)`).
DEFLATE_FROM = 1024

RUN_PLAIN, RUN_DEFLATED = 1, 2
HASH_MARK = b"\xc4\x20"  # a 32-byte msgpack binary: a hash, as the compact form stores it
HASH_SIZE = len(HASH_MARK) + 32
COMPACT_HEAD = COMPACT_MARK + PLAIN
# The most bytes the entries of a deflated run inflate to: a run's bytes, and a first event of the largest kind. A
# run longer than that (a single event larger still) is kept plain, and read with no more than its own bytes.
MAX_RUN_BYTES = RUN_BYTES + 2 * MAX_INFLATED

Entry = tuple[str, bytes, bool, int | None, int | None]
# What a run's entries may hold, so that hostile bytes are refused before they are unpacked into many objects: at
# most RUN_EVENTS entries of five values each, no map, no extension type.
ENTRY_BOUNDS = {"max_array_len": RUN_EVENTS, "max_map_len": 0, "max_ext_len": 0}


def pack_run(events: Sequence[tuple[str, bytes]], deflating: bool = False) -> bytes:
    """The body of a run of `events` (each its topic and stored state, in order of version); deflated where that
    makes it shorter, if it is long or `deflating` says so."""
    entries: list[Entry] = []
    previous: bytes | None = None
    if len(events) == 1 and events[0][1][:2] == COMPACT_HEAD:  # no hash to cut, none to keep for another event
        entries.append((events[0][0], events[0][1][2:], True, None, None))
    for topic, state in events if not entries else ():
        entry, previous = entry_of(topic, state, previous)
        entries.append(entry)
    packed: bytes = msgpack.packb(entries, use_bin_type=True)
    if len(packed) > MAX_RUN_BYTES or (len(packed) < DEFLATE_FROM and not deflating):
        return bytes([RUN_PLAIN]) + packed
    deflater = deflater_for(len(packed))
    deflated: bytes = deflater.compress(packed) + deflater.flush()
    if len(deflated) < len(packed):
        return bytes([RUN_DEFLATED]) + deflated
    return bytes([RUN_PLAIN]) + packed


# Up to this many bytes, a run is deflated with a window and memory of 4 KB, which hold all of it: a compressor of
# the full window (32 KB, and 256 KB of memory) takes tens of microseconds to set up, more than the run to deflate
# (pays for: bench.stored_size appends, the packed form). Inflating reads either.
SMALL_WINDOW = 4096


def deflater_for(length: int) -> Any:  # zlib's compressor type is not importable
    if length <= SMALL_WINDOW:
        return zlib.compressobj(6, zlib.DEFLATED, -12, 4)
    return zlib.compressobj(6, zlib.DEFLATED, -15)


def plain_compact(state: bytes) -> bytes:
    """A stored event's state in the plain compact variant, as a run keeps it, where it has a known shape; as it
    is otherwise (bytes that are not a stored value among them)."""
    if state[:2] == COMPACT_HEAD:
        return state
    try:
        return compact(canonical(state), deflating=False)
    except CodecError:
        return state


def entry_of(topic: str, state: bytes, previous: bytes | None) -> tuple[Entry, bytes | None]:
    """An event's entry, given its state and the hash of the event before it in the run (None: none, or not
    known); and its own hash, as the next event's entry is given it. Bytes that are not a stored value are kept as
    they were given."""
    plain = plain_compact(state)
    try:
        own, before = compact_hashes(plain) if plain[:2] == COMPACT_HEAD else (None, None)
    except CodecError:
        return (topic, state, False, None, None), None
    if plain[:2] != COMPACT_HEAD:
        return (topic, plain, False, None, None), None
    body = plain[2:]
    own_at = only_place(body, own)
    cut = only_place(body, previous) if previous is not None and before == previous else None
    if cut is not None:
        body = body[:cut] + body[cut + HASH_SIZE :]
        own_at = None if own_at is None else own_at - HASH_SIZE if own_at > cut else own_at
    return (topic, body, True, cut, own_at), (own if own_at is not None else None)


def only_place(body: bytes, hash_value: bytes | None) -> int | None:
    """Where the hash is in the body, stored as a hash, if it is there once and only once."""
    if hash_value is None:
        return None
    mark = HASH_MARK + hash_value
    place = body.find(mark)
    return place if place >= 0 and body.find(mark, place + 1) < 0 else None


def unpack_run(body: bytes) -> list[tuple[str, bytes]]:
    """Each event of a run, its topic and its stored state; CodecError for bytes that are not a run (pays for:
    bench.stored_size full fold, the packed form: one pass, each state made in one join, no call an event)."""
    events: list[tuple[str, bytes]] = []
    previous: bytes | None = None
    head, mark = COMPACT_HEAD, HASH_MARK
    try:
        for topic, data, is_compact, cut, own_place in run_entries(body):
            if type(topic) is not str or type(data) is not bytes:
                raise TypeError("an entry's topic is not text or its state not bytes")
            if not is_compact:
                events.append((topic, data))
                previous = None
                continue
            own_at = own_place
            if cut is None:
                state = head + data
            elif previous is None or not 0 <= cut <= len(data):
                raise CodecError("not a stored run: an event's hash of the event before cannot be put back")
            else:
                state = b"".join((head, data[:cut], mark, previous, data[cut:]))
                own_at = own_at + HASH_SIZE if own_at is not None and own_at >= cut else own_at
            previous = None
            if own_at is not None:
                start = len(head) + own_at + len(mark)
                previous = state[start : start + 32]
                if state[start - len(mark) : start] != mark or len(previous) != 32:
                    raise CodecError("not a stored run: an event's own hash is not where the run says it is")
            events.append((topic, state))
    except (TypeError, ValueError) as error:
        raise CodecError(
            f"not a stored run: its entries are not each a topic, a state and two places ({error})"
        ) from None
    return events


def run_entries(body: bytes) -> tuple[Any, ...]:
    variant, data = body[:1], body[1:]
    if variant == bytes([RUN_DEFLATED]):
        data = inflated_within(data, MAX_RUN_BYTES, -zlib.MAX_WBITS, "stored run")
    elif variant != bytes([RUN_PLAIN]):
        raise CodecError(f"not a stored run: an unknown variant {variant!r}")
    try:
        entries = msgpack.unpackb(
            data, raw=False, use_list=False, max_str_len=len(data), max_bin_len=len(data), **ENTRY_BOUNDS
        )
    except (ValueError, TypeError, msgpack.FormatError, msgpack.StackError) as error:
        raise CodecError(f"not a stored run: {error}") from None
    if type(entries) is not tuple:
        raise CodecError("not a stored run: its entries are not a list")
    return entries


def damaged(reason: str) -> bytes:
    """The state of an event of a run that cannot be read: decoding it refuses it, saying `reason`."""
    return COMPACT_MARK + DAMAGED + f"its stored run cannot be read: {reason}".encode()
