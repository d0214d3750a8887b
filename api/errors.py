"""Domain errors mapped to HTTP once: every refusal is a JSON body with a machine-readable `code` and a `message`
(and the `ruling` for a rule violation). Bad input is never a 500."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from evo_ledger.app.access import (
    AccessNotVouched,
    AlreadyWithdrawn,
    CoRecorderNameRefused,
    CoRecorderTaken,
    HiddenGame,
    NotWithdrawn,
    RecorderRefused,
    TokenRequired,
    UnknownCoRecorder,
    WithdrawalReasonRefused,
)
from evo_ledger.app.competitions import (
    GameInCompetition,
    GameNotInCompetition,
    InvalidCompetition,
    OrganiserTokenRefused,
    OrganiserTokenRequired,
    UnknownCompetition,
    UnknownSeason,
)
from evo_ledger.app.disputes import NotExplainable
from evo_ledger.app.ledger import Contention, GameReferenceError, IdempotencyKeyReused, ReplacedGame, UnknownGame
from evo_ledger.app.people import (
    AlreadyErased,
    InvalidPersonName,
    InvalidSeatId,
    MergeCycle,
    MergeIntoItself,
    NotYourPeople,
    OwnSeatId,
    PersonMerged,
    PersonPrivate,
    SeatIdLinked,
    SeatIdNotLinked,
    UnknownPerson,
)
from evo_ledger.app.readers import (
    DelayedBroadcast,
    HiddenEvent,
    HiddenFacts,
    NotYetBroadcast,
    PerspectiveRefused,
    UnknownPerspective,
)
from evo_ledger.app.stored_kits import InvalidKit, KitBuiltIn, KitInUse, KitTooLarge, TooManyKits, UnknownKit
from evo_ledger.app.transfer import BundleError, IllegalAction
from evo_ledger.app.writer import WriterProcessLost
from evo_ledger.game.aggregate import GameTooLong, NothingToUndo, UnknownEvent
from evo_ledger.game.checker import GameSetupError
from evo_ledger.game.notation import GameFileError
from evo_ledger.rules import UnknownRuleset
from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.kits import KitError
from evo_ledger.rules.structured import ActionDataError
from evo_ledger.rules.text import NotationError


class ApiError(Exception):
    """A refusal the API makes itself: a status, a code and a message, the headers it is sent with, and what else
    its body says (`extra`, fields of `Problem`)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})


def problem(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status)


