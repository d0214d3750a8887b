"""The audit on each database: a log damaged in the database itself is found at the damaged event, an untouched one
audits clean, and the report is the same bytes everywhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest

from evo_ledger.app.audit import CLEAN, DAMAGED
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.selfplay import PLAYER_NAMES
from evo_ledger.app.transfer import BundleError, export_bundle, import_bundles, import_notation
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL, Game, seed_commitment
from evo_ledger.game.codec import canonical, compact, pack, unpack, unpack_sealed
from evo_ledger.game.notation import parse_game
from evo_ledger.game.seal import unsealed_bytes
from evo_ledger.rules.evo2.selfplay import CHANCE_GENERATOR, Evo2SelfPlay
from evo_ledger.rules.kits import load_kit_document
from evo_ledger.settings import Settings
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database
from tests.helpers.shown import shown_value
from tests.helpers.support import ROOT, RULES
from tests.helpers.tampering import GAME_TEXT, KEY, Tamperer, recorded_with_a_note, rehash_from

REPLAYS = sorted((ROOT / "replays").glob("*.evo"))


@pytest.fixture
def recorded(ledger: Ledger) -> Iterator[Receipt]:
    yield import_notation(ledger, GAME_TEXT)


def first_roll(ledger: Ledger, game_id: UUID) -> int:
    rolls = [e.originator_version for e in ledger.queries.game_events(game_id) if type(e).__name__ == "DieRolled"]
    first: int = rolls[0]
    return first


def test_an_untouched_game_audits_clean_with_its_receipt(ledger: Ledger, recorded: Receipt) -> None:
    report = ledger.queries.audit(recorded.game_id, expect_head=recorded.head_hash)
    assert report.verdict == CLEAN and report.data["first_divergence"] is None
    assert {c["check"]: c["verdict"] for c in report.data["checks"]} == {
        "sequence": "pass",
        "hashes": "pass",
        "chain": "pass",
        "seals": "not run",
        "checkpoints": "not run",
        "setup": "pass",
        "rules": "pass",
        "snapshots": "pass",
        "chance": "not run",
        "head": "pass",
    }
    assert report.data["head"] == {"version": recorded.version, "hash": recorded.head_hash}


def test_an_event_edited_in_the_database_is_named(ledger: Ledger, recorded: Receipt) -> None:
    version = first_roll(ledger, recorded.game_id)
    tamperer = Tamperer(ledger, recorded.game_id)
    topic, state = tamperer.stored(version)
    fields = ledger.store.mapper.transcoder.decode(state)
    fields["notation"] = "roll x" if fields["notation"] != "roll x" else "roll horn"
    tamperer.write(version, topic, ledger.store.mapper.transcoder.encode(fields))
    report = ledger.queries.audit(recorded.game_id)
    assert report.verdict == DAMAGED
    assert report.data["first_divergence"]["check"] == "hashes"
    assert report.data["first_divergence"]["event"] == version
    assert report.check("chain")["verdict"] == "pass"


def test_a_dropped_event_is_named(ledger: Ledger, recorded: Receipt) -> None:
    Tamperer(ledger, recorded.game_id).delete("=", 100)
    report = ledger.queries.audit(recorded.game_id)
    assert report.data["first_divergence"]["check"] == "sequence"
    assert report.data["first_divergence"]["event"] == 100
    assert "event 100 is missing" in report.data["first_divergence"]["detail"]


def test_two_events_swapped_are_named_at_the_first(ledger: Ledger, recorded: Receipt) -> None:
    tamperer = Tamperer(ledger, recorded.game_id)
    fifty, fifty_one = tamperer.stored(50), tamperer.stored(51)
    tamperer.write(50, *fifty_one)
    tamperer.write(51, *fifty)
    report = ledger.queries.audit(recorded.game_id)
    assert report.verdict == DAMAGED
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("hashes", 50)


def test_events_cut_off_the_end_are_found_with_the_receipt(ledger: Ledger, recorded: Receipt) -> None:
    actions = [e.originator_version for e in ledger.queries.game_events(recorded.game_id) if hasattr(e, "notation")]
    last_kept = actions[-2] - 1  # the last two actions and what they caused: the log still reads as a whole
    Tamperer(ledger, recorded.game_id).delete(">", last_kept)
    assert ledger.queries.audit(recorded.game_id).verdict == CLEAN  # without the receipt, nothing shows the cut
    report = ledger.queries.audit(recorded.game_id, expect_head=recorded.head_hash)
    assert report.verdict == DAMAGED
    divergence = report.data["first_divergence"]
    assert (divergence["check"], divergence["event"]) == ("head", last_kept + 1)
    assert f"the log ends at event {last_kept}" in divergence["detail"]


def test_a_consequence_changed_and_hashed_again_is_found_by_the_rules(ledger: Ledger, recorded: Receipt) -> None:
    """Without a key to seal them, hashes can be made again; the rules still derive what the log should say."""
    events = ledger.queries.game_events(recorded.game_id)
    settled = next(e for e in events if type(e).__name__ == "AuctionSettled")
    tamperer = Tamperer(ledger, recorded.game_id)
    rehash_from(ledger, tamperer, settled.originator_version, {"data": {**settled.data, "winner": "nobody"}})
    report = ledger.queries.audit(recorded.game_id)
    assert report.check("hashes")["verdict"] == "pass" and report.check("chain")["verdict"] == "pass"
    divergence = report.data["first_divergence"]
    assert (divergence["check"], divergence["event"]) == ("rules", settled.originator_version)


@pytest.mark.parametrize("path", REPLAYS, ids=[p.stem for p in REPLAYS])
@ON_POSTGRES
def test_every_golden_game_audits_clean_with_the_same_report_on_every_database_and_run(
    path: Path, tmp_path: Path
) -> None:
    reports = []
    with Ledger(Settings(str(tmp_path / "a.sqlite"))) as first:
        receipt = import_notation(first, path.read_text())
        bundle = export_bundle(first, receipt.game_id)
    with fresh_postgres_database() as url:
        for setting in (str(tmp_path / "a.sqlite"), url):
            with Ledger(Settings(setting)) as ledger:
                if setting == url:
                    import_bundles(ledger, [bundle])
                for _ in range(2):
                    reports.append(ledger.queries.audit(receipt.game_id, expect_head=receipt.head_hash))
    assert all(report.verdict == CLEAN for report in reports)
    assert len({report.canonical for report in reports}) == 1
    assert reports[0].data["game"] == str(receipt.game_id)


def test_an_undone_die_roll_is_reported_as_a_re_roll(ledger: Ledger) -> None:
    actions = [line.text for line in parse_game(GAME_TEXT).actions]
    first_roll_at = next(i for i, text in enumerate(actions) if text.startswith("roll "))
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, actions[: first_roll_at + 1])
    undone = ledger.queries.receipt(game).version
    while type(ledger.queries.game_events(game, after=undone - 1)[0]).__name__ != "DieRolled":
        undone -= 1
    ledger.commands.undo(game, 1, "the die fell off the table")
    ledger.commands.record(game, actions[first_roll_at])
    report = ledger.queries.audit(game)
    assert report.verdict == CLEAN
    [roll] = report.data["undone_rolls"]
    undo_event = next(e for e in ledger.queries.game_events(game) if type(e).__name__ == "ActionsUndone")
    assert shown_value(ledger, roll) == {
        "event": undone,
        "roll": actions[first_roll_at],
        "undone_by": undo_event.originator_version,
        "reason": "the die fell off the table",
    }
    assert "undone roll: event" in report.text()


@pytest.fixture
def sealed_ledger(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as app:
        yield app


def test_a_sealed_game_audits_clean_and_with_another_key_fails_at_its_first_event(
    sealed_ledger: Ledger, database: str
) -> None:
    receipt, _ = recorded_with_a_note(sealed_ledger)
    report = sealed_ledger.queries.audit(receipt.game_id, expect_head=receipt.head_hash)
    assert report.verdict == CLEAN and report.check("seals") == {**report.check("seals"), "verdict": "pass"}
    with Ledger(Settings(database, seal_key="a guess")) as other:
        wrong = other.queries.audit(receipt.game_id)
    assert (wrong.data["first_divergence"]["check"], wrong.data["first_divergence"]["event"]) == ("seals", 1)


def test_an_edit_hashed_again_is_found_only_with_the_key(sealed_ledger: Ledger, database: str) -> None:
    receipt, note = recorded_with_a_note(sealed_ledger)
    tamperer = Tamperer(sealed_ledger, receipt.game_id)
    rehash_from(sealed_ledger, tamperer, note, {"text": "nothing happened"})
    with Ledger(Settings(database)) as keyless:
        assert keyless.queries.audit(receipt.game_id).verdict == CLEAN  # hashes, chain and rules all hold
    report = sealed_ledger.queries.audit(receipt.game_id)
    assert report.verdict == DAMAGED
    divergence = report.data["first_divergence"]
    assert (divergence["check"], divergence["event"]) == ("seals", note)
    assert f"event {note}'s seal does not match it" in divergence["detail"]


def test_a_game_stripped_of_every_seal_is_damaged_for_an_audit_with_the_key(sealed_ledger: Ledger) -> None:
    """The first event says the game was stored by a server with a seal key, under the chain: a forger who takes
    every seal off (and edits an annotation, hashing again) leaves a game that says it should carry them."""
    receipt, note = recorded_with_a_note(sealed_ledger)
    tamperer = Tamperer(sealed_ledger, receipt.game_id)
    rehash_from(sealed_ledger, tamperer, note, {"text": "nothing happened"})
    for version in range(1, receipt.version + 1):
        topic, state = tamperer.stored(version)
        tamperer.write(version, topic, unsealed_bytes(state))
    report = sealed_ledger.queries.audit(receipt.game_id)
    assert report.verdict == DAMAGED
    assert report.check("seals")["event"] == 1
    assert "the game says it was stored with a seal key" in report.check("seals")["detail"]


def test_a_seal_taken_off_an_event_is_named(sealed_ledger: Ledger) -> None:
    receipt, note = recorded_with_a_note(sealed_ledger)
    tamperer = Tamperer(sealed_ledger, receipt.game_id)
    topic, state = tamperer.stored(note)
    tamperer.write(note, topic, unsealed_bytes(state))
    report = sealed_ledger.queries.audit(receipt.game_id)
    assert report.check("seals")["event"] == note and report.verdict == DAMAGED
    assert (
        f"event {note} carries no seal: the game says it was stored with a seal key" == report.check("seals")["detail"]
    )


def test_events_stored_before_the_key_was_set_are_left_unsealed(database: str) -> None:
    actions = [line.text for line in parse_game(GAME_TEXT).actions]
    with Ledger(Settings(database)) as keyless:
        game = keyless.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        before = keyless.commands.record(game, actions[:10]).version
        assert keyless.queries.audit(game).check("seals")["detail"] == "no seal key was given"
    with Ledger(Settings(database, seal_key=KEY)) as sealed:
        assert sealed.queries.audit(game).check("seals")["verdict"] == "not run"
        sealed.commands.record(game, actions[10:20])
        report = sealed.queries.audit(game)
    assert report.verdict == CLEAN
    assert report.check("seals")["detail"] == f"events 1 to {before} were stored before the key was set"


def test_bundles_leave_seals_behind_and_the_importer_seals_what_it_accepts(
    sealed_ledger: Ledger, tmp_path: Path
) -> None:
    receipt, _ = recorded_with_a_note(sealed_ledger)
    bundle = export_bundle(sealed_ledger, receipt.game_id)
    assert all(not seal_of(state) for _, _, state in unpack(bundle)["events"])
    with Ledger(Settings(str(tmp_path / "elsewhere.sqlite"), seal_key="another server's key")) as elsewhere:
        import_bundles(elsewhere, [bundle])
        assert elsewhere.queries.audit(receipt.game_id).check("seals")["verdict"] == "pass"
        assert export_bundle(elsewhere, receipt.game_id) == bundle
    sealed_events = [[t, v, s] for t, v, s in unpack(bundle)["events"]]
    stored_first = sealed_ledger.queries.stored_events(receipt.game_id)[0].state
    sealed_events[0][2] = canonical(stored_first)
    with pytest.raises(BundleError, match="event 1 carries a server's seal"):
        import_bundles(sealed_ledger, [pack({**unpack(bundle), "events": sealed_events})])
    sealed_events[0][2] = compact(unsealed_bytes(stored_first))
    with pytest.raises(BundleError, match="event 1 is compact: a bundle carries each event's canonical bytes"):
        import_bundles(sealed_ledger, [pack({**unpack(bundle), "events": sealed_events})])


def seal_of(state: bytes) -> bytes | None:
    return unpack_sealed(state)[1]


def test_a_generated_game_reveals_its_committed_seed_and_every_roll_is_drawn_again(ledger: Ledger) -> None:
    receipt = ledger.commands.generate_game(3, seed=10, ruleset="evo2")
    first, last = ledger.queries.game_events(receipt.game_id)[0], ledger.queries.game_events(receipt.game_id)[-1]
    assert type(last).__name__ == "SeedRevealed" and last.seed == 10 and last.generator == CHANCE_GENERATOR
    assert first.commitment == seed_commitment(CHANCE_GENERATOR, last.salt, 10)
    report = ledger.queries.audit(receipt.game_id, expect_head=receipt.head_hash)
    assert report.verdict == CLEAN
    chance = report.check("chance")
    assert chance["verdict"] == "pass" and chance["detail"].endswith("chance actions drawn again from seed 10")
    assert ledger.queries.audit(receipt.game_id).canonical == ledger.queries.audit(receipt.game_id).canonical


def test_a_game_whose_rolls_are_not_those_of_its_revealed_seed_is_named_at_the_first(ledger: Ledger) -> None:
    """A forger commits to seed 10, plays with seed 11 and reveals 10: every action is legal, the chance is not."""
    document, kit = load_kit_document("standin-e2-3p")
    names = PLAYER_NAMES[:3]
    claimed = [RULES.format_action(a) for a, _ in Evo2SelfPlay(RULES).play(kit, names, 10, "sensible")]
    played = [RULES.format_action(a) for a, _ in Evo2SelfPlay(RULES).play(kit, names, 11, "sensible")]
    commitment = seed_commitment(CHANCE_GENERATOR, "salt", 10)
    game = Game.start(RULES, document, kit, [(name, None) for name in names], {}, commitment=commitment)
    game.record_all(played)
    game.reveal_seed(CHANCE_GENERATOR, "salt", 10)
    ledger.commands.save_games([game])
    differs = next(i for i, (a, b) in enumerate(zip(claimed, played, strict=False)) if a != b)
    version = game.history[differs][0]
    report = ledger.queries.audit(game.id)
    assert report.check("rules")["verdict"] == "pass" and report.verdict == DAMAGED
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("chance", version)
    assert (
        report.check("chance")["detail"] == f"event {version} ({played[differs]!r}) is not what the revealed seed draws"
    )


def test_a_seed_is_revealed_only_at_the_end_and_only_as_committed() -> None:
    document, kit = load_kit_document("standin-e2-3p")
    names = PLAYER_NAMES[:3]
    commitment = seed_commitment(CHANCE_GENERATOR, "salt", 10)
    game = Game.start(RULES, document, kit, [(name, None) for name in names], {}, commitment=commitment)
    with pytest.raises(ValueError, match="only at the game's end"):
        game.reveal_seed(CHANCE_GENERATOR, "salt", 10)
    game.record_all([RULES.format_action(a) for a, _ in Evo2SelfPlay(RULES).play(kit, names, 10, "sensible")])
    with pytest.raises(ValueError, match="not those the game committed to"):
        game.reveal_seed(CHANCE_GENERATOR, "pepper", 10)
    table_game = Game.start(RULES, document, kit, [(name, None) for name in names], {})
    with pytest.raises(ValueError, match="not generated from a committed seed"):
        table_game.reveal_seed(CHANCE_GENERATOR, "salt", 10)


def test_a_game_played_at_a_table_has_no_chance_to_check(ledger: Ledger, recorded: Receipt) -> None:
    chance = ledger.queries.audit(recorded.game_id).check("chance")
    assert (chance["verdict"], chance["detail"]) == (
        "not run",
        "the game was played at a table: its chance is in the log",
    )


def test_an_edited_snapshot_is_named_by_the_audit_which_never_trusts_one(database: str) -> None:
    ledger = Ledger(Settings(database))
    try:
        game_id = import_notation(ledger, (ROOT / "replays" / "hand-3p-first-game.evo").read_text()).game_id
        assert ledger.queries.audit(game_id).check("snapshots")["verdict"] == "pass"
        snapshots = Tamperer(ledger, game_id)
        snapshots.table = ledger.store.snapshots.recorder.events_table_name  # type: ignore[union-attr]
        topic, state = snapshots.stored(SNAPSHOT_INTERVAL)
        fields = unpack(state)
        fields["state"]["state"]["players"]["ann"][1] += 50  # 50 MP more for ann at event 100
        snapshots.write(SNAPSHOT_INTERVAL, topic, pack(fields))
    finally:
        ledger.close()
    ledger = Ledger(Settings(database))
    try:
        assert (
            ledger.queries.game(game_id, version=SNAPSHOT_INTERVAL + 1).state.players["ann"].mp >= 50
        )  # the snapshot is read
        report = ledger.queries.audit(game_id)
        assert report.verdict == "damaged" and report.check("snapshots")["event"] == SNAPSHOT_INTERVAL
        assert report.check("rules")["verdict"] == "pass"  # the fold from the first event never read it
    finally:
        ledger.close()
