"""The msgpack codec keeps what it is given, and canonical bytes do not depend on key order."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta, timezone
from uuid import UUID

import msgpack
import pytest

from evo_ledger.game.codec import SEAL_MARK, CodecError, MsgpackTranscoder, canonical_bytes, digest, unpack_sealed

VALUES = [
    None,
    True,
    False,
    0,
    -1,
    2**40,
    1.5,
    "",
    "ann",
    "🦕 évolution",
    b"\x00\xff",
    [],
    [1, [2, [3]]],
    {},
    {"a": {"b": [1, 2]}},
    (),
    (1, "a", (2,)),
    [(1, 2), (3,)],
    {"t": ("x",)},
    UUID("51c245a6-789e-44e7-bb4b-faecf519bfb2"),
    datetime(2026, 11, 22, 3, 13, 0, 123456, tzinfo=UTC),
    {
        "players": [{"seat": 1, "name": "ann", "id": UUID("22535179-aca0-431d-9614-2c8af692f85a")}],
        "when": datetime(2026, 11, 27, 2, 9, 54, 980247, tzinfo=UTC),
    },
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_every_stored_kind_of_value_comes_back_as_it_was(value: object) -> None:
    transcoder = MsgpackTranscoder()
    back = transcoder.decode(transcoder.encode(value))
    assert back == value and type(back) is type(value)


def test_a_time_in_another_zone_comes_back_as_the_same_instant_in_utc() -> None:
    transcoder = MsgpackTranscoder()
    new_york = datetime(2026, 1, 1, 9, 30, tzinfo=timezone(timedelta(hours=-5)))
    back = transcoder.decode(transcoder.encode(new_york))
    assert back == new_york and back.utcoffset() == timedelta(0) and back.isoformat() == "2026-01-01T14:30:00+00:00"


def test_a_time_stored_as_iso_text_by_an_earlier_version_is_still_read() -> None:
    written_before = msgpack.packb({"when": msgpack.ExtType(2, b"2026-11-22T03:13:00.123456+00:00")})
    assert MsgpackTranscoder().decode(written_before) == {"when": datetime(2026, 11, 22, 3, 13, 0, 123456, tzinfo=UTC)}


def test_tuples_stay_tuples_and_lists_stay_lists() -> None:
    transcoder = MsgpackTranscoder()
    assert transcoder.decode(transcoder.encode({"a": (1, [2, (3,)])})) == {"a": (1, [2, (3,)])}
    assert isinstance(transcoder.decode(transcoder.encode([(1,)]))[0], tuple)


def test_a_naive_datetime_or_an_unknown_type_is_refused_by_name() -> None:
    transcoder = MsgpackTranscoder()
    with pytest.raises(CodecError, match="no time zone"):
        transcoder.encode({"when": datetime(2026, 1, 1)})
    with pytest.raises(CodecError, match="cannot store a set"):
        transcoder.encode({1, 2})


def test_garbage_bytes_are_refused() -> None:
    with pytest.raises(CodecError):
        MsgpackTranscoder().decode(b"\xc1")


def test_canonical_bytes_do_not_depend_on_the_order_of_keys() -> None:
    first, second = {"b": 1, "a": {"y": 2, "x": 3}}, {"a": {"x": 3, "y": 2}, "b": 1}
    assert canonical_bytes(first) == canonical_bytes(second)
    assert digest(first) == digest(second) != digest({"a": {"x": 3, "y": 2}, "b": 2})


def test_a_seal_after_a_stored_value_is_read_apart_and_other_trailing_bytes_are_refused() -> None:
    body = MsgpackTranscoder().encode({"hash": "ab"})
    seal = bytes(range(32))
    assert unpack_sealed(body + SEAL_MARK + seal) == ({"hash": "ab"}, seal)
    assert MsgpackTranscoder().decode(body + SEAL_MARK + seal) == {"hash": "ab"}
    assert unpack_sealed(body) == ({"hash": "ab"}, None)
    for trailer in (b"\x01", SEAL_MARK + seal[:31], b"\xc4\x21" + seal + b"x"):
        with pytest.raises(CodecError, match="not a seal"):
            MsgpackTranscoder().decode(body + trailer)


def test_a_value_refused_half_way_leaves_nothing_behind_for_the_next_one() -> None:
    transcoder = MsgpackTranscoder()
    value = {"a": (1, (2,)), "b": "c"}
    before = transcoder.encode(value)
    with pytest.raises(CodecError):
        transcoder.encode({"first": "packed", "then": object()})
    assert transcoder.encode(value) == before
    assert transcoder.decode(before) == value


def test_threads_packing_at_once_each_get_their_own_value() -> None:
    values = [{"n": n, "t": (n, [n] * (n % 7)), "s": "x" * (n % 300)} for n in range(400)]
    transcoder = MsgpackTranscoder()
    with ThreadPoolExecutor(8) as pool:
        packed = list(pool.map(transcoder.encode, values * 5))
    assert [transcoder.decode(data) for data in packed] == values * 5
