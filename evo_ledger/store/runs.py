"""A run: consecutive events of one aggregate, appended together, kept in one stored row (the packed stored form).

A run's body keeps each event's topic and compact state (`evo_ledger.game.codec.compact`) as it was given, except
that a hash an event repeats from the event before it in the run (the hash of the event before, which that event
holds as its own) is cut out and put back when the run is read: found by its bytes, a 32-byte binary value both
hold, it is stored once. The body is deflated whole where that makes it shorter, so that the field values and
topics that repeat from event to event are stored once. An event is kept in the plain compact variant where it has
a known shape (one given deflated, or keyed, is made so) and as it was given otherwise: what a run gives back has
the canonical bytes of what was given to it (what hashes, seals and checkpoints are taken over), and a plain
compact state comes back byte for byte.

Body: a variant byte (`RUN_PLAIN`, `RUN_DEFLATED`), then a msgpack list of entries, one an event: its topic, its
state's bytes (a compact state without its two leading bytes, any other state whole), whether it is compact, where
the hash it repeats from the event before was cut out of it (or nil), and where the hash the next event repeats is
in it (or nil).
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
    if len(events) == 1 and events[0][1][:2] == COMPACT_HEAD:  # no hash to cut, none to keep for another event
        entries: list[Entry] = [(events[0][0], events[0][1][2:], True, None, None)]
    else:
        entries = entries_of(events)
    packed: bytes = msgpack.packb(entries, use_bin_type=True)
    if len(packed) > MAX_RUN_BYTES or (len(packed) < DEFLATE_FROM and not deflating):
        return bytes([RUN_PLAIN]) + packed
    deflater = deflater_for(len(packed))
    deflated: bytes = deflater.compress(packed) + deflater.flush()
    if len(deflated) < len(packed):
        return bytes([RUN_DEFLATED]) + deflated
    return bytes([RUN_PLAIN]) + packed


def entries_of(events: Sequence[tuple[str, bytes]]) -> list[Entry]:
    """Each event's entry: a compact state without its two leading bytes, the hash of the event before cut out of
    it where the event before holds the same 34 bytes (where that event's own hash is); any other state whole."""
    plain = [plain_compact(state) for _, state in events]
    bodies = [state[2:] if state[:2] == COMPACT_HEAD else None for state in plain]
    cuts: list[int | None] = [None] * len(events)
    owns: list[int | None] = [None] * len(events)
    for place in range(1, len(events)):
        before, body = bodies[place - 1], bodies[place]
        if before is not None and body is not None:
            cuts[place], owns[place - 1] = repeated_hash(before, body, cuts[place - 1])
    entries: list[Entry] = []
    for (topic, _), state, body, cut, own_at in zip(events, plain, bodies, cuts, owns, strict=True):
        if body is None:
            entries.append((topic, state, False, None, None))
        elif cut is None:
            entries.append((topic, body, True, None, own_at))
        else:
            kept_own = None if own_at is None else own_at - HASH_SIZE if own_at > cut else own_at
            entries.append((topic, body[:cut] + body[cut + HASH_SIZE :], True, cut, kept_own))
    return entries


# How many hashes of an event are looked for in the event before it: an event keeps the hash of the event before
# among its first (pays for: bench.stored_size appends, the packed form: found by bytes, no event decoded).
HASHES_LOOKED_AT = 3


def repeated_hash(before: bytes, body: bytes, cut_before: int | None) -> tuple[int | None, int | None]:
    """Where a hash of `body` is, that `before` holds too, and where `before` holds it, clear of the hash cut out of
    `before` (at `cut_before`); (None, None) where there is none. Any hash found so gives the event back byte for
    byte: the run puts back the bytes it cut."""
    place = body.find(HASH_MARK)
    for _ in range(HASHES_LOOKED_AT):
        if place < 0 or place + HASH_SIZE > len(body):
            break
        found = before.find(body[place : place + HASH_SIZE])
        if found >= 0 and (cut_before is None or abs(found - cut_before) >= HASH_SIZE):
            return place, found
        place = body.find(HASH_MARK, place + 1)
    return None, None


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
