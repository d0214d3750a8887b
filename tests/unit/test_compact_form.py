"""The compact stored form gives back the canonical (keyed) bytes of every event byte for byte: each known shape,
sealed or not, small or deflated; a value it does not know, a hash it cannot keep as bytes, or bytes that are not
msgpack stay as they are; corrupted compact bytes are refused with a CodecError and nothing else; the digest of
stored bytes does not depend on their form. A seeded property test draws the fields' values."""

from __future__ import annotations

import hashlib
import zlib
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import UUID

import msgpack
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from evo_ledger.game.codec import (
    COMPACT_MARK,
    DEFLATED,
    HEX_FIELDS,
    MAX_INFLATED,
    PLAIN,
    SEAL_MARK,
    CodecError,
    MsgpackTranscoder,
    canonical,
    compact,
    pack,
    stored_digest,
    unpack,
    unpack_sealed,
)
from evo_ledger.game.stored_shapes import STORED_SHAPES

SEAL = bytes(range(32))
HASH = "5f9b7bafbde1b47a9e062b37f05db0b8cd24dd2882ab5eb5710459199dbd797d"
PREVIOUS = "dee88afffb9da6b9f6a7b781e49bfcd96b2535c3cb06da6e89e255777f0ea4d5"
WHEN = datetime(2026, 11, 29, 19, 13, 56, 843713, tzinfo=UTC)
GAME = UUID("daa4ba29-daf8-4910-8f3d-b5b6999a5d25")

# Values as the ledger's events carry them, by field name; any other field takes one of `OTHER_VALUES`.
PLAUSIBLE: dict[str, Any] = {
    "timestamp": WHEN,
    "hash": HASH,
    "prev_hash": PREVIOUS,
    "class_version": 4,
    "notation": "ann moves 3 from A4 to B5",
    "visible_only_to": "ann",
    "game_id": GAME,
    "players": [{"seat": 1, "name": "ann", "id": "ann-a"}, {"seat": 2, "name": "ben", "id": None}],
    "options": {"variant": "standard", "autosaurs": ("rex",)},
    "entered_at": datetime(2026, 11, 29, 19, 13, 50, tzinfo=timezone(timedelta(hours=2))),
    "sealed": True,
    "signature": "c65769329208d9d0f9d6fe68f87cbc3d1faf6f25c0217aec5e5770e33f76602f",
}
OTHER_VALUES: list[Any] = [
    None,
    17,
    "fixture text 🦕",
    {"a": [1, {"b": None}], "c": (2, "x", (3,))},
    ("imported", 3),
    UUID("132d5c67-827a-462b-aeaf-d107bc9e74f9"),
    datetime(2026, 1, 1, 9, 30, tzinfo=timezone(timedelta(hours=-5))),
    [1, 2.5, -3, True, b"\x00\xff"],
]


def plausible(shape: tuple[str, ...]) -> dict[str, Any]:
    """A value of the shape: its fields in its order, each with a value of a kind events carry."""
    return {name: PLAUSIBLE.get(name, OTHER_VALUES[place % len(OTHER_VALUES)]) for place, name in enumerate(shape)}


def stored(fields: Any, sealed: bool = False) -> bytes:
    """The canonical bytes the mapper stores: the fields packed, then a seal where `sealed`."""
    return pack(fields) + (SEAL_MARK + SEAL if sealed else b"")


def shape_with_hashes() -> tuple[str, ...]:
    return next(shape for shape in STORED_SHAPES if set(shape) >= HEX_FIELDS)


def shape_without_hashes() -> tuple[str, ...]:
    return next(shape for shape in STORED_SHAPES if len(shape) > 2 and not HEX_FIELDS & set(shape))


@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "sealed"])
@pytest.mark.parametrize("shape", STORED_SHAPES, ids=lambda shape: "-".join(shape[1:4]) or "timestamp")
def test_every_shape_is_compacted_and_gives_back_its_canonical_bytes(shape: tuple[str, ...], sealed: bool) -> None:
    keyed = stored(plausible(shape), sealed)
    compacted = compact(keyed)
    assert compacted[:1] == COMPACT_MARK and compacted[1:2] in (PLAIN, DEFLATED)
    assert canonical(compacted) == keyed
    assert unpack_sealed(compacted) == unpack_sealed(keyed)
    assert MsgpackTranscoder().decode(compacted) == plausible(shape)


