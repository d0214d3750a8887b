"""The checkpoints' lease moving between servers: a holder that stops signing waits for the checkpoint it is taking
to be stored before its lease can be given up (for a bounded time), and a signer whose checkpoint another server
stored first takes it again at once, rather than reporting a failure that leaves `/health` degraded."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from api import supervision
from api.supervision import CheckpointSigner
from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import Settings
from tests.helpers.servers import WAIT
from tests.helpers.tampering import KEY, recorded_with_a_note

HOUR = 3600.0  # a signer's interval the tests never reach: it signs once as it starts
STILL_WAITING_SECONDS = 0.2  # how long after it was asked `stop` is seen still waiting for the checkpoint


@pytest.fixture
def sealed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        yield ledger


class HeldCheckpoint:
    """`take_checkpoint` held in its thread, as a slow one is, until the test lets it go on."""

    def __init__(self, ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
        self.taking, self.go_on = threading.Event(), threading.Event()
        self.take = ledger.commands.take_checkpoint
        monkeypatch.setattr(ledger.commands, "take_checkpoint", self.held)

    def held(self, acknowledge: int | None = None) -> tuple[dict[str, Any], bool]:
        self.taking.set()
        self.go_on.wait(WAIT)
        return self.take(acknowledge)


def test_a_checkpoint_another_server_stored_first_is_taken_again_at_once(
    sealed: Ledger, database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The old holder, still signing as the lease moved, stores its checkpoint between the new holder's reading of
    the checkpoint log and its append: the new holder takes it again, on the log as the other left it, and reports
    no failure."""
    caplog.set_level(logging.INFO)
    receipt, _ = recorded_with_a_note(sealed)
    sealed.commands.take_checkpoint()
    sealed.commands.annotate(receipt.game_id, 2, "noted here")
    read_log = sealed.store.notifications_after
    won: list[dict[str, Any]] = []
    signer = CheckpointSigner(sealed, HOUR)
    with Ledger(Settings(database, seal_key=KEY)) as other:
        other.commands.annotate(receipt.game_id, 3, "noted on the other server")

        def read_while_the_other_signs(after: int, topics: Sequence[str] = ()) -> Iterator[Any]:
            if not won:
                won.append(other.commands.take_checkpoint()[0])
            return read_log(after, topics)

        monkeypatch.setattr(sealed.store, "notifications_after", read_while_the_other_signs)
        asyncio.run(signer.sign())
    assert won and won[0]["number"] == 2
    assert signer.failure is None and signer.last == won[0]  # the winner signed both notes: nothing was left
    assert "another server stored a checkpoint as this one took its own: taking it again" in caplog.text


def test_signing_stopped_while_a_checkpoint_is_taken_ends_once_it_is_stored(
    sealed: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`stop` (the lease lost, or the server stopping) waits for the checkpoint its thread is taking: once it
    returns, nothing more is stored, so the lease may be given up."""
    recorded_with_a_note(sealed)
    held = HeldCheckpoint(sealed, monkeypatch)
    signer = CheckpointSigner(sealed, HOUR)

    async def stopped_while_signing() -> tuple[bool, int]:
        signer.start()
        assert await asyncio.to_thread(held.taking.wait, WAIT)
        stopping = asyncio.create_task(signer.stop())
        await asyncio.sleep(STILL_WAITING_SECONDS)
        still_waiting = not stopping.done()
        held.go_on.set()
        await stopping
        return still_waiting, len(sealed.vouched.checkpoint_index().checkpoints)

    still_waiting, stored = asyncio.run(stopped_while_signing())
    assert still_waiting and stored == 1
    assert signer.signing is None and signer.failure is None


def test_signing_stopped_waits_for_a_checkpoint_no_longer_than_its_bound(
    sealed: Ledger, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    recorded_with_a_note(sealed)
    held = HeldCheckpoint(sealed, monkeypatch)
    monkeypatch.setattr(supervision, "SIGN_STOP_SECONDS", 0.05)
    signer = CheckpointSigner(sealed, HOUR)

    async def stopped_while_signing() -> bool:
        signer.start()
        assert await asyncio.to_thread(held.taking.wait, WAIT)
        await signer.stop()
        stopped_first = not held.go_on.is_set()
        held.go_on.set()  # the checkpoint goes on, and is stored before the ledger is closed
        assert signer.taking is not None
        await asyncio.wait({signer.taking}, timeout=WAIT)
        return stopped_first

    try:
        assert asyncio.run(stopped_while_signing())
    finally:
        held.go_on.set()
    assert "signing stopped with a checkpoint still being taken" in caplog.text
