"""`/health`: each of the server's processes, how far the read tables lag behind the log, and the events they set
aside."""

from __future__ import annotations

import time
from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.deps import CallerDep
from api.read_only import replica_health
from api.supervision import NO_TAMPER_EVIDENCE
from evo_ledger.app.readers import game_named_for
from evo_ledger.store.recorders import replication_of
from projections.store import ReadStore

router = APIRouter(tags=["health"])
SET_ASIDE_SHOWN = 20


@router.get("/health", operation_id="health")
def health(request: Request, caller: CallerDep) -> JSONResponse:
    """`ok` (200) while the writer and the read tables' process run (or another server runs the latter), the
    tables have set no event aside and, run here, are not `stalled` (behind the log and not moved on for 30 s, as
    the health checks saw them), `degraded` (503) otherwise; the jobs that run in one server of those on the
    database (`jobs`: `read_tables`, `checkpoints`), each `held` where this server runs it,
    `waiting` where another holds its lease, with why the last try to ask for it failed (`failure`, null while the
    database answers); the read tables' `position` in the log, the log's, the `lag` between them, and the
    events set aside (`set_aside`, the first 20 by their position in the log, and `set_aside_count`): each by its
    game as the readers name it to the caller (`game_named_for`: to the admin only, as a game may be private), its
    version there, its position and the type of the error that stopped it. With a seal key, the last checkpoint
    signed, the last an admin acknowledged and the events the checkpoints after it could not vouch for
    (`checkpoints`, their games named alike), and `degraded` while signing one fails or until an admin
    acknowledges those events (`evo-ledger checkpoint --acknowledge`); without one, that the server offers no
    tamper evidence. On a read-only server, `replication`: whether its store is a streaming replica, and if so
    whether it receives its primary's log now and how far it lags (`lag_bytes` received and not yet replayed,
    `lag_seconds` the age of the last transaction replayed while some remain, `replayed_at`): `degraded` while it
    does not receive, or lags by more than LAG_DEGRADED_SECONDS, as what it serves no longer follows the
    primary."""
    state = request.app.state
    writer: dict[str, Any] = state.writer.health()
    read_tables, jobs = anyio.from_thread.run_sync(processes_at_once, state)
    store: ReadStore = state.read_store
    position, log_position = store.position(), state.ledger.store.recorder.max_notification_id() or 0
    lag = max(0, log_position - position)
    stalled = state.supervisor.stalled(position, lag, time.monotonic())
    read_tables |= {"position": position, "log_position": log_position, "lag": lag, "stalled": stalled}
    set_aside = [
        game_named_for(caller, event.game_id) | {"event": event.event, "position": event.position, "error": event.error}
        for event in store.set_aside(SET_ASIDE_SHOWN)
    ]
    read_tables |= {"set_aside": set_aside, "set_aside_count": store.set_aside_count() if set_aside else 0}
    writing = writer["state"] in ("running", "read-only")
    running = writing and read_tables["state"] in ("running", "not followed", "waiting", "replicated")
    ok = running and not set_aside and not stalled
    body = {"status": "ok" if ok else "degraded", "writer": writer, "read_tables": read_tables}
    if state.settings.store.read_only:
        receiving, body["replication"] = replica_health(replication_of(state.ledger.store.recorder))
        ok = ok and receiving
        body["status"] = "ok" if ok else "degraded"
    body["jobs"] = jobs
    signer = state.checkpoints
    if signer is not None:
        degraded, body["checkpoints"] = signer.health(caller)
        if degraded:
            body["status"], ok = "degraded", False
    elif state.ledger.store.sealer is None:
        body["checkpoints"] = NO_TAMPER_EVIDENCE
    return JSONResponse(body, status_code=200 if ok else 503)


def processes_at_once(state: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The read tables' process and the jobs under leases as they stand at one moment: read on the event loop,
    where a lease won or lost starts or stops the process and its job together."""
    return state.supervisor.health(), state.jobs.health()
