"""Whether a finished game's hidden facts are shown to every reader is an event of the game's own log: the
recorder keeps them hidden as the game starts or later, the chain covers the event, the audit names it, snapshots,
bundles and game files keep it, and a game stored before it existed reads as showing them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.audit import CLEAN, DAMAGED
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import PUBLIC, Seen, game_file_for, reads_hidden, visibility
from evo_ledger.app.transfer import export_bundle, export_notation, import_bundles, import_notation
from evo_ledger.cli.main import main
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL, Game, stored_hash
from evo_ledger.game.codec import pack, unpack
from evo_ledger.game.notation import GameFileError, parse_game
from evo_ledger.settings import Settings
from tests.helpers.shown import handles
from tests.helpers.shown import shown as shown_text
from tests.helpers.stored import FIXTURES, NAMES, game_id_of
from tests.helpers.support import ROOT
from tests.helpers.tampering import Tamperer, rehash_from

HAND_GAME = ROOT / "replays" / "evo1-hand-3p.evo"
# Every card drawn in the hand-worked evo1 game stays in its player's hand to the end: none is played.
ACTIONS = [line.text for line in parse_game(HAND_GAME.read_text()).actions]
HELD = "ann drew loss_penalty"
PLAYERS = ["ann", "ben", "cat"]


def finished(ledger: Ledger, reveal_at_end: bool = True) -> UUID:
    game_id = ledger.commands.create_game(None, "standin-e1-3p", PLAYERS, reveal_at_end=reveal_at_end).game_id
    ledger.commands.record(game_id, ACTIONS)
    return game_id


def settings_of(ledger: Ledger, game_id: UUID) -> list[tuple[int, bool]]:
    return [
        (event.originator_version, event.reveal_at_end)
        for event in ledger.queries.game_events(game_id)
        if isinstance(event, Game.EndRevealSet)
    ]


def test_a_game_that_keeps_its_hidden_facts_says_so_in_its_second_event_and_its_audit(ledger: Ledger) -> None:
    shown, kept = finished(ledger), finished(ledger, reveal_at_end=False)
    assert settings_of(ledger, shown) == [] and settings_of(ledger, kept) == [(2, False)]
    [event] = [e for e in ledger.queries.game_events(kept) if isinstance(e, Game.EndRevealSet)]
    assert (
        type(event).TOPIC == "evo-ledger:Game.EndRevealSet"
        and event.prev_hash == ledger.queries.game(kept, 1).head_hash
    )
    assert ledger.queries.game(kept).version == ledger.queries.game(shown).version + 1
    assert reads_hidden(PUBLIC, ledger.queries.game(shown)) and not reads_hidden(PUBLIC, ledger.queries.game(kept))
    assert reads_hidden(Seen(sees_all=True), ledger.queries.game(kept))
    game = ledger.queries.game(kept)
    ben = dict(zip(handles(ledger, game.player_names), game.player_names, strict=True))["ben"]  # his seat's label
    hidden = visibility(Seen(seat=ben), ledger, game).hidden
    owners = {owner for owner, _ in hidden.values()}
    assert set(handles(ledger, sorted(owners))) == {"ann", "cat"} and ben not in owners  # ben sees his own cards
    report = ledger.queries.audit(kept)
    assert report.verdict == CLEAN and report.data["reveal_at_end_set"] == [{"event": 2, "reveal_at_end": False}]
    assert "hidden facts at the end: event 2 keeps them from readers who could not see them" in report.text()
    assert report.canonical == ledger.queries.audit(kept).canonical
    assert "reveal_at_end_set" not in ledger.queries.audit(shown).data  # a report without the event is as it was


def test_the_recorder_changes_it_after_the_end_and_the_latest_stands(ledger: Ledger) -> None:
    game_id = finished(ledger, reveal_at_end=False)
    at_end = ledger.queries.receipt(game_id).version
    assert ledger.commands.set_reveal_at_end(game_id, True).version == at_end + 1
    assert reads_hidden(PUBLIC, ledger.queries.game(game_id))
    assert ledger.commands.set_reveal_at_end(game_id, True).version == at_end + 1  # what stands appends nothing
    assert ledger.commands.set_reveal_at_end(game_id, False).version == at_end + 2
    assert not reads_hidden(PUBLIC, ledger.queries.game(game_id))  # hidden again from then on
    report = ledger.queries.audit(game_id)
    assert report.verdict == CLEAN
    assert report.data["reveal_at_end_set"] == [
        {"event": 2, "reveal_at_end": False},
        {"event": at_end + 1, "reveal_at_end": True},
        {"event": at_end + 2, "reveal_at_end": False},
    ]


def test_an_edited_setting_fails_the_hash_check_and_made_again_the_chain_check(ledger: Ledger) -> None:
    game_id = finished(ledger, reveal_at_end=False)
    tamperer = Tamperer(ledger, game_id)
    topic, state = tamperer.stored(2)
    fields = ledger.store.mapper.transcoder.decode(state)
    tamperer.write(2, topic, ledger.store.mapper.transcoder.encode({**fields, "reveal_at_end": True}))
    report = ledger.queries.audit(game_id)
    assert report.verdict == DAMAGED
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("hashes", 2)
    # Its own hash made again: the next event no longer carries it.
    edited = {**fields, "reveal_at_end": True}
    del edited["hash"]
    edited["hash"] = stored_hash(topic, game_id, 2, edited)
    tamperer.write(2, topic, ledger.store.mapper.transcoder.encode(edited))
    report = ledger.queries.audit(game_id)
    assert report.verdict == DAMAGED and report.check("hashes")["verdict"] == "pass"
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("chain", 3)


def test_a_setting_made_again_with_every_later_hash_is_shown_by_the_receipt_and_the_snapshots(ledger: Ledger) -> None:
    game_id = finished(ledger, reveal_at_end=False)
    head = ledger.queries.receipt(game_id).head_hash
    rehash_from(ledger, Tamperer(ledger, game_id), 2, {"reveal_at_end": True})
    report = ledger.queries.audit(game_id, expect_head=head)
    assert report.verdict == DAMAGED
    assert report.check("hashes")["verdict"] == report.check("chain")["verdict"] == "pass"
    assert report.check("head")["verdict"] == report.check("snapshots")["verdict"] == "fail"
    assert report.data["reveal_at_end_set"] == [{"event": 2, "reveal_at_end": True}]  # what the log now says


def test_snapshots_keep_the_setting_and_one_edited_is_named(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        game_id = finished(ledger, reveal_at_end=False)
        assert ledger.queries.audit(game_id).check("snapshots")["verdict"] == "pass"
        snapshots = Tamperer(ledger, game_id)
        snapshots.table = ledger.store.snapshots.recorder.events_table_name  # type: ignore[union-attr]
        topic, state = snapshots.stored(SNAPSHOT_INTERVAL)
        fields = unpack(state)
        assert fields["state"]["reveal_at_end"] is False
        restored = Game.from_snapshot(game_id, SNAPSHOT_INTERVAL, fields["state"])
        assert restored.reveal_at_end is False
        fields["state"]["reveal_at_end"] = True
        snapshots.write(SNAPSHOT_INTERVAL, topic, pack(fields))
    with Ledger(Settings(database)) as ledger:
        report = ledger.queries.audit(game_id)
        assert report.verdict == DAMAGED and report.check("snapshots")["event"] == SNAPSHOT_INTERVAL
        # A snapshot taken before the setting existed has none: it reads as showing them.
        del fields["state"]["reveal_at_end"]
        assert Game.from_snapshot(game_id, SNAPSHOT_INTERVAL, fields["state"]).reveal_at_end is True


@pytest.fixture
def stored_ledger(tmp_path: Path) -> Iterator[Ledger]:
    copy = tmp_path / "games.sqlite"
    shutil.copyfile(FIXTURES / "games.sqlite", copy)
    with Ledger(Settings(str(copy))) as ledger:
        yield ledger


def test_games_stored_before_the_setting_existed_show_their_hidden_facts_once_over(
    stored_ledger: Ledger, database: str
) -> None:
    for name in NAMES:
        game = stored_ledger.queries.game(game_id_of(name))
        assert game.reveal_at_end is True and settings_of(stored_ledger, game.id) == []
        assert "reveal_at_end_set" not in stored_ledger.queries.audit(game.id).data
    with Ledger(Settings(database)) as ledger:
        [receipt] = import_bundles(ledger, [(FIXTURES / "evo1-v1-hand.msgpack").read_bytes()])
        game = ledger.queries.game(receipt.game_id)
        assert game.rules.outcome(game.state) is not None and game.reveal_at_end is True
        seen = visibility(PUBLIC, ledger, game)
        assert seen.shown is None and not seen.hidden  # every card drawn, none played, shown to the public
        assert "ann drew heat_stroke" in game_file_for(PUBLIC, ledger, game).content


def test_a_bundle_carries_the_setting(ledger: Ledger, tmp_path: Path) -> None:
    game_id = finished(ledger, reveal_at_end=False)
    ledger.commands.set_reveal_at_end(game_id, True)
    ledger.commands.set_reveal_at_end(game_id, False)
    bundle = export_bundle(ledger, game_id)
    with Ledger(Settings(str(tmp_path / "other.sqlite"))) as other:
        import_bundles(other, [bundle])
        assert settings_of(other, game_id) == settings_of(ledger, game_id)
        assert other.queries.game(game_id).reveal_at_end is False
        assert export_bundle(other, game_id) == bundle
        assert other.queries.audit(game_id).canonical == ledger.queries.audit(game_id).canonical


def events_of(ledger: Ledger, game_id: UUID) -> list[tuple[Any, ...]]:
    """The game's events as a game file gives them again: their kinds and what they say (the seats' stable ids
    aside: a game started here gives each a random one, a game file's import one derived from its seat's name)."""
    ignored = {"originator_id", "timestamp", "hash", "prev_hash", "action_salt", "action_commitment"}
    return [
        (type(event).__name__, sorted((k, repr(without_ids(k, v))) for k, v in vars(event).items() if k not in ignored))
        for event in ledger.queries.game_events(game_id)
    ]


def without_ids(key: str, value: Any) -> Any:
    if key != "players":
        return value
    return [{field: held for field, held in seat.items() if field != "id"} for seat in value]


def test_a_game_file_keeps_the_setting_in_place_and_imports_to_the_same_events(ledger: Ledger) -> None:
    game_id = finished(ledger, reveal_at_end=False)
    ledger.commands.annotate(game_id, 40, "a note after the setting keeps its event")
    ledger.commands.set_reveal_at_end(game_id, True)
    text = shown_text(ledger, export_notation(ledger, game_id))  # as its reader is given it: handles, notes opened
    lines = text.splitlines()
    [players] = [line for line in lines if line.startswith("players ")]
    assert players == "players ann ben cat"
    assert lines[lines.index(players) + 1] == "hidden kept"  # the game's second event
    assert lines[-2:] == ["hidden shown", lines[-1]] and lines[-1].startswith("result ")
    copy = import_notation(ledger, text)
    stored = shown_text(ledger, repr(events_of(ledger, game_id)))
    assert copy.game_id != game_id and shown_text(ledger, repr(events_of(ledger, copy.game_id))) == stored
    assert export_notation(ledger, copy.game_id).split("\n", 2)[2] == text.split("\n", 2)[2]  # but its id
    assert import_notation(ledger, text).already_stored  # the same file is the same game
    without = "\n".join(line for line in lines if not line.startswith("hidden")) + "\n"
    assert import_notation(ledger, without).game_id != copy.game_id  # the setting is part of the game


@pytest.mark.parametrize("line", ["hidden", "hidden maybe", "hidden kept now"])
def test_a_hidden_line_says_kept_or_shown(line: str) -> None:
    with pytest.raises(GameFileError, match="expected 'hidden kept'"):
        parse_game(f"ruleset evo1 2\nkit standin-e1-3p\nplayers ann ben cat\n{line}\n")


def test_no_player_is_named_hidden() -> None:
    with pytest.raises(GameFileError, match="'hidden' cannot be a player's name"):
        parse_game("ruleset evo1 2\nkit standin-e1-3p\nplayers ann hidden cat\n")


def test_the_command_line_keeps_them_hidden_from_the_start_or_later(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "games.sqlite")
    kept = ["new", "--kit", "standin-e1-3p", "--players", *PLAYERS, "--keep-hidden", "--database", database]
    assert main(kept) == 0
    assert main(["record", "last", *ACTIONS, "--database", database]) == 0
    capsys.readouterr()

    def log_as(reader: str) -> str:
        assert main(["log", "last", "--as", reader, "--database", database]) == 0
        return capsys.readouterr().out

    assert "its hidden facts stay hidden from readers" in log_as("ann")
    assert HELD in log_as("ann") and HELD not in log_as("public") + log_as("ben")
    assert main(["hidden", "last", "shown", "--database", database]) == 0
    assert "its hidden facts are shown to every reader" in capsys.readouterr().out
    assert HELD in log_as("public")
    assert main(["hidden", "last", "shown", "--database", database]) == 0
    assert "already: nothing was stored" in capsys.readouterr().out
    assert main(["hidden", "last", "kept", "--database", database]) == 0
    assert HELD not in log_as("public")
    assert main(["audit", "last", "--database", database]) == 0
    assert capsys.readouterr().out.count("hidden facts at the end: event") == 3
    with pytest.raises(SystemExit) as refused:
        main(["hidden", "last", "maybe", "--database", database])
    assert refused.value.code == 2
