"""Many appends committed together, on each database: each gets the answer it would have had alone."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import Any
from uuid import UUID, uuid4

import pytest

from evo_ledger.app.access import ACCESS_TOPICS, RecorderRefused, TokenRequired, access_id, new_token
from evo_ledger.app.ledger import (
    AppendRequest,
    Idempotency,
    IdempotencyKeyReused,
    Ledger,
    Outcome,
    Receipt,
    VersionConflict,
)
from evo_ledger.app.writer import GroupWriter, LedgerProcess, NewGame, ProcessWriter, WriterProcessLost, carried_out
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.kits import KitError
from evo_ledger.rules.structured import ActionDataError
from evo_ledger.settings import Settings
from tests.helpers.shown import shown
from tests.helpers.support import ROUND_ONE_AUCTION

PLAYERS = ["ann", "ben", "cat"]


def new_game(ledger: Ledger, token: str | None = None) -> Receipt:
    return ledger.commands.create_game("evo2", "standin-e2-3p", PLAYERS, recorder_token=token)


def notations(ledger: Ledger, receipt: Receipt) -> list[str]:
    """The game's actions as a reader is shown them (the log holds the seats' labels)."""
    return [shown(ledger, e.notation) for e in ledger.queries.game_events(receipt.game_id) if hasattr(e, "notation")]


def test_appends_to_several_games_commit_together_with_their_own_receipts(ledger: Ledger) -> None:
    one, two = new_game(ledger), new_game(ledger)
    outcomes = ledger.commands.record_many(
        [
            AppendRequest(one.game_id, ["order ann ben cat"], expected_version=1),
            AppendRequest(two.game_id, ["order cat ben ann", "climate cw"]),
            AppendRequest(one.game_id, ["climate acw"], expected_version=3),
        ]
    )
    assert [(o.game_id, o.version) for o in outcomes if isinstance(o, Receipt)] == [
        (one.game_id, 3),
        (two.game_id, 5),
        (one.game_id, 5),
    ]
    assert outcomes[0].head_hash == ledger.queries.game(one.game_id, version=3).head_hash  # type: ignore[union-attr]
    assert notations(ledger, one) == ["order ann ben cat", "climate acw"]
    assert ledger.queries.receipt(two.game_id) == outcomes[1]


def test_a_refused_append_leaves_its_game_as_it_was_for_the_appends_after_it(ledger: Ledger) -> None:
    game = new_game(ledger)
    outcomes = ledger.commands.record_many(
        [
            AppendRequest(game.game_id, ["order ann ben cat"]),
            AppendRequest(game.game_id, ["climate cw", "draw legs", "draw eggs", "ann bid 9 legs"]),  # E2-07
            AppendRequest(game.game_id, [{"kind": "reveal_climate", "token": "acw"}]),
            AppendRequest(game.game_id, [{"kind": "bid", "player": "ann", "amount": "two", "target": "eggs"}]),
            AppendRequest(game.game_id, ["draw eggs"], expected_version=3),
        ]
    )
    assert isinstance(outcomes[1], RuleViolation) and outcomes[1].ruling == "E2-07"
    assert isinstance(outcomes[3], ActionDataError) and "action.amount" in str(outcomes[3])
    assert isinstance(outcomes[4], VersionConflict) and outcomes[4].actual == 5
    assert [o.version for o in outcomes if isinstance(o, Receipt)] == [3, 5]
    assert notations(ledger, game) == ["order ann ben cat", "climate acw"]


def test_two_appends_at_one_version_in_one_group_get_one_success_and_one_conflict(ledger: Ledger) -> None:
    game = new_game(ledger)
    first, second = ledger.commands.record_many(
        [
            AppendRequest(game.game_id, ["order ann ben cat"], expected_version=1),
            AppendRequest(game.game_id, ["order cat ben ann"], expected_version=1),
        ]
    )
    assert isinstance(first, Receipt) and isinstance(second, VersionConflict)
    assert notations(ledger, game) == ["order ann ben cat"]


def test_a_request_repeated_in_one_group_with_its_idempotency_key_is_stored_once(ledger: Ledger) -> None:
    game = new_game(ledger)
    retry = AppendRequest(game.game_id, ["order ann ben cat"], idempotency=Idempotency("k1", "digest"))
    outcomes = ledger.commands.record_many([retry, retry, AppendRequest(game.game_id, ["climate cw"])])
    assert outcomes[0] == outcomes[1] and isinstance(outcomes[0], Receipt)
    assert isinstance(outcomes[2], Receipt) and outcomes[2].version == 5
    assert notations(ledger, game) == ["order ann ben cat", "climate cw"]


def test_a_group_the_store_refuses_is_answered_append_by_append(database: str) -> None:
    with Ledger(Settings(database)) as mine, Ledger(Settings(database)) as other:
        game, bystander = new_game(mine), new_game(mine)
        mine.commands.record(game.game_id, "order ann ben cat")  # now cached at version 3
        other.commands.record(game.game_id, "climate cw")  # behind its back: version 5 in the store
        outcomes = mine.commands.record_many(
            [
                AppendRequest(game.game_id, ["climate acw"], expected_version=3),
                AppendRequest(bystander.game_id, ["order ann ben cat"]),
            ]
        )
        assert isinstance(outcomes[0], VersionConflict)
        assert isinstance(outcomes[1], Receipt) and outcomes[1].version == 3
        assert notations(mine, game) == ["order ann ben cat", "climate cw"]


def test_only_the_recorder_token_appends_when_one_is_required(ledger: Ledger) -> None:
    token = new_token()
    game = new_game(ledger, token)
    open_game = new_game(ledger)
    outcomes = ledger.commands.record_many(
        [
            AppendRequest(game.game_id, ["order ann ben cat"], token_required=True),
            AppendRequest(game.game_id, ["order ann ben cat"], recorder_token="guess", token_required=True),
            AppendRequest(open_game.game_id, ["order ann ben cat"], recorder_token=token, token_required=True),
            AppendRequest(game.game_id, ["order ann ben cat"], recorder_token=token, token_required=True),
        ]
    )
    assert [type(o) for o in outcomes[:3]] == [TokenRequired, RecorderRefused, type(outcomes[2])]
    assert isinstance(outcomes[2], RecorderRefused) and outcomes[2].code == "no_recorder"
    assert isinstance(outcomes[3], Receipt) and outcomes[3].version == 3


def with_token(receipt: Receipt, action: str, token: str | None) -> AppendRequest:
    return AppendRequest(receipt.game_id, [action], recorder_token=token, token_required=True)


def test_a_token_replaced_by_another_server_is_refused_at_once_by_one_that_held_the_access(database: str) -> None:
    lost, issued = new_token(), new_token()
    with Ledger(Settings(database)) as writing, Ledger(Settings(database)) as admin:
        game, open_game = new_game(writing, lost), new_game(writing)
        [first, _] = writing.commands.record_many(
            [with_token(game, "order ann ben cat", lost), with_token(open_game, "order ann ben cat", lost)]
        )  # both games' accesses now held, the open game's as having none
        assert isinstance(first, Receipt)
        admin.commands.grant_recorder(game.game_id, issued)
        admin.commands.grant_recorder(open_game.game_id, issued)
        refused, taken, opened = writing.commands.record_many(
            [
                with_token(game, "climate cw", lost),
                with_token(game, "climate cw", issued),
                with_token(open_game, "order ann ben cat", issued),
            ]
        )
    assert isinstance(refused, RecorderRefused) and refused.code == "token_refused"
    assert isinstance(taken, Receipt) and isinstance(opened, Receipt)


def test_held_accesses_are_not_read_again_until_one_changes(ledger: Ledger) -> None:
    token = new_token()
    games = [new_game(ledger, token) for _ in range(3)]
    accesses = {access_id(game.game_id) for game in games}
    read: list[UUID] = []
    select_events = ledger.store.recorder.select_events

    def counted(originator_id: Any, **options: Any) -> Any:
        if originator_id in accesses:
            read.append(originator_id)
        return select_events(originator_id, **options)

    ledger.store.recorder.select_events = counted  # type: ignore[method-assign]
    for action in ("order ann ben cat", "climate cw"):
        outcomes = ledger.commands.record_many([with_token(game, action, token) for game in games])
        assert all(isinstance(outcome, Receipt) for outcome in outcomes)
    assert sorted(read) == sorted(accesses)
    ledger.commands.grant_recorder(games[0].game_id, token)  # the same token again: an access event all the same
    read.clear()
    ledger.commands.record_many([with_token(game, "draw legs", token) for game in games])
    assert read == [access_id(games[0].game_id)]


def test_the_store_names_the_accesses_changed_since_a_position_and_up_to_its_last_event(ledger: Ledger) -> None:
    changed_since = ledger.store.recorder.select_changed_since  # type: ignore[attr-defined]
    assert changed_since(None, ACCESS_TOPICS) == (0, set())  # an empty log
    first = new_game(ledger, new_token())
    start, _ = changed_since(None, ACCESS_TOPICS)
    assert start > 0
    second = new_game(ledger, new_token())
    new_game(ledger)  # a game without a recorder token has no access
    ledger.commands.grant_recorder(first.game_id, new_token())
    last, changed = changed_since(start, ACCESS_TOPICS)
    assert changed == {access_id(first.game_id), access_id(second.game_id)}
    assert changed_since(last, ACCESS_TOPICS) == (last, set())
    assert changed_since(None, ACCESS_TOPICS) == (last, set())
    assert changed_since(0, ["evo-ledger:Nothing"])[1] == set()


def test_appends_that_need_no_token_ask_the_store_nothing_about_accesses(ledger: Ledger) -> None:
    game = new_game(ledger, new_token())
    asked: list[Any] = []
    ledger.store.recorder.select_changed_since = lambda *args: asked.append(args)  # type: ignore[attr-defined]
    ledger.commands.record(game.game_id, "order ann ben cat", expected_version=game.version)
    ledger.commands.record_many([AppendRequest(game.game_id, ["climate cw"])])
    assert asked == []


def test_the_writer_commits_concurrent_appends_in_fewer_transactions_and_loses_none(ledger: Ledger) -> None:
    games = [new_game(ledger).game_id for _ in range(8)]
    commits: list[int] = []
    record_many = ledger.commands.record_many

    def counted(requests: Any) -> Any:
        commits.append(len(requests))
        return record_many(requests)

    ledger.commands.record_many = counted  # type: ignore[method-assign]
    acknowledged: list[Receipt] = []
    writer = GroupWriter(ledger, committed=acknowledged.append)

    def recorder(game_id: Any) -> None:
        version = 1
        for action in ROUND_ONE_AUCTION:
            version = writer.submit(AppendRequest(game_id, [action], expected_version=version)).result().version

    threads = [threading.Thread(target=recorder, args=(game_id,)) for game_id in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    assert sum(commits) == len(games) * len(ROUND_ONE_AUCTION) == len(acknowledged)
    assert len(commits) < sum(commits)
    for game_id in games:
        assert notations(ledger, ledger.queries.receipt(game_id)) == list(ROUND_ONE_AUCTION)
    assert {receipt.head_hash for receipt in acknowledged} >= {ledger.queries.receipt(g).head_hash for g in games}
    with pytest.raises(RuntimeError):
        writer.submit(AppendRequest(games[0], ["ann pass"]))


def test_refusals_cross_from_the_writing_process_with_their_rulings_and_versions(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        game = new_game(ledger).game_id
    process = LedgerProcess(Settings(database))
    try:
        outcomes = process.record_many(
            [
                AppendRequest(game, ["order ann ben cat"], expected_version=1),
                AppendRequest(game, ["order ann ben cat"], expected_version=1),
                AppendRequest(game, ["ann bid 2 eggs"]),
            ]
        )
    finally:
        process.close()
    receipt, conflict, violation = outcomes
    assert isinstance(receipt, Receipt) and receipt.version > 1
    assert isinstance(conflict, VersionConflict) and (conflict.game_id, conflict.expected) == (game, 1)
    assert isinstance(violation, RuleViolation) and violation.ruling is not None
    assert str(violation).startswith(f"[{violation.ruling}]")


def test_appends_cross_to_the_writing_process_with_their_keys_tokens_and_data(database: str) -> None:
    token = new_token()
    with Ledger(Settings(database)) as ledger:
        game = new_game(ledger, token).game_id
    keyed = AppendRequest(game, ["order ann ben cat"], 1, Idempotency("k1", "digest"), token, token_required=True)
    as_data = AppendRequest(game, [{"kind": "reveal_climate", "token": "cw"}], None, None, token, token_required=True)
    process = LedgerProcess(Settings(database))
    try:
        first, retried, climate = process.record_many([keyed, keyed, as_data])
        [reused] = process.record_many([AppendRequest(game, ["ann pass"], None, Idempotency("k1", "other"), token)])
        [refused] = process.record_many([AppendRequest(game, ["ann pass"], None, None, "not-the-token", True)])
    finally:
        process.close()
    assert isinstance(first, Receipt) and first == retried and first.game_id == game
    assert isinstance(climate, Receipt) and climate.version > first.version
    assert isinstance(reused, IdempotencyKeyReused) and reused.key == "k1"
    assert isinstance(refused, RecorderRefused)
    with Ledger(Settings(database)) as ledger:
        assert ledger.queries.receipt(game) == climate
        assert notations(ledger, climate) == ["order ann ben cat", "climate cw"]


def test_a_writing_process_that_dies_is_replaced_and_no_acknowledged_append_is_lost(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        game = new_game(ledger).game_id

    killed: list[int] = []

    async def record() -> list[Outcome]:
        writer = ProcessWriter(LedgerProcess(Settings(database)))
        outcomes: list[Outcome] = []
        version = 1
        try:
            for index, action in enumerate(ROUND_ONE_AUCTION):
                if index == 2:
                    killed.append(writer.process.pid)
                    os.kill(killed[0], signal.SIGKILL)
                try:
                    receipt = await writer.append(AppendRequest(game, [action], expected_version=version))
                except WriterProcessLost as lost:
                    outcomes.append(lost)
                    receipt = await writer.append(AppendRequest(game, [action], expected_version=version))
                outcomes.append(receipt)
                version = receipt.version
            assert writer.process.pid != killed[0]
        finally:
            await writer.aclose()
        return outcomes

    outcomes = asyncio.run(record())
    receipts = [outcome for outcome in outcomes if isinstance(outcome, Receipt)]
    assert len(receipts) == len(ROUND_ONE_AUCTION)
    assert all(isinstance(o, WriterProcessLost) for o in outcomes if not isinstance(o, Receipt))
    with Ledger(Settings(database)) as ledger:
        assert ledger.queries.receipt(game) == receipts[-1]
        assert notations(ledger, receipts[-1]) == list(ROUND_ONE_AUCTION)


class ProcessLostAtSecondSend:
    """A writing process that takes a first group and never answers it, then ends as the second is sent."""

    def __init__(self) -> None:
        self.answers, self.unused = os.pipe()
        self.sent: list[Any] = []
        self.restarts = 0

    def fileno(self) -> int:
        return self.answers

    def send(self, requests: Any) -> None:
        self.sent.append(requests)
        if len(self.sent) == 2:
            raise WriterProcessLost("the writing process ended: the appends were not sent")

    def receive(self) -> list[Outcome]:
        raise AssertionError("it never answers")

    def restart(self) -> None:
        self.restarts += 1

    def close(self) -> None:
        os.close(self.answers)
        os.close(self.unused)


def test_a_group_in_flight_when_the_writing_process_is_lost_is_answered_lost_too() -> None:
    process = ProcessLostAtSecondSend()

    async def append_two() -> list[Any]:
        writer = ProcessWriter(process)  # type: ignore[arg-type]
        game = uuid4()
        appends = [writer.append(AppendRequest(game, [action])) for action in ROUND_ONE_AUCTION[:2]]
        outcomes = await asyncio.wait_for(asyncio.gather(*appends, return_exceptions=True), timeout=5)
        await asyncio.wait_for(writer.aclose(), timeout=5)
        return outcomes

    outcomes = asyncio.run(append_two())
    assert len(process.sent) == 2 and process.restarts == 1
    assert all(isinstance(outcome, WriterProcessLost) for outcome in outcomes)


def test_new_games_and_appends_sent_together_are_answered_in_order(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        game = new_game(ledger).game_id
    token = new_token()
    players = [(name, None) for name in PLAYERS]
    process = LedgerProcess(Settings(database))
    try:
        outcomes = process.record_many(
            [
                AppendRequest(game, ["order ann ben cat"], expected_version=1),
                NewGame("evo2", "standin-e2-3p", players, {}, token),
                AppendRequest(game, ["climate cw"]),
                NewGame("evo2", "no-such-kit", players, {}, token),
            ]
        )
    finally:
        process.close()
    first, created, second, refused = outcomes
    assert isinstance(first, Receipt) and isinstance(second, Receipt) and second.version > first.version
    assert isinstance(created, Receipt) and created.version == 1 and created.game_id != game
    assert isinstance(refused, KitError)
    with Ledger(Settings(database)) as ledger:
        access = ledger.vouched.access(created.game_id)
        assert access is not None and access.admits(token)


def test_the_writer_thread_creates_games_as_it_commits_appends(ledger: Ledger) -> None:
    token = new_token()

    async def write() -> tuple[Receipt, Receipt]:
        writer = GroupWriter(ledger)
        try:
            created = await writer.create(NewGame("evo2", "standin-e2-3p", [(n, None) for n in PLAYERS], {}, token))
            ordered = await writer.append(AppendRequest(created.game_id, ["order ann ben cat"], recorder_token=token))
        finally:
            await writer.aclose()
        return created, ordered

    created, ordered = asyncio.run(write())
    assert created.version == 1 and ordered.version > 1
    access = ledger.vouched.access(created.game_id)
    assert access is not None and access.admits(token)


def test_new_games_and_appends_of_a_group_are_stored_in_one_transaction(ledger: Ledger) -> None:
    game = new_game(ledger)
    saves: list[int] = []
    save = ledger.store.save

    def counted(*aggregates: Any, **options: Any) -> Any:
        saves.append(len(aggregates))
        return save(*aggregates, **options)

    ledger.store.save = counted  # type: ignore[method-assign]
    token = new_token()
    outcomes = carried_out(
        ledger,
        [
            AppendRequest(game.game_id, ["order ann ben cat"], expected_version=game.version),
            NewGame("evo2", "standin-e2-3p", [(name, None) for name in PLAYERS], {}, token),
            AppendRequest(game.game_id, ["climate cw"]),
        ],
    )
    assert all(isinstance(outcome, Receipt) for outcome in outcomes)
    assert saves == [3]  # the game appended to, the new game and its access
    created = outcomes[1]
    assert isinstance(created, Receipt) and ledger.queries.game(created.game_id).version == 1