def test_the_stored_shapes_are_distinct() -> None:
    """A shape is found by its fields: two alike would give one value two numbers."""
    assert len(set(STORED_SHAPES)) == len(STORED_SHAPES)


def test_hashes_are_kept_as_bytes() -> None:
    fields = plausible(shape_with_hashes())
    keyed, compacted = stored(fields), compact(stored(fields))
    assert len(compacted) <= len(keyed) - 2 * 32  # each hash's 64 hex characters kept as 32 bytes


@pytest.mark.parametrize(
    "fields",
    [
        {"a": 1},
        {"timestamp": WHEN, "unknown field": 1},
        dict(reversed(plausible(shape_with_hashes()).items())),  # a shape's fields in another order
        {**plausible(shape_with_hashes()), "added": None},
        {"name": "ann", "timestamp": WHEN},
        {},
        [WHEN, HASH],
        17,
        None,
    ],
    ids=repr,
)
@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "sealed"])
def test_a_value_of_no_known_shape_stays_as_it_is(fields: Any, sealed: bool) -> None:
    keyed = stored(fields, sealed)
    assert compact(keyed) == keyed
    assert canonical(keyed) == keyed


@pytest.mark.parametrize(
    "hash_value",
    [
        HASH.upper(),
        HASH[:63],
        HASH + "0",
        HASH[:62],
        "",
        "g" * 64,
        HASH[:31] + " " + HASH[32:],
        HASH[:62] + "  ",
        " " + HASH[:62] + " ",
        "é" * 64,
        None,
        0,
        bytes.fromhex(HASH),
    ],
    ids=repr,
)
@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "sealed"])
def test_a_hash_that_is_not_64_lowercase_hex_characters_comes_back_exactly(hash_value: Any, sealed: bool) -> None:
    for name in sorted(HEX_FIELDS):
        fields = {**plausible(shape_with_hashes()), name: hash_value}
        keyed = stored(fields, sealed)
        compacted = compact(keyed)
        assert canonical(compacted) == keyed
        back = MsgpackTranscoder().decode(compacted)
        assert back[name] == hash_value and type(back[name]) is type(hash_value)


def test_a_large_value_is_deflated_and_a_small_one_is_not() -> None:
    shape = next(shape for shape in STORED_SHAPES if "kit_document" in shape)
    small = stored({**plausible(shape), "kit_document": {"name": "standin"}}, sealed=True)
    document = {"cards": [{"name": f"card {n}", "text": "a card's long text " * 4} for n in range(200)]}
    large = stored({**plausible(shape), "kit_document": document}, sealed=True)
    assert compact(small)[1:2] == PLAIN and compact(large)[1:2] == DEFLATED
    assert canonical(compact(large)) == large and canonical(compact(small)) == small
    assert len(compact(large)) < len(large) // 4


@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "sealed"])
def test_compact_bytes_are_compacted_no_further(sealed: bool) -> None:
    for shape in STORED_SHAPES:
        compacted = compact(stored(plausible(shape), sealed))
        assert compact(compacted) == compacted


@pytest.mark.parametrize(
    "data",
    [b"", b"not msgpack", b"\x92\x01", b"\xc4\x20" + SEAL, pack({"a": 1}) + b"\x00", pack({"a": 1}) + SEAL_MARK],
    ids=repr,
)
def test_bytes_that_are_not_a_stored_value_stay_as_they_are(data: bytes) -> None:
    assert compact(data) == data
    assert canonical(data) == data


def compacted_of_strings(shape: tuple[str, ...]) -> list[Any]:
    """The packed list a compact form holds for a value of the shape whose every field is a string: the shape's
    number is its one integer."""
    compacted = compact(pack(dict.fromkeys(shape, "x")))
    assert compacted[1:2] == PLAIN
    packed = unpack(compacted[2:])
    assert isinstance(packed, list) and [type(item) for item in packed].count(int) == 1
    return packed