# What pydantic puts before the message of an error a validator raised.
VALIDATOR_PREFIX = "Value error, "
# Exception type: (status, code).
MAPPED: dict[type[Exception], tuple[int, str]] = {
    UnknownGame: (404, "unknown_game"),
    HiddenGame: (404, "unknown_game"),
    ActionDataError: (422, "action_data_error"),
    GameReferenceError: (404, "unknown_game"),
    Contention: (409, "contention"),
    IdempotencyKeyReused: (422, "idempotency_key_reused"),
    NotationError: (422, "notation_error"),
    GameFileError: (422, "game_file_error"),
    GameSetupError: (422, "setup_error"),
    SetupError: (422, "setup_error"),
    UnknownRuleset: (422, "setup_error"),
    KitError: (422, "kit_error"),
    BundleError: (422, "bundle_error"),
    HiddenEvent: (404, "hidden_event"),
    DelayedBroadcast: (409, "delayed_broadcast"),
    UnknownPerspective: (422, "unknown_perspective"),
    PerspectiveRefused: (403, "perspective_refused"),
    GameTooLong: (422, "game_too_long"),
    NothingToUndo: (422, "nothing_to_undo"),
    CoRecorderTaken: (409, "co_recorder_exists"),
    CoRecorderNameRefused: (422, "invalid_request"),
    UnknownCoRecorder: (404, "unknown_co_recorder"),
    WithdrawalReasonRefused: (422, "invalid_request"),
    AlreadyWithdrawn: (409, "already_withdrawn"),
    NotWithdrawn: (409, "not_withdrawn"),
    UnknownEvent: (422, "unknown_event"),
    NotExplainable: (422, "not_explainable"),
    WriterProcessLost: (503, "writer_restarted"),
    AccessNotVouched: (503, "access_not_vouched"),
    ReplacedGame: (409, "checkpointed_game"),
    InvalidKit: (422, "invalid_kit"),
    KitTooLarge: (413, "kit_too_large"),
    TooManyKits: (409, "too_many_kits"),
    UnknownKit: (404, "unknown_kit"),
    KitInUse: (409, "kit_in_use"),
    KitBuiltIn: (409, "kit_built_in"),
    InvalidPersonName: (422, "invalid_request"),
    InvalidSeatId: (422, "invalid_request"),
    UnknownPerson: (404, "unknown_person"),
    MergeIntoItself: (422, "merge_into_itself"),
    PersonMerged: (409, "person_merged"),
    AlreadyErased: (409, "already_erased"),
    MergeCycle: (409, "merge_cycle"),
    SeatIdLinked: (409, "seat_id_linked"),
    SeatIdNotLinked: (409, "seat_id_not_linked"),
    OwnSeatId: (409, "own_seat_id"),
    PersonPrivate: (409, "person_private"),
    NotYourPeople: (403, "not_your_people"),
    InvalidCompetition: (422, "invalid_request"),
    UnknownCompetition: (404, "unknown_competition"),
    UnknownSeason: (404, "unknown_season"),
    GameInCompetition: (409, "game_in_competition"),
    GameNotInCompetition: (404, "game_not_in_competition"),
    OrganiserTokenRequired: (401, "token_required"),
    OrganiserTokenRefused: (403, "token_refused"),
}


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    def api_error(_: Request, error: ApiError) -> JSONResponse:
        response = problem(error.status, error.code, error.message, **error.extra)
        response.headers.update(error.headers)
        return response

    @app.exception_handler(RecorderRefused)
    def recorder_refused(_: Request, error: RecorderRefused) -> JSONResponse:
        return problem(401 if isinstance(error, TokenRequired) else 403, error.code, str(error))

    @app.exception_handler(HiddenFacts)
    def hidden_facts(_: Request, error: HiddenFacts) -> JSONResponse:
        return problem(403, error.code, str(error))

    @app.exception_handler(NotYetBroadcast)
    def not_yet_broadcast(_: Request, error: NotYetBroadcast) -> JSONResponse:
        extra = {"broadcast_starts_at": error.starts, "broadcast_delay": error.delay}
        return problem(404, error.code, str(error), **extra)

    @app.exception_handler(RuleViolation)
    def rule_violation(_: Request, violation: RuleViolation) -> JSONResponse:
        return problem(422, "rule_violation", violation.message, ruling=violation.ruling)

    @app.exception_handler(IllegalAction)
    def illegal_action(_: Request, error: IllegalAction) -> JSONResponse:
        violation = error.violation
        return problem(422, "rule_violation", str(error), ruling=violation.ruling, line=error.line.line)

    @app.exception_handler(RequestValidationError)
    def invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        details = [
            {"where": ".".join(map(str, e["loc"])), "problem": e["msg"].removeprefix(VALIDATOR_PREFIX)}
            for e in error.errors()
        ]
        where = "; ".join(f"{d['where']}: {d['problem']}" for d in details)
        return problem(422, "invalid_request", f"the request is not valid: {where}", details=details)

    @app.exception_handler(HTTPException)
    def http_error(_: Request, error: HTTPException) -> JSONResponse:
        return http_problem(error)

    for exception_type, (status, code) in MAPPED.items():
        app.add_exception_handler(exception_type, _handler(status, code))


HTTP_CODES = {400: "unreadable_body", 404: "not_found", 405: "method_not_allowed", 408: "body_timeout"}


def http_problem(error: HTTPException) -> JSONResponse:
    """An HTTP error (a body that came too slowly, a route not found) as every refusal is answered."""
    code = HTTP_CODES.get(error.status_code, "http_error")
    response = problem(error.status_code, code, str(error.detail))
    response.headers.update(error.headers or {})
    return response


def _handler(status: int, code: str) -> Any:
    def handle(_: Request, error: Exception) -> JSONResponse:
        return problem(status, code, str(error))

    return handle
