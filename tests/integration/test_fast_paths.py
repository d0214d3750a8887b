"""Each of the store's fast paths answers exactly as the library's own way it stands in for (the packed form's
recorders, as the one-row-an-event form's do)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.access import ACCESS_TOPICS, access_id, new_token
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notations
from evo_ledger.settings import COMPACT, PACKED, Settings
from evo_ledger.store.recorders import changed_since
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database, require_postgres
from tests.helpers.support import ROOT

GAME = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()


@pytest.fixture(scope="module")
def stored_game() -> Iterator[tuple[Ledger, UUID]]:
    require_postgres()
    with fresh_postgres_database() as url, Ledger(Settings(url)) as ledger:
        [receipt] = import_notations(ledger, [GAME])
        yield ledger, receipt.game_id


@pytest.mark.parametrize("form", [COMPACT, PACKED])
def test_a_page_of_the_log_with_text_ids_is_the_librarys_on_sqlite(tmp_path: Path, form: str) -> None:
    with Ledger(Settings(str(tmp_path / "games.sqlite"), stored_form=form)) as ledger:
        import_notations(ledger, [GAME])
        recorder: Any = ledger.store.recorder
        last = recorder.max_notification_id()
        library = recorder.select_notifications(start=1, limit=last, inclusive_of_start=False)
        ours = recorder.select_notifications_after(1, last)
        assert [n.id for n in ours] == list(range(2, last + 1)) and last > 2
        assert [(n.id, str(n.originator_id), n.originator_version, n.topic, n.state) for n in library] == [
            (n.id, n.originator_id, n.originator_version, n.topic, n.state) for n in ours
        ]


@ON_POSTGRES
def test_the_accesses_changed_since_a_position_on_postgresql_are_those_the_librarys_queries_give(
    stored_game: tuple[Ledger, UUID],
) -> None:
    ledger, game_id = stored_game
    recorder: Any = ledger.store.recorder
    ledger.commands.grant_recorder(game_id, new_token())
    last = recorder.max_notification_id()
    for position in (None, 0, 1, last - 1, last):
        assert recorder.select_changed_since(position, ACCESS_TOPICS) == changed_since(
            recorder, position, ACCESS_TOPICS
        )
    assert recorder.select_changed_since(0, ACCESS_TOPICS)[1] == {access_id(game_id)}