def with_shape_number(packed: list[Any], number: Any) -> list[Any]:
    return [number if type(item) is int else item for item in packed]


def plain(value: Any) -> bytes:
    return COMPACT_MARK + PLAIN + pack(value)


def deflated(packed_bytes: bytes) -> bytes:
    return COMPACT_MARK + DEFLATED + pack(zlib.compress(packed_bytes))


def corrupted() -> list[Any]:
    """Compact bytes that no writer makes, each named by what is wrong with it."""
    shape = shape_without_hashes()
    packed, last = compacted_of_strings(shape), compacted_of_strings(STORED_SHAPES[-1])
    first_string = next(place for place, item in enumerate(packed) if type(item) is str)
    sealed = compact(stored(plausible(shape_with_hashes()), sealed=True))
    large = compact(stored({**plausible(shape), shape[-1]: "long text " * 200}, sealed=True))
    assert large[1:2] == DEFLATED
    beyond_9999 = msgpack.packb([msgpack.Timestamp(2**40), 0])
    cases: dict[str, bytes] = {
        "the mark alone": COMPACT_MARK,
        "no value after the variant": COMPACT_MARK + PLAIN,
        "variant 0": COMPACT_MARK + b"\x00" + pack(packed),
        "variant 3": COMPACT_MARK + b"\x03" + pack(packed),
        "variant 0xc1": COMPACT_MARK + COMPACT_MARK + pack(packed),
        "truncated by one byte": plain(packed)[:-1],
        "truncated sealed": sealed[: len(sealed) // 2],
        "seal cut short": sealed[:-1],
        "deflated, truncated": large[:-40],
        "deflated, cut inside its payload": large[:10],
        "one value too few": plain(packed[:first_string] + packed[first_string + 1 :]),
        "one value too many": plain([*packed[:first_string], "x", *packed[first_string:]]),
        "shape number past the last": plain(with_shape_number(packed, len(STORED_SHAPES))),
        "shape number far past the last": plain(with_shape_number(packed, 2**40)),
        "shape number -1, as many values as the last shape's": plain(with_shape_number(last, -1)),
        "shape number a string": plain(with_shape_number(packed, "0")),
        "shape number true": plain(with_shape_number(packed, True)),
        "deflated, inflating past the most a value may": deflated(b"\x00" * (MAX_INFLATED + 1)),
        "shape number missing": plain([item for item in packed if type(item) is not int]),
        "an empty list": plain([]),
        "a map in place of the list": plain({}),
        "a map with numbered keys": plain(dict(enumerate(packed))),
        "a number in place of the list": plain(7),
        "a string in place of the list": plain("x" * 8),
        "nil in place of the list": plain(None),
        "a byte after the value": plain(packed) + b"\x00",
        "a seal's mark without its 32 bytes": plain(packed) + SEAL_MARK + SEAL[:31],
        "a seal's 33 bytes": plain(packed) + SEAL_MARK + SEAL + b"\x00",
        "two seals": sealed + SEAL_MARK + SEAL,
        "text after a deflated value": large + b"junk",
        "deflated bytes that are not deflated": COMPACT_MARK + DEFLATED + pack(b"not deflated"),
        "deflated, not bytes": COMPACT_MARK + DEFLATED + pack(packed),
        "deflated, not msgpack inside": deflated(b"\xc1\xc1"),
        "deflated, a byte after the value inside": deflated(pack(packed) + b"\x00"),
        "deflated, a time past the year 9999 inside": deflated(beyond_9999),
        "deflated, a map inside": deflated(pack({})),
        "a time past the year 9999": plain(msgpack.unpackb(beyond_9999, timestamp=0)),
    }
    return [pytest.param(data, id=why) for why, data in cases.items()]


@pytest.mark.parametrize("data", corrupted())
def test_corrupted_compact_bytes_are_refused_with_a_codec_error(data: bytes) -> None:
    for read in (unpack_sealed, canonical, MsgpackTranscoder().decode, stored_digest):
        with pytest.raises(CodecError, match="not a stored value"):
            read(data)


def test_the_shape_number_test_bytes_are_read_when_whole() -> None:
    """The bytes the corrupted cases are made of read as a stored value before they are changed."""
    shape = shape_without_hashes()
    assert unpack_sealed(plain(compacted_of_strings(shape))) == (dict.fromkeys(shape, "x"), None)


@pytest.mark.parametrize("sealed", [False, True], ids=["unsealed", "sealed"])
def test_the_digest_of_stored_bytes_is_the_same_in_either_form(sealed: bool) -> None:
    for shape in STORED_SHAPES:
        keyed = stored(plausible(shape), sealed)
        assert stored_digest(compact(keyed)) == stored_digest(keyed) == hashlib.sha256(keyed).hexdigest()


# Values of the kinds a stored event holds: msgpack's own, and UUIDs, tuples and aware datetimes.
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))])
TIMES = st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=ZONES)
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=40)
    | st.uuids()
    | TIMES
)
VALUES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=5,
)
HEX = "0123456789abcdef"
HASHES = (
    st.text(HEX, min_size=64, max_size=64)
    | st.text(HEX.upper(), min_size=64, max_size=64)
    | st.text(HEX, max_size=70)
    | st.text(min_size=64, max_size=64)
    | st.none()
    | st.binary(min_size=32, max_size=32)
)
# Shapes the ledger stores most, and a few with hashes in other places.
DRAWN_SHAPES = sorted(
    {0, len(STORED_SHAPES) - 1, *(n for n, shape in enumerate(STORED_SHAPES) if shape[-1] == "hash")}
    | {n for n, shape in enumerate(STORED_SHAPES) if "kit_document" in shape or "accesses" in shape}
)


