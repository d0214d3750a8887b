"""An answer about a game is made from the game as it was read when its reader's sight of it was taken: what is
stored after (a hidden action another request appends meanwhile) is read into no part of it, and the game read
stays as it was when the game is read again meanwhile. Each test reads the game as a request does, appends a hidden
draw as another request would, reads the game again as a third would, and asks the readers with the game read
first: nothing of the draw is in what the public is given, as if it had asked a moment earlier."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import msgpack
import pytest

from evo_ledger.app.disputes import NotExplainable
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import PUBLIC, audit_for, branch_for, bundle_for, explanation_for, game_file_for
from evo_ledger.game.aggregate import Game
from evo_ledger.settings import Settings
from tests.helpers.api import HELD_CARD, append, client_for, new_game
from tests.helpers.shown import shown
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.tampering import KEY

DRAW = f"cat drew {HELD_CARD}"
# A branch that drops the first bid plays every later action again.
FIRST_BID = "ann bid 2 eggs"


@dataclass(frozen=True)
class ReadBefore:
    """A game read before a hidden draw was appended, its version when it was read, and the ledger it was read
    from."""

    ledger: Ledger
    game: Game
    version: int


@pytest.fixture(params=[True, False], ids=["writing process", "writer in the server"])
def read_before(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ReadBefore]:
    """The auction recorded; the game read; the draw appended by the server's writing process (the server's cached
    game then brought up to date from the store when the game is read) or by its writer in the server's own process
    (the cached game then replaced by the one stored); the game read again, as another request reads it."""
    with client_for(str(tmp_path / "games.sqlite"), writer_process=request.param) as client:
        game_id, recorder = new_game(client)
        assert append(client, game_id, recorder, *ROUND_ONE_AUCTION).status_code == 200
        ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
        game = ledger.queries.game(UUID(game_id))
        version = game.version
        assert append(client, game_id, recorder, DRAW).status_code == 200
        assert ledger.queries.game(game.id).version == version + 1
        yield ReadBefore(ledger, game, version)


def test_a_game_read_stays_as_it_was_when_another_read_brings_the_game_up_to_date(read_before: ReadBefore) -> None:
    game = read_before.game
    assert game.version == read_before.version
    ledger = read_before.ledger
    assert [shown(ledger, notation) for _, notation, _ in game.history] == list(ROUND_ONE_AUCTION)
    assert shown(ledger, ledger.queries.game(game.id).history[-1][1]) == DRAW


def test_the_exports_hold_the_events_of_the_game_read(read_before: ReadBefore) -> None:
    ledger, game = read_before.ledger, read_before.game
    bundle = msgpack.unpackb(bundle_for(PUBLIC, ledger, game).content)
    assert [version for _, version, _ in bundle["events"]] == list(range(1, game.version + 1))
    transcoder = ledger.store.mapper.transcoder
    assert all("drew" not in str(transcoder.decode(state).get("notation")) for _, _, state in bundle["events"])
    assert HELD_CARD not in game_file_for(PUBLIC, ledger, game).content


def test_an_audit_reads_the_log_as_the_game_read_stood(read_before: ReadBefore) -> None:
    ledger, game = read_before.ledger, read_before.game
    report = audit_for(PUBLIC, ledger, game, None, None).data
    assert report["events_audited"] == game.version and report["head"]["version"] == game.version
    assert report["verdict"] == "clean" and HELD_CARD not in json.dumps(report)


def test_an_explanation_and_a_branch_read_no_event_after_the_game_read(read_before: ReadBefore) -> None:
    ledger, game = read_before.ledger, read_before.game
    with pytest.raises(NotExplainable, match=f"the game has events 1 to {game.version}, not {game.version + 1}"):
        explanation_for(PUBLIC, ledger, game, game.version + 1)
    first_bid = next(version for version, notation, _ in game.history if shown(ledger, notation) == FIRST_BID)
    branch = branch_for(PUBLIC, ledger, game, first_bid, None).data
    later = len(ROUND_ONE_AUCTION) - 1 - ROUND_ONE_AUCTION.index(FIRST_BID)
    assert branch["branch"]["actions_replayed"] <= later and "drew" not in json.dumps(branch)
    with pytest.raises(NotExplainable, match=f"the game has events 1 to {game.version}"):
        branch_for(PUBLIC, ledger, game, game.version + 2, "cat pass")


def test_an_audit_with_the_key_of_a_game_read_before_a_checkpoint_signed_later_events_is_clean(
    tmp_path: Path,
) -> None:
    """The checkpoints are checked as far as the game read: an event signed after it is not taken as cut off."""
    with Ledger(Settings(str(tmp_path / "games.sqlite"), seal_key=KEY)) as ledger:
        game_id = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        ledger.commands.record(game_id, list(ROUND_ONE_AUCTION))
        game = ledger.queries.game(game_id)
        ledger.commands.record(game_id, DRAW)
        ledger.commands.take_checkpoint()
        report = audit_for(PUBLIC, ledger, game, None, None).data
        assert report["verdict"] == "clean", report
        assert report["events_audited"] == game.version
