"""A run (`evo_ledger.store.runs`) gives back the canonical bytes and topic of every event given to it, whatever its
length and each event's stored form, and a plain compact state byte for byte, wherever its hashes are (a seeded
fuzz); the hash of the event before is stored once; bytes that are not a run are refused with CodecError, never
another error (a seeded fuzz), and before they are unpacked into many objects; a run larger than a deflated run may
inflate to is kept plain."""

from __future__ import annotations

import random
import zlib
from typing import Any

import msgpack
import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.game.codec import COMPACT_MARK, CodecError, canonical, compact, unpack_sealed
from evo_ledger.settings import KEYED, Settings
from evo_ledger.store.runs import (
    HASH_MARK,
    MAX_RUN_BYTES,
    RUN_DEFLATED,
    damaged,
    pack_run,
    run_entries,
    unpack_run,
)

Events = list[tuple[str, bytes]]
SEED = 69


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Events]:
    """A self-played game of each ruleset, each event as the keyed form stores it (topic, canonical bytes)."""
    database = tmp_path_factory.mktemp("runs") / "keyed.sqlite"
    with Ledger(Settings(str(database), stored_form=KEYED)) as ledger:
        made = {
            ruleset: ledger.commands.generate_game(players, seed=3, ruleset=ruleset).game_id
            for ruleset, players in (("evo2", 3), ("evo1", 4), ("traits", 2))
        }
        return {
            ruleset: [(event.topic, event.state) for event in ledger.store.recorder.select_events(game)]
            for ruleset, game in made.items()
        }


def in_runs(events: Events, length: int) -> list[bytes]:
    return [pack_run(events[start : start + length]) for start in range(0, len(events), length)]


@pytest.mark.parametrize("length", [1, 2, 3, 17, 100])
def test_every_event_comes_back_with_its_topic_and_canonical_bytes(games: dict[str, Events], length: int) -> None:
    for events in games.values():
        back = [event for body in in_runs(events, length) for event in unpack_run(body)]
        assert [topic for topic, _ in back] == [topic for topic, _ in events]
        assert [canonical(state) for _, state in back] == [canonical(state) for _, state in events]
        assert all(state[:1] == COMPACT_MARK for _, state in back)


def test_a_plain_compact_state_comes_back_byte_for_byte(games: dict[str, Events]) -> None:
    plain = [(topic, compact(state, deflating=False)) for topic, state in games["evo2"][:100]]
    assert unpack_run(pack_run(plain)) == plain


def test_a_deflated_compact_state_comes_back_plain_with_its_canonical_bytes(games: dict[str, Events]) -> None:
    first = games["evo2"][0]  # the game's setup: long enough to be deflated on its own
    deflated = compact(first[1])
    assert deflated[1:2] == b"\x02"
    [(topic, state)] = unpack_run(pack_run([(first[0], deflated)]))
    assert (topic, canonical(state)) == first and state[1:2] == b"\x01"


def test_bytes_that_are_not_a_stored_value_are_kept_as_given() -> None:
    events = [("a topic", b"state1"), ("another", b""), ("a third", bytes(range(256)))]
    assert unpack_run(pack_run(events)) == events


def test_the_hash_of_the_event_before_is_stored_once(games: dict[str, Events]) -> None:
    """A run of a hundred events takes less than half the bytes of their compact states, and deflating alone would
    keep every hash twice: each of the 32 bytes of a predecessor's hash is not in the run's body."""
    events = games["evo2"][1:101]
    compact_bytes = sum(len(compact(state)) for _, state in events)
    body = pack_run(events)
    assert len(body) < compact_bytes / 2
    inflated = zlib.decompress(body[1:], -15) if body[0] == RUN_DEFLATED else body[1:]
    hashes = [unpack_sealed(state)[0]["hash"] for _, state in events]
    assert sum(inflated.count(bytes.fromhex(own)) for own in hashes) == len(hashes)


def test_a_hash_of_the_event_before_that_is_not_the_previous_events_is_kept(games: dict[str, Events]) -> None:
    """Two events of a run whose chain is broken (as a forger's would be) come back as they were given."""
    events = games["evo2"][1:3] + games["evo2"][5:6]
    back = unpack_run(pack_run(events))
    assert [canonical(state) for _, state in back] == [canonical(state) for _, state in events]