@st.composite
def stored_values(draw: st.DrawFn) -> dict[str, Any]:
    shape = STORED_SHAPES[draw(st.sampled_from(DRAWN_SHAPES))]
    return {name: draw(HASHES if name in HEX_FIELDS else VALUES) for name in shape}


def kept_as_bytes_or_text(value: Any) -> bool:
    """Whether the compact form keeps the hash field's value: any but bytes (a hash is kept as bytes only where it
    is 64 lowercase hex digits, so bytes stored there would be read back as text)."""
    return not isinstance(value, bytes)


@seed(69)
@settings(max_examples=100, deadline=None, database=None)
@given(fields=stored_values(), sealed=st.booleans())
def test_drawn_field_values_come_back_byte_for_byte(fields: dict[str, Any], sealed: bool) -> None:
    keyed = stored(fields, sealed)
    compacted = compact(keyed)
    assert canonical(compacted) == keyed
    assert stored_digest(compacted) == stored_digest(keyed)
    assert unpack_sealed(compacted)[1] == unpack_sealed(keyed)[1]
    keepable = all(kept_as_bytes_or_text(value) for name, value in fields.items() if name in HEX_FIELDS)
    assert (compacted[:1] == COMPACT_MARK) == keepable


# The shapes stored so far, by their count and the SHA-256 of their list's repr: a compact row names its shape by
# its place, so a shape, once stored, keeps it. A new shape goes at the end; then its count and digest are added here.
STORED_SO_FAR = {45: "ef157f220ec3a1d23643b61df07721dfa88210bc4f143fc0e3b1a8591ced828f"}


@pytest.mark.parametrize(("count", "expected"), sorted(STORED_SO_FAR.items()))
def test_a_stored_shape_keeps_its_place(count: int, expected: str) -> None:
    kept = hashlib.sha256(repr(STORED_SHAPES[:count]).encode()).hexdigest()
    assert kept == expected, (
        f"the first {count} stored shapes changed: a compact row names its shape by its place, so shapes are only "
        "added at the end of STORED_SHAPES"
    )


def test_a_compact_row_holding_a_time_as_text_is_refused() -> None:
    """The compact form never writes a time as text (the keyed form's earliest versions did): one there decodes to
    the same instant at another offset, with the same canonical bytes, so it is refused rather than read."""
    shape = STORED_SHAPES.index(("timestamp", "private"))
    as_text = msgpack.ExtType(2, b"2026-01-01T12:00:00+05:00")
    data = COMPACT_MARK + PLAIN + msgpack.packb([as_text, True, shape])
    with pytest.raises(CodecError, match="not a stored value"):
        unpack_sealed(data)
