"""Withdrawn games on each database: a withdrawal and a reinstatement are events of the game's access, made by the
recorder's own token or the admin, sealed and signed as its other events are; the read tables mark the game, leave
it out of the ratings, and equal a rebuild from zero; the audit says the game is withdrawn and why, from the same
log, in the same bytes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import select

from evo_ledger.app.access import (
    AccessNotVouched,
    AlreadyWithdrawn,
    GameAccess,
    HiddenGame,
    NotWithdrawn,
    RecorderRefused,
    TokenRequired,
    WithdrawalHeld,
    WithdrawalReasonRefused,
    access_id,
)
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.settings import Settings
from projections.runner import Projector, rebuild
from projections.schema import GAMES, RATINGS, read_tables
from projections.store import ReadStore
from tests.helpers.tampering import GAME_TEXT, KEY, Tamperer

RECORDER, CO_RECORDER, SEAT = "the recorder's token", "a co-recorder's token", "ann's seat token"
TEST_GAME, FOUND_AGAIN = "a test game, recorded to try the phones", "it was a real game after all"


@pytest.fixture
def store(ledger: Ledger) -> Iterator[ReadStore]:
    read_store = ReadStore(ledger.settings)
    yield read_store
    read_store.close()


def recorded(ledger: Ledger, text: str = GAME_TEXT) -> UUID:
    """A finished game imported, with the recorder's token, a co-recorder and ann's seat token."""
    game = import_notation(ledger, text).game_id
    ledger.commands.grant_recorder(game, RECORDER)

    def others(access: GameAccess) -> None:
        access.add_co_recorder("ben's phone", CO_RECORDER)
        access.issue_seat_token("ann", SEAT)

    ledger.commands.change_recorders(game, others, RECORDER)
    return game


def withdraw(ledger: Ledger, game: UUID, token: str | None = RECORDER, admin: bool = False) -> GameAccess:
    return ledger.commands.change_recorders(game, lambda access: access.set_withdrawn(True, TEST_GAME), token, admin)


def reinstate(ledger: Ledger, game: UUID, token: str | None = RECORDER, admin: bool = False) -> GameAccess:
    return ledger.commands.change_recorders(game, lambda access: access.set_withdrawn(False, FOUND_AGAIN), token, admin)


def access_events(ledger: Ledger, game: UUID) -> list[str]:
    return [stored.topic for stored in ledger.store.recorder.select_events(access_id(game))]


def test_the_recorders_own_token_withdraws_and_reinstates_a_game_as_events_of_its_access(ledger: Ledger) -> None:
    game = recorded(ledger)
    before = len(access_events(ledger, game))
    withdrawn = withdraw(ledger, game)
    assert (withdrawn.withdrawn, withdrawn.withdrawal_reason) == (True, TEST_GAME)
    held = ledger.vouched.access(game)
    assert held is not None and (held.withdrawn, held.withdrawal_reason) == (True, TEST_GAME)
    assert access_events(ledger, game)[before:] == [GameAccess.WithdrawalSet.TOPIC]
    reinstated = reinstate(ledger, game)
    assert (reinstated.withdrawn, reinstated.withdrawal_reason) == (False, None)
    assert reinstated.withdrawals == (
        WithdrawalHeld(before + 1, True, TEST_GAME),
        WithdrawalHeld(before + 2, False, FOUND_AGAIN),
    )
    assert access_events(ledger, game)[before:] == [GameAccess.WithdrawalSet.TOPIC] * 2
    assert ledger.queries.game(game).version == ledger.queries.receipt(game).version  # the game's own log: untouched


def test_the_admin_withdraws_a_game_without_a_recorder_token(ledger: Ledger) -> None:
    game = import_notation(ledger, GAME_TEXT).game_id
    with pytest.raises(RecorderRefused) as refused:
        withdraw(ledger, game)
    assert refused.value.code == "no_recorder"
    assert withdraw(ledger, game, token=None, admin=True).withdrawn
    assert reinstate(ledger, game, token=None, admin=True).withdrawals[-1].withdrawn is False


@pytest.mark.parametrize(
    ("token", "refusal", "code"),
    [
        (CO_RECORDER, RecorderRefused, "token_refused"),
        (SEAT, RecorderRefused, "token_refused"),
        ("a stranger's token", RecorderRefused, "token_refused"),
        (None, TokenRequired, "token_required"),
    ],
)
def test_only_the_recorders_own_token_or_the_admin_withdraws(
    ledger: Ledger, token: str | None, refusal: type[RecorderRefused], code: str
) -> None:
    game = recorded(ledger)
    stored = access_events(ledger, game)
    with pytest.raises(refusal) as refused:
        withdraw(ledger, game, token)
    assert refused.value.code == code
    withdraw(ledger, game, token=None, admin=True)
    with pytest.raises(refusal):
        reinstate(ledger, game, token)
    assert access_events(ledger, game) == [*stored, GameAccess.WithdrawalSet.TOPIC]


def test_a_private_game_is_unknown_to_a_stranger_who_withdraws_it(ledger: Ledger) -> None:
    game = recorded(ledger)
    ledger.commands.change_access(game, lambda access: access.set_private(True))
    with pytest.raises(HiddenGame):
        withdraw(ledger, game, "a stranger's token")
    with pytest.raises(HiddenGame):
        withdraw(ledger, game, None)
    assert withdraw(ledger, game).withdrawn


def test_a_game_withdrawn_twice_or_reinstated_unwithdrawn_is_refused_and_stores_nothing(ledger: Ledger) -> None:
    game = recorded(ledger)
    stored = access_events(ledger, game)
    with pytest.raises(NotWithdrawn, match="is not withdrawn"):
        reinstate(ledger, game)
    withdraw(ledger, game)
    with pytest.raises(AlreadyWithdrawn, match=r"is withdrawn already$"):  # its reason is typed text, sealed
        withdraw(ledger, game)
    assert access_events(ledger, game) == [*stored, GameAccess.WithdrawalSet.TOPIC]


@pytest.mark.parametrize(
    ("reason", "problem"),
    [
        ("", "1 to 200 characters, not 0"),
        ("x" * 201, "1 to 200 characters, not 201"),
        ("   ", "more than spaces"),
        ("abandoned\nat round 3", "U+000A"),
        ("test\u202egame", "U+202E"),
    ],
)
def test_a_reason_out_of_the_rule_is_refused_and_stores_nothing(ledger: Ledger, reason: str, problem: str) -> None:
    game = recorded(ledger)
    stored = access_events(ledger, game)
    with pytest.raises(WithdrawalReasonRefused, match=f"^reason: .*{re.escape(problem)}"):
        ledger.commands.change_recorders(game, lambda access: access.set_withdrawn(True, reason), RECORDER)
    assert access_events(ledger, game) == stored
    longest = "x" * 200
    withdrawn = ledger.commands.change_recorders(game, lambda access: access.set_withdrawn(True, longest), RECORDER)
    assert withdrawn.withdrawal_reason == longest


def rows_of(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every read table's rows in key order."""
    with store.engine.connect() as connection:
        return {
            table.name: [tuple(row) for row in connection.execute(select(table).order_by(*table.primary_key))]
            for table in read_tables()
        }


