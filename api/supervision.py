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
from evo_ledger.app.writer import Writer
from evo_ledger.game.checkpoints import CheckpointError
from projections.runner import BackgroundProjection

log = logging.getLogger(__name__)
CHECK_SECONDS = 0.5
FIRST_BACK_OFF, MAX_BACK_OFF = 0.5, 30.0
# A process that ran this long before it ended is started again at once, its back-off forgotten.
STEADY_SECONDS = 60.0


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
    the last (evo_ledger.game.checkpoints); each one is logged as it is published, to be kept outside the database."""

    def __init__(self, ledger: Ledger, every: float) -> None:
        self.ledger, self.every = ledger, every
        self.last: dict[str, Any] | None = None
        self.failure: str | None = None

    async def run(self) -> None:
        while True:
            await self.sign()
            await asyncio.sleep(self.every)

    async def sign(self) -> None:
        try:
            taken, new = await run_in_threadpool(self.ledger.take_checkpoint)
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

    def health(self) -> dict[str, Any]:
        """The last checkpoint signed (its number and position), and why the last attempt failed, if it did."""
        last = self.last or {}
        return {"last": last.get("number"), "position": last.get("position"), "failure": self.failure}
