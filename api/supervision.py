"""The server's processes kept running: the read tables' process, started again (with a back-off if it keeps
ending) and logged; the writing process, which its writer starts again itself when it ends; and their health.
Beside them, the checkpoints the server signs at an interval."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from starlette.concurrency import run_in_threadpool

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import Caller, game_named_for
from evo_ledger.app.writer import Writer
from evo_ledger.game.checkpoints import CheckpointError, Unvouched, unvouched_words
from projections.runner import BackgroundProjection

log = logging.getLogger(__name__)
CHECK_SECONDS = 0.5
FIRST_BACK_OFF, MAX_BACK_OFF = 0.5, 30.0
# A process that ran this long before it ended is started again at once, its back-off forgotten.
STEADY_SECONDS = 60.0
UNVOUCHED_SHOWN = 20
# What `/health` says of a server without a seal key.
NO_TAMPER_EVIDENCE = {
    "tamper_evidence": False,
    "why": "the server has no seal key (EVO_LEDGER_SEAL_KEY): it seals no event and signs no checkpoint, so a log "
    "changed by whoever holds the database does not show",
}


class Supervisor:
    """Watches the server's processes every half second: the writer starts its own again; the read tables'
    process is started again here."""

    def __init__(self, writer: Writer, projection: BackgroundProjection | None) -> None:
        self.writer, self.projection = writer, projection
        self.restarts = 0
        self.back_off = FIRST_BACK_OFF
        self.started_at = time.monotonic()
        self.due: float | None = None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            self.writer.supervise()
            if self.projection is not None:
                self.check(self.projection, time.monotonic())

    def check(self, projection: BackgroundProjection, now: float) -> None:
        if projection.alive:
            return
        if self.due is None:
            if now - self.started_at >= STEADY_SECONDS:
                self.back_off = FIRST_BACK_OFF
            log.warning(
                "the read tables' process ended (exit code %s): starting it again in %.1f s",
                projection.exitcode,
                self.back_off,
            )
            self.due, self.back_off = now + self.back_off, min(self.back_off * 2, MAX_BACK_OFF)
        elif now >= self.due:
            projection.start()
            self.restarts += 1
            self.started_at, self.due = now, None
            log.warning("the read tables' process started again (pid %s)", projection.pid)

    def health(self) -> dict[str, Any]:
        """The read tables' process: its state, pid and restarts."""
        if self.projection is None:
            return {"state": "not followed"}
        state = "running" if self.projection.alive else "restarting"
        return {"state": state, "pid": self.projection.pid, "restarts": self.restarts}


class CheckpointSigner:
    """Signs a checkpoint when the server starts and every `every` seconds after, when events were stored since
    the last (evo_ledger.game.checkpoints); each one is logged as it is published, to be kept outside the database,
    and the events it could not vouch for are logged by their game. `/health` names the events every checkpoint
    since the last acknowledged one could not vouch for, as the checkpoint log says when it is asked (as it said
    last, while a checkpoint is being taken)."""

    def __init__(self, ledger: Ledger, every: float) -> None:
        self.ledger, self.every = ledger, every
        self.last: dict[str, Any] | None = None
        self.failure: str | None = None
        self.seen: tuple[int, list[Unvouched]] | None = None  # as the checkpoint log said when last asked

    async def run(self) -> None:
        while True:
            await self.sign()
            await asyncio.sleep(self.every)

    async def sign(self) -> None:
        try:
            taken, new = await run_in_threadpool(self.ledger.commands.take_checkpoint)
        except CheckpointError as error:
            self.failure = str(error)
            log.warning("no checkpoint was signed: %s", error)
            return
        except Exception as error:
            self.failure = type(error).__name__
            log.exception("no checkpoint was signed; trying again in %.0f s", self.every)
            return
        self.last, self.failure = taken, None
        if new:
            log.info("checkpoint signed: %s", json.dumps(taken, sort_keys=True))
            unvouched = await run_in_threadpool(self.ledger.vouched.unvouched_by_last_checkpoint)
            if unvouched:
                log.warning("%s", unvouched_words(taken["number"], unvouched))

    def health(self, caller: Caller) -> tuple[bool, dict[str, Any]]:
        """Whether checkpoints leave the server degraded (the last attempt to sign one failed, or one since the
        last acknowledged could not vouch for every event it examined), and what `/health` says of them: the last
        signed (its number and position), why the last attempt failed, if it did, the last acknowledged, and the
        events the checkpoints after it could not vouch for (`unvouched`, the first 20 runs of them: by their game
        as the readers name it to the caller, `game_named_for`; the events; the checkpoint; the reason, and in words;
        `unvouched_count`). Until the checkpoint log was first read (the first checkpoint is being taken), it is
        degraded, `acknowledged` and `unvouched_count` null."""
        self.seen = self.ledger.vouched.unvouched_unless_signing(wait=False) or self.seen
        acknowledged, unvouched = self.seen or (None, [])
        last = self.last or {}
        body = {
            "tamper_evidence": True,
            "last": last.get("number"),
            "position": last.get("position"),
            "failure": self.failure,
            "acknowledged": acknowledged,
            "unvouched": [unvouched_shown(run, caller) for run in unvouched[:UNVOUCHED_SHOWN]],
            "unvouched_count": sum(run.count for run in unvouched) if self.seen is not None else None,
        }
        return self.failure is not None or self.seen is None or bool(unvouched), body


def unvouched_shown(run: Unvouched, caller: Caller) -> dict[str, Any]:
    shown = {"events": [run.first, run.last], "checkpoint": run.checkpoint, "reason": run.reason, "why": run.why}
    return game_named_for(caller, run.game_id) | shown
