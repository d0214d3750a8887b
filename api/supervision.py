"""The server's processes kept running: the read tables' process, started again (with a back-off if it keeps
ending) and logged; the writing process, which its writer starts again itself when it ends; and their health.
Beside them, the checkpoints the server signs at an interval. The read tables' process and the checkpoints are
jobs that run once among the servers on one database: each runs in the server that holds its lease
(`LeasedJobs`)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import Caller, game_named_for
from evo_ledger.app.writer import Writer
from evo_ledger.game.checkpoints import CheckpointError, CheckpointRace, Unvouched, unvouched_words
from evo_ledger.settings import Settings
from evo_ledger.store.leases import RETRY_SECONDS, Lease, lease_on
from projections.runner import BackgroundProjection

log = logging.getLogger(__name__)
CHECK_SECONDS = 0.5
FIRST_BACK_OFF, MAX_BACK_OFF = 0.5, 30.0
# A process that ran this long before it ended is started again at once, its back-off forgotten.
STEADY_SECONDS = 60.0
UNVOUCHED_SHOWN = 20
# The read tables, run here, behind the log and not moved on for this long, as `/health` saw them: degraded. Longer
# than any pause of a runner that goes on (a page under load, a lock waited for and the runner started again).
STALLED_SECONDS = 30.0
# How long a checkpoint being taken as signing stops is waited for, before the lease is given up without it.
SIGN_STOP_SECONDS = 10.0
# How many times in a row a checkpoint another server stored first is taken again at once.
RACE_RETRIES = 3
# What `/health` says of a server without a seal key.
NO_TAMPER_EVIDENCE = {
    "tamper_evidence": False,
    "why": "the server has no seal key (EVO_LEDGER_SEAL_KEY): it seals no event and signs no checkpoint, so a log "
    "changed by whoever holds the database does not show",
}


class Supervisor:
    """Watches the server's processes every half second: the writer starts its own again; the read tables'
    process, while this server runs it (`follow`), is started again here."""

    def __init__(self, writer: Writer, projection: BackgroundProjection | None, replicated: bool = False) -> None:
        """`replicated`: the read tables are read as a replica of the database receives them, kept by the
        server that writes them."""
        self.writer, self.projection, self.replicated = writer, projection, replicated
        self.following = False
        self.last_move: tuple[int, float] | None = None  # the position `/health` last saw the tables at, and since when
        self.restarts = 0
        self.back_off = FIRST_BACK_OFF
        self.started_at = time.monotonic()
        self.due: float | None = None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            self.writer.supervise()
            if self.projection is not None and self.following:
                self.check(self.projection, time.monotonic())

    def follow(self) -> None:
        """The read tables' process started, and kept running from now on: this server holds their lease."""
        assert self.projection is not None
        self.projection.start()
        self.following, self.started_at, self.due, self.last_move = True, time.monotonic(), None, None

    async def stop_following(self) -> None:
        """The read tables' process stopped, and no longer started again: another server may hold their lease."""
        assert self.projection is not None
        self.following = False
        await asyncio.to_thread(self.projection.stop)

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

    def stalled(self, position: int, lag: int, now: float) -> bool:
        """Whether the read tables, run here, are behind the log at `position` and have not moved on for
        STALLED_SECONDS, as the health checks saw them (the first to see them behind at a position starts the
        count)."""
        if not self.following or lag == 0:
            self.last_move = None
            return False
        if self.last_move is None or self.last_move[0] != position:
            self.last_move = (position, now)
            return False
        return now - self.last_move[1] >= STALLED_SECONDS

    def health(self) -> dict[str, Any]:
        """The read tables' process: its state, pid and restarts; `waiting` while another server holds their
        lease; `not followed` where no server may be running it, and `replicated` on a read-only server."""
        if self.projection is None:
            return {"state": "replicated" if self.replicated else "not followed"}
        if not self.following:
            return {"state": "waiting"}
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
        self.signing: asyncio.Task[None] | None = None
        self.taking: asyncio.Future[tuple[dict[str, Any], bool]] | None = None  # a checkpoint's thread, as it goes

    def start(self) -> None:
        """Signing started, a checkpoint at once: this server holds the checkpoints' lease."""
        self.signing = asyncio.create_task(self.run())

    async def stop(self) -> None:
        """Signing stopped (another server may hold the lease) once a checkpoint being taken is stored or refused,
        waited for SIGN_STOP_SECONDS at most, so that none is stored after the lease is given up: why its last
        attempt failed goes with it."""
        signing, self.signing = self.signing, None
        if signing is not None:
            signing.cancel()
            ending = {task for task in (signing, self.taking) if task is not None and not task.done()}
            _, going_on = await asyncio.wait(ending, timeout=SIGN_STOP_SECONDS)
            if going_on:
                log.warning("signing stopped with a checkpoint still being taken after %.1f s", SIGN_STOP_SECONDS)
        self.failure = None

    async def run(self) -> None:
        while True:
            await self.sign()
            await asyncio.sleep(self.every)

    async def sign(self) -> None:
        try:
            taken, new = await self.taken()
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

    async def taken(self) -> tuple[dict[str, Any], bool]:
        """A checkpoint taken (`take_checkpoint`), and taken again at once when another server stored one first
        (up to RACE_RETRIES times): its holder before this one, signing still as the lease moved."""
        for _ in range(RACE_RETRIES):
            try:
                return await self.taken_in_thread()
            except CheckpointRace:
                log.info("another server stored a checkpoint as this one took its own: taking it again")
        return await self.taken_in_thread()

    async def taken_in_thread(self) -> tuple[dict[str, Any], bool]:
        """A checkpoint taken in a thread, kept as `taking` for `stop` to wait for: the signer's task cancelled
        stops waiting for it, but the thread goes on until the checkpoint is stored or refused."""
        self.taking = asyncio.ensure_future(run_in_threadpool(self.ledger.commands.take_checkpoint))
        self.taking.add_done_callback(outcome_read)
        return await asyncio.shield(self.taking)

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


