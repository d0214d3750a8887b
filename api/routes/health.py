"""`/health`: each of the server's processes and how far the read tables lag behind the log."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from projections.store import ReadStore

router = APIRouter(tags=["health"])


@router.get("/health", operation_id="health")
def health(request: Request) -> JSONResponse:
    """`ok` (200) while the writer and the read tables' process run, `degraded` (503) otherwise; the read tables'
    `position` in the log, the log's, and the `lag` between them."""
    state = request.app.state
    writer: dict[str, Any] = state.writer.health()
    read_tables: dict[str, Any] = state.supervisor.health()
    store: ReadStore = state.read_store
    position, log_position = store.position(), state.ledger.recorder.max_notification_id() or 0
    read_tables |= {"position": position, "log_position": log_position, "lag": max(0, log_position - position)}
    ok = writer["state"] == "running" and read_tables["state"] in ("running", "not followed")
    body = {"status": "ok" if ok else "degraded", "writer": writer, "read_tables": read_tables}
    return JSONResponse(body, status_code=200 if ok else 503)
