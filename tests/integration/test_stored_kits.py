"""Kits stored in the ledger, on each database: two ledgers storing one kit at once meet on one record (the store's
unique key refuses the second, which finds the kit stored); a removal that raced a kit's first game is refused
once made again; and the command line stores a kit file (`kit FILE --store`) and starts a game on its hash."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.stored_kits import KitCaller, KitInUse, StoredKit
from evo_ledger.cli.main import main
from evo_ledger.rules.kits import canonical_hash, load_kit_document
from evo_ledger.settings import Settings
from tests.helpers.support import ROOT

TINY = ROOT / "tests" / "rulings" / "tiny-3p.json"  # an evo2 island no ruleset ships
PLAYERS = ["ann", "ben", "cat"]


def island(name: str = "our-island") -> dict[str, Any]:
    return {**load_kit_document("standin-e2-3p")[0], "name": name}


@pytest.fixture
def other(database: str) -> Iterator[Ledger]:
    """A second ledger on the same database, as another server's."""
    with Ledger(Settings(database)) as ledger:
        yield ledger


def read_first_as_before(ledger: Ledger, meanwhile: Callable[[], object]) -> None:
    """The ledger's first read of a stored kit's record gives it as it stood before `meanwhile` ran (another
    server's change, stored between that read and this ledger's write); every read after, as stored."""
    read = ledger.queries.stored_kit
    calls = [0]

    def stale_once(kit_hash: str) -> StoredKit | None:
        calls[0] += 1
        before = read(kit_hash)
        if calls[0] == 1:
            meanwhile()
        return before

    ledger.queries.stored_kit = stale_once  # type: ignore[method-assign]


def kit_topics(ledger: Ledger) -> list[str]:
    return [n.topic for n in ledger.queries.notifications_after(0) if n.topic.startswith("evo-ledger:StoredKit.")]


def test_two_ledgers_storing_one_kit_at_once_meet_on_one_record(ledger: Ledger, other: Ledger) -> None:
    kit = island()
    read_first_as_before(ledger, lambda: other.commands.store_kit(kit, KitCaller("another caller", 5)))
    kept = ledger.commands.store_kit(kit, KitCaller("a caller", 5))
    assert (kept.kit_hash, kept.already) == (canonical_hash(kit), True)
    assert kit_topics(ledger) == [StoredKit.Stored.TOPIC], "stored once"
    assert ledger.queries.kit_shelf("a caller") is None, "a kit stored already is not counted"
    shelf = ledger.queries.kit_shelf("another caller")
    assert shelf is not None and shelf.kits == (kept.kit_hash,)


def test_a_removal_that_raced_the_kits_first_game_is_refused_when_made_again(ledger: Ledger, other: Ledger) -> None:
    kit_hash = ledger.commands.store_kit(island()).kit_hash
    read_first_as_before(ledger, lambda: other.commands.create_game(None, kit_hash, PLAYERS))
    with pytest.raises(KitInUse):
        ledger.commands.remove_kit(kit_hash)
    assert kit_topics(ledger) == [StoredKit.Stored.TOPIC, StoredKit.FirstUsed.TOPIC]
    assert ledger.queries.kit_document(kit_hash)[0] == island()


def test_a_kit_removed_and_stored_again_is_one_record_whose_events_say_so(ledger: Ledger) -> None:
    kit_hash = ledger.commands.store_kit(island(), KitCaller("a caller", 1)).kit_hash
    ledger.commands.remove_kit(kit_hash)
    assert ledger.queries.stored_kits() == {}
    assert not ledger.commands.store_kit(island(), KitCaller("a caller", 1)).already
    assert kit_topics(ledger) == [StoredKit.Stored.TOPIC, StoredKit.Removed.TOPIC, StoredKit.StoredAgain.TOPIC]
    assert ledger.queries.stored_kits() == {kit_hash: island()}


def run(capsys: pytest.CaptureFixture[str], database: str, *args: str) -> tuple[int, str, str]:
    status = main([*args, "--database", database])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_command_line_stores_a_kit_file_and_starts_a_game_on_its_hash(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    kit_hash = canonical_hash(json.loads(TINY.read_text()))
    status, out, _ = run(capsys, database, "kit", str(TINY), "--store")
    assert status == 0 and f"hash {kit_hash}" in out and out.endswith(f"stored as {kit_hash}\n")
    status, out, _ = run(capsys, database, "kit", str(TINY), "--store")
    assert status == 0 and out.endswith(f"stored already as {kit_hash}: nothing stored\n")
    status, out, _ = run(capsys, database, "kit", "standin-e2-3p", "--store")
    assert status == 0 and out.endswith("built in already as standin-e2-3p: nothing stored\n")
    status, out, _ = run(capsys, database, "new", "--kit", kit_hash, "--players", *PLAYERS)
    game = re.search(r"game ([0-9a-f-]{36})", out)
    assert status == 0 and game is not None
    with Ledger(Settings(database)) as ledger:
        started = ledger.queries.game(UUID(game.group(1)))
        assert (started.kit_name, started.kit_hash) == ("tiny-3p", kit_hash)


def test_the_command_line_names_a_kit_it_cannot_store_or_find_in_a_line(
    database: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    unknown = "sha256:" + "0" * 64
    status, _, err = run(capsys, database, "new", "--kit", unknown, "--players", *PLAYERS)
    assert (
        status == 2
        and err == f"evo-ledger new: no kit has the hash {unknown!r}: no built-in kit's, and no stored kit's\n"
    )
    broken = tmp_path / "broken.json"
    document = json.loads(TINY.read_text())
    broken.write_text(json.dumps({**document, "start_marks": {**document["start_marks"], "1": ["Z9"]}}))
    status, _, err = run(capsys, database, "kit", str(broken), "--store")
    assert status == 2 and err.count("\n") == 1 and "start_marks.1" in err and "'Z9'" in err
    too_large = tmp_path / "large.json"
    too_large.write_text(json.dumps({**document, "note": "x" * 70_000}))
    status, _, err = run(capsys, database, "kit", str(too_large), "--store")
    assert status == 2 and err.startswith("evo-ledger kit: kit: its document is ") and err.count("\n") == 1
    with Ledger(Settings(database)) as ledger:
        assert ledger.queries.stored_kits() == {}
