"""A server that serves its store read only (`evo-ledger serve --read-only`, on a PostgreSQL streaming replica):
each write is answered 503 `read_only` before its body is read, and `/health` says how far the replica lags."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError

from api.errors import problem
from evo_ledger.app.writer import READ_ONLY_REFUSAL, ReadOnlyServer
from evo_ledger.store.recorders import DATABASE_ERRORS, Replication, replica_refusal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STATUS, CODE = 503, "read_only"
# A replica further behind its primary is `degraded`: what it serves, a game made private or a token replaced
# there included, has not followed the primary for that long.
LAG_DEGRADED_SECONDS = 30.0


class WritesRefused:
    """Answers every request that may write (any method but GET, HEAD and OPTIONS) 503 `read_only`, whatever its
    route: nothing it sends is read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in READING_METHODS:
            await self.app(scope, receive, send)
            return
        await refusal()(scope, receive, send)


def refusal() -> JSONResponse:
    return problem(STATUS, CODE, READ_ONLY_REFUSAL)


def install(app: FastAPI) -> None:
    """Writes refused before their routes, and a write that reaches the database anyway (a replica refuses it)
    answered as one refused; a read the replica cancelled answered so."""
    app.add_middleware(WritesRefused)
    app.add_exception_handler(ReadOnlyServer, lambda _request, _error: refusal())
    # SQLAlchemy wraps the errors of the read tables' connections.
    for kind in (*DATABASE_ERRORS, DBAPIError):
        app.add_exception_handler(kind, refused_by_the_database)


REFUSALS = {
    "replica_conflict": "the replica cancelled this read to replay its primary's log: ask again",
    "read_tables_changed": "the read tables changed under this server (a server of another version made them "
    "again on the primary): restart it",
}


def refused_by_the_database(_: Request, error: Exception) -> JSONResponse:
    """A write the replica refused answered as every write here; a read it cancelled to replay its primary's log
    503 `replica_conflict`, to be asked again; a read of a table made again under the server 503
    `read_tables_changed`; any other error is raised on."""
    refusal_code = replica_refusal(error)
    if refusal_code == CODE:
        return refusal()
    if refusal_code is None:
        raise error
    answer = problem(STATUS, refusal_code, REFUSALS[refusal_code])
    if refusal_code == "replica_conflict":
        answer.headers["Retry-After"] = "1"
    return answer


def replica_health(replication: Replication) -> tuple[bool, dict[str, Any]]:
    """Whether the store is fit to read from (not a replica, or one that receives its primary's log now and is
    at most LAG_DEGRADED_SECONDS behind it), and the replica's lag as `/health` gives it."""
    if not replication.in_recovery:
        return True, {"replica": False}
    replayed_at = replication.replayed_at.isoformat() if replication.replayed_at else None
    behind = (replication.lag_seconds or 0.0) > LAG_DEGRADED_SECONDS
    return replication.receiving and not behind, {
        "replica": True,
        "receiving": replication.receiving,
        "lag_bytes": replication.lag_bytes,
        "lag_seconds": replication.lag_seconds,
        "replayed_at": replayed_at,
    }
