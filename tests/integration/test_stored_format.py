"""Games stored by an earlier version load, replay, audit clean and export again to the same bytes (a notation
export, to the same lines, its revisions written as lines rather than comments)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import export_bundle, export_notation, import_bundles
from evo_ledger.settings import Settings
from tests.helpers.stored import FIXTURES, NAMES, game_id_of

# The first notation export wrote a game's revisions as comments, which an import skipped; it now writes them as
# revision lines, in the order they were made, so that an import makes the same events.
REVISIONS_AS_COMMENTS = """cat drew Heatwave
# corrected (same action, corrected for the fixture): cat pass
# undone (ben had not passed): ben pass
cat pass
# note on event 5: ann bids first: she won the initiative
"""
REVISIONS_AS_LINES = """cat drew Heatwave
cat pass
ben pass
undo 1 (ben had not passed)
correct cat pass (same action, corrected for the fixture)
note 5 ann bids first: she won the initiative
"""


def notation_export_of(name: str) -> str:
    return (FIXTURES / f"{name}.evo").read_text().replace(REVISIONS_AS_COMMENTS, REVISIONS_AS_LINES)


@pytest.fixture
def stored_ledger(tmp_path: Path) -> Iterator[Ledger]:
    """The fixture's SQLite file, copied so that the test never changes it."""
    copy = tmp_path / "games.sqlite"
    shutil.copyfile(FIXTURES / "games.sqlite", copy)
    ledger = Ledger(Settings(str(copy)))
    yield ledger
    ledger.close()


@pytest.mark.parametrize("name", NAMES)
def test_a_game_stored_earlier_audits_clean_and_exports_the_same_bytes(stored_ledger: Ledger, name: str) -> None:
    game_id = game_id_of(name)
    assert stored_ledger.queries.audit(game_id).verdict == "clean"
    assert export_bundle(stored_ledger, game_id) == (FIXTURES / f"{name}.msgpack").read_bytes()
    assert export_notation(stored_ledger, game_id) == notation_export_of(name)


def test_games_stored_earlier_replay_at_every_event(stored_ledger: Ledger) -> None:
    for name in NAMES:
        game_id = game_id_of(name)
        last = stored_ledger.queries.game(game_id).version
        for version in range(1, last + 1):
            assert stored_ledger.queries.game(game_id, version).version == version


def test_bundles_exported_earlier_import_audit_clean_and_export_the_same_bytes(database: str) -> None:
    ledger = Ledger(Settings(database))
    try:
        bundles = [(FIXTURES / f"{name}.msgpack").read_bytes() for name in NAMES]
        receipts = import_bundles(ledger, bundles)
        for name, receipt, bundle in zip(NAMES, receipts, bundles, strict=True):
            assert receipt.game_id == game_id_of(name)
            assert ledger.queries.audit(receipt.game_id).verdict == "clean"
            assert export_bundle(ledger, receipt.game_id) == bundle
    finally:
        ledger.close()


def test_an_evo1_game_of_version_1_replays_under_version_1_and_exports_the_same_bytes(database: str) -> None:
    """Version 2 of evo1 checks card plays and waits for the table's steps; a game recorded with version 1 goes on
    being decided by version 1's rules, which still refuse every card play [E1-23]."""
    ledger = Ledger(Settings(database))
    try:
        bundle = (FIXTURES / "evo1-v1-hand.msgpack").read_bytes()
        (receipt,) = import_bundles(ledger, [bundle])
        game = ledger.queries.game(receipt.game_id)
        assert (game.ruleset_version, game.rules.version) == ("1", "1")
        assert ledger.queries.audit(receipt.game_id).verdict == "clean"
        assert export_bundle(ledger, receipt.game_id) == bundle
        assert export_notation(ledger, receipt.game_id) == (FIXTURES / "evo1-v1-hand.evo").read_text()
        for version in range(1, game.version + 1):
            assert ledger.queries.game(receipt.game_id, version).version == version
    finally:
        ledger.close()