def game_row(store: ReadStore, game: UUID) -> tuple[bool, str | None]:
    with store.engine.connect() as connection:
        query = select(GAMES.c.withdrawn, GAMES.c.withdrawn_reason).where(GAMES.c.game_id == str(game))
        withdrawn, reason = connection.execute(query).one()
    return bool(withdrawn), reason


def rated_games(store: ReadStore) -> set[str]:
    with store.engine.connect() as connection:
        return {row.game_id for row in connection.execute(select(RATINGS.c.game_id))}


def test_the_read_tables_mark_a_withdrawn_game_leave_it_unrated_and_equal_a_rebuild(
    ledger: Ledger, store: ReadStore
) -> None:
    earlier = str(ledger.commands.generate_game(3, seed=1, ruleset="evo2").game_id)
    game = recorded(ledger)
    later = str(ledger.commands.generate_game(3, seed=2, ruleset="evo2").game_id)
    projector = Projector(ledger, store)
    projector.catch_up()
    rated = rows_of(store)["read_ratings"]
    assert rated_games(store) == {earlier, str(game), later} and game_row(store, game) == (False, None)
    withdraw(ledger, game)
    projector.catch_up()
    assert game_row(store, game) == (True, TEST_GAME)
    assert rated_games(store) == {earlier, later}
    withdrawn = rows_of(store)
    rebuild(ledger, store)
    assert rows_of(store) == withdrawn
    reinstate(ledger, game)
    projector.catch_up()
    assert game_row(store, game) == (False, None)
    assert rows_of(store)["read_ratings"] == rated  # as they were before it was withdrawn
    reinstated = rows_of(store)
    rebuild(ledger, store)
    assert rows_of(store) == reinstated