def planted_states(rng: random.Random) -> Events:
    """Compact-marked states of random bytes with hashes planted as a run looks for them: a hash the state before
    holds too, held there once, twice, or right beside that state's own cut; marks inside other bytes."""
    shared = [HASH_MARK + rng.randbytes(32) for _ in range(3)]
    events: Events = []
    for _ in range(rng.randint(2, 8)):
        parts = [rng.randbytes(rng.randint(0, 40)) for _ in range(rng.randint(1, 4))]
        for _ in range(rng.randint(0, 4)):
            parts.insert(rng.randrange(len(parts) + 1), rng.choice([*shared, HASH_MARK, HASH_MARK[:1]]))
        events.append(("a topic", COMPACT_MARK + b"\x01" + b"".join(parts)))
    return events


def test_a_run_gives_back_every_state_byte_for_byte_wherever_its_hashes_are() -> None:
    """Seeded: 2,000 runs whose states repeat 34-byte hashes in every arrangement come back as they were given,
    and the run cuts some of them out."""
    rng = random.Random(SEED)
    cut = 0
    for _ in range(2000):
        events = planted_states(rng)
        body = pack_run(events)
        assert unpack_run(body) == events
        cut += any(entry[3] is not None for entry in run_entries(body))
    assert cut > 100


def mutations(body: bytes, rng: random.Random) -> bytes:
    """The body with bytes flipped, cut off, or added."""
    data = bytearray(body)
    kind = rng.randrange(3)
    if kind == 0:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return bytes(data)
    if kind == 1:
        return bytes(data[: rng.randrange(len(data))])
    return bytes(data) + rng.randbytes(rng.randint(1, 16))


def test_bytes_that_are_not_a_run_are_refused_with_a_codec_error_only(games: dict[str, Events]) -> None:
    """Seeded: 2,000 mutations of runs of every length either read (a flipped byte in a stored value) or are
    refused with CodecError."""
    rng = random.Random(SEED)
    bodies = [body for length in (1, 3, 100) for body in in_runs(games["traits"][:200], length)]
    refused = 0
    for _ in range(2000):
        try:
            unpack_run(mutations(rng.choice(bodies), rng))
        except CodecError:
            refused += 1
    assert refused > 500


@pytest.mark.parametrize(
    "body",
    [b"", b"\x07", b"\x01\xc1", b"\x01" + msgpack.packb([["topic", b"x", True]]), b"\x01" + msgpack.packb({"a": 1})],
)
def test_a_body_of_no_known_shape_is_refused(body: bytes) -> None:
    with pytest.raises(CodecError, match="not a stored run"):
        unpack_run(body)


def test_a_run_whose_hash_cannot_be_put_back_is_refused() -> None:
    entries = [["a topic", b"\x90", True, 0, None]]  # a cut, with no event before it to take the hash from
    with pytest.raises(CodecError, match="cannot be put back"):
        unpack_run(b"\x01" + msgpack.packb(entries))


def test_a_run_that_inflates_beyond_its_bound_is_refused_before_it_is_read_whole() -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = compressor.compress(bytes(MAX_RUN_BYTES + 1)) + compressor.flush()
    with pytest.raises(CodecError, match="inflates to more than"):
        unpack_run(bytes([RUN_DEFLATED]) + bomb)


def test_a_run_larger_than_a_deflated_run_may_inflate_to_is_kept_plain_and_read_back() -> None:
    events = [("a topic", bytes(MAX_RUN_BYTES))]
    body = pack_run(events, deflating=True)
    assert body[0] != RUN_DEFLATED and unpack_run(body) == events


def test_a_tiny_body_of_many_nested_values_is_refused_before_it_is_unpacked() -> None:
    """A few kilobytes deflated that would unpack into millions of maps or entries."""
    nested: list[list[Any]] = [[{}] * 1_000_000, [["t", b"", True, None, None]] * 1_000_000]
    for values in nested:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        bomb = compressor.compress(msgpack.packb(values)) + compressor.flush()
        assert len(bomb) < 20_000
        with pytest.raises(CodecError, match="not a stored run"):
            unpack_run(bytes([RUN_DEFLATED]) + bomb)


def test_an_event_of_a_damaged_run_is_refused_by_decoding_saying_why() -> None:
    with pytest.raises(CodecError, match="its stored run cannot be read: the reason"):
        unpack_sealed(damaged("the reason"))
