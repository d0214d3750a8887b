"""What a change another overtook is answered (409 `version_conflict`): nothing was stored, and what was stored since
the version it expected, each event as the caller may see it (the events' own reading for its reader), so that a
device that lost a race tells its person what the other device recorded."""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from api import schemas
from api.deps import reader, token_of
from api.errors import ApiError, problem
from api.routes.events import page_in
from evo_ledger.app.access import HiddenGame
from evo_ledger.app.ledger import Ledger, UnknownGame, VersionConflict
from evo_ledger.app.readers import NotYetBroadcast, latest_for

CODE: Final = "version_conflict"


def install(app: FastAPI) -> None:
    app.exception_handler(VersionConflict)(overtaken)


def overtaken(request: Request, conflict: VersionConflict) -> JSONResponse:
    """The conflict with what was stored since, for the caller as a reader of the game; told bare where the caller
    does not see the game (an import racing another of the same game)."""
    try:
        told = told_to_caller(request, conflict)
    except (ApiError, HiddenGame, UnknownGame, NotYetBroadcast):
        told = None
    if told is None:
        return problem(409, CODE, str(conflict))
    return JSONResponse(told.model_dump(mode="json"), status_code=409)


def told_to_caller(request: Request, conflict: VersionConflict) -> schemas.VersionConflictProblem | None:
    if conflict.expected is None:
        return None
    ledger: Ledger = request.app.state.ledger
    caller = reader(str(conflict.game_id), request, ledger, token_of(request.headers.get("authorization")))
    game = latest_for(caller, ledger)
    since = page_in(ledger, caller, game, conflict.expected, schemas.RECORDED_SHOWN)
    return schemas.VersionConflictProblem(
        code=CODE,
        message=str(conflict),
        expected_version=conflict.expected,
        version=game.version,
        recorded=since.events,
        next_after=since.next_after,
    )