def test_the_audit_of_a_withdrawn_game_says_so_and_why_in_the_same_bytes_each_time(ledger: Ledger) -> None:
    game = recorded(ledger)
    before, basis = ledger.queries.audit(game), ledger.queries.audit_basis(game)
    assert "withdrawal" not in before.data
    withdrawn_at = len(access_events(ledger, game)) + 1
    withdraw(ledger, game)
    assert ledger.queries.audit_basis(game) != basis  # an audit kept on the basis before is not answered again
    audited = ledger.queries.audit(game)
    assert audited.verdict == "clean"
    assert audited.data["withdrawal"] == {
        "withdrawn": True,
        "reason": TEST_GAME,
        "changes": [{"access_event": withdrawn_at, "withdrawn": True, "reason": TEST_GAME}],
    }
    assert audited.canonical == ledger.queries.audit(game).canonical
    assert {key: value for key, value in audited.data.items() if key != "withdrawal"} == before.data  # the same log
    assert f"withdrawn: left out of standings, ratings and statistics ({TEST_GAME})" in audited.text()
    assert f"withdrawn by access event {withdrawn_at}: {TEST_GAME}" in audited.text()
    reinstate(ledger, game)
    again = ledger.queries.audit(game)
    assert again.data["withdrawal"]["withdrawn"] is False and again.data["withdrawal"]["reason"] is None
    assert again.data["withdrawal"]["changes"][-1] == {
        "access_event": withdrawn_at + 1,
        "withdrawn": False,
        "reason": FOUND_AGAIN,
    }
    assert f"reinstated by access event {withdrawn_at + 1}: {FOUND_AGAIN}" in again.text()


@pytest.fixture
def sealed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        yield ledger


def test_a_withdrawal_is_sealed_and_signed_by_a_checkpoint_as_the_access_events_before_it(
    sealed: Ledger, database: str
) -> None:
    game = recorded(sealed)
    withdraw(sealed, game)
    sealed.commands.take_checkpoint()
    reinstate(sealed, game)
    signed, _ = sealed.commands.take_checkpoint()
    heads = sealed.vouched.checkpoint_index().head_of(str(access_id(game)))
    assert heads.version == len(access_events(sealed, game)) and signed["number"] == 2
    with Ledger(Settings(database, seal_key=KEY)) as started:
        held = started.vouched.access(game)
        assert held is not None and [change.withdrawn for change in held.withdrawals] == [True, False]
        assert started.queries.audit(game).verdict == "clean"
    Tamperer(sealed, access_id(game)).delete(">=", heads.version)  # the reinstatement cut off
    with (
        Ledger(Settings(database, seal_key=KEY)) as started,
        pytest.raises(AccessNotVouched, match="the record was cut back"),
    ):
        started.vouched.access(game)


def test_a_withdrawal_stored_without_the_key_is_refused_and_the_audit_says_it_is_not_vouched(
    sealed: Ledger, database: str
) -> None:
    game = recorded(sealed)
    with Ledger(Settings(database)) as forger:
        forger.commands.change_access(game, lambda access: access.set_withdrawn(True, TEST_GAME))
    with Ledger(Settings(database, seal_key=KEY)) as started:
        with pytest.raises(AccessNotVouched, match="carries no seal"):
            withdraw(started, game)
        audited = started.queries.audit(game)
    assert audited.verdict == "clean"  # the game's own log holds
    said = audited.data["withdrawal"]
    assert (said["withdrawn"], said["reason"], said["changes"]) == (None, None, [])
    assert "changed without the seal key" in said["unvouched"]
    assert "withdrawn: unknown (" in audited.text()