def outcome_read(taking: asyncio.Future[Any]) -> None:
    """A checkpoint's outcome read as its thread ends: an error no one awaits any longer is not logged as lost."""
    if not taking.cancelled():
        taking.exception()


def unvouched_shown(run: Unvouched, caller: Caller) -> dict[str, Any]:
    shown = {"events": [run.first, run.last], "checkpoint": run.checkpoint, "reason": run.reason, "why": run.why}
    return game_named_for(caller, run.game_id) | shown


READ_TABLES_LEASE, CHECKPOINTS_LEASE = "read tables", "checkpoints"


class LeasedJob:
    """A job that runs in one server at a time among those on one database: started when this server takes its
    lease, stopped when it loses it, its lease given up when the server stops."""

    def __init__(self, lease: Lease, start: Callable[[], None], stop: Callable[[], Awaitable[None]]) -> None:
        self.lease, self.start, self.stop = lease, start, stop
        self.running = False

    async def keep(self) -> None:
        """Every RETRY_SECONDS, the lease asked for while another holds it, or checked while this server does."""
        while True:
            await asyncio.sleep(RETRY_SECONDS)
            try:
                await self.step()
            except Exception:
                log.exception("the %s could not be started or stopped; trying again", self.lease.name)

    async def step(self) -> None:
        """The lease asked for, or checked: the job started once it is won, stopped once it is lost."""
        held = await asyncio.to_thread(self.lease.hold)
        if held and not self.running:
            self.start()
            self.running = True
            log.info("this server runs the %s: it holds their lease", self.lease.name)
        elif not held and self.running:
            log.warning("this server stops the %s: it lost their lease", self.lease.name)
            self.running = False
            await self.stop()

    async def close(self) -> None:
        if self.running:
            self.running = False
            await self.stop()
        await asyncio.to_thread(self.lease.release)

    def health(self) -> dict[str, str | None]:
        """`held` while this server runs the job, else `waiting`; why the last try to take or check its lease
        failed (`failure`, None while the database answers)."""
        return {"state": "held" if self.running else "waiting", "failure": self.lease.failure}


class LeasedJobs:
    """The jobs that run once among the servers on one database: the read tables' process (where the server
    follows them) and the checkpoint signer (where it has a seal key), each under a lease of its own
    (evo_ledger.store.leases). One each rather than one for both: a server that does not run one of them (no seal
    key, or `--no-projections`) still takes the other, and the two loads may fall to different servers."""

    def __init__(self, store: Settings, supervisor: Supervisor, signer: CheckpointSigner | None) -> None:
        self.jobs: dict[str, LeasedJob] = {}
        if supervisor.projection is not None:
            lease = lease_on(store, READ_TABLES_LEASE)
            self.jobs["read_tables"] = LeasedJob(lease, supervisor.follow, supervisor.stop_following)
        if signer is not None:
            self.jobs["checkpoints"] = LeasedJob(lease_on(store, CHECKPOINTS_LEASE), signer.start, signer.stop)
        self.keeping: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Each lease asked for once and the jobs held started, before the server serves; then each kept."""
        for job in self.jobs.values():
            await job.step()
        self.keeping = [asyncio.create_task(job.keep()) for job in self.jobs.values()]

    async def aclose(self) -> None:
        """The leases no longer kept (their tasks ended), the jobs this server runs stopped and their leases given
        up: a try to take one still under way in its thread takes none after (`Lease.release`)."""
        for task in self.keeping:
            task.cancel()
        await asyncio.gather(*self.keeping, return_exceptions=True)
        for job in self.jobs.values():
            await job.close()

    def health(self) -> dict[str, dict[str, str | None]]:
        """Each job this server may run: `held` while it runs it, `waiting` while another server holds its lease
        (or the database cannot be reached to ask), with why the last try to ask failed (`failure`)."""
        return {name: job.health() for name, job in self.jobs.items()}
