"""Disputes over HTTP: the audit of a game, the explanation of an event and a what-if branch, each the same
canonical report, byte for byte, as the command line's `--json`."""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from api import schemas
from api.deps import LedgerDep, Reader, ReaderDep
from api.errors import ApiError
from api.whole_log_reads import TOO_MANY_ANSWER, AuditAsked, AuditCache, KeptAudit, whole_log_read
from evo_ledger.app.audit import CanonicalReport
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.readers import audit_for, branch_for, check_live, explanation_for, sight_of
from evo_ledger.game.aggregate import Game

router = APIRouter(prefix=schemas.API_PREFIX, tags=["audit"], responses=schemas.PROBLEMS)
Report = TypeVar("Report", bound=CanonicalReport)


@router.get(
    "/games/{game_id}/audit",
    operation_id="audit",
    responses={
        200: {"content": {"application/json": {}}, "description": "the audit report, canonical JSON"},
        **TOO_MANY_ANSWER,
    },
)
def audit(
    reader: ReaderDep,
    ledger: LedgerDep,
    request: Request,
    event: Annotated[
        int | None, Query(ge=1, le=schemas.MAX_EVENT_NUMBER, description="audit the log up to this event")
    ] = None,
    expect_head: Annotated[
        str | None, Query(pattern="^[0-9a-f]{64}$", description="a receipt's head hash: shows a cut end")
    ] = None,
) -> Response:
    """The game's log checked from its first event: the sequence, each hash and the chain, the setup it pinned,
    every action and consequence by the rules, and a receipt's head. The verdict is `clean`, `damaged` or
    `rules changed`; the first divergence names its event. The report carries its own hash. A game broadcast with
    a delay is audited for a reader without a token once the game ends (409 `delayed_broadcast`). The server keeps
    an audit for a minute, for readers who see what its reader saw, while the game's stored head (and, with the
    seal key, the checkpoints) stay as they were. A reader without a token is limited in the audits it asks for
    that are not kept (429 `too_many_whole_log_reads`), and the server makes at most
    `ApiSettings.whole_log_reads_at_once` audits and exports at once, for any reader but the admin (429
    `whole_log_reads_busy`)."""
    check_live(reader, ledger, "audits")
    game = ledger.queries.game(reader.game_id)
    asked = AuditAsked(game.id, ledger.queries.audit_basis(game.id), event, expect_head, sight_of(reader, game))
    audits: AuditCache = request.app.state.audits
    kept = audits.get(asked)
    if kept is None:
        with whole_log_read(request, reader, "audits"):
            kept = made_audit(reader, ledger, game, asked, audits)
    return Response(kept.body, media_type="application/json", headers={"X-Report-Hash": kept.report_hash})


def made_audit(reader: Reader, ledger: Ledger, game: Game, asked: AuditAsked, audits: AuditCache) -> KeptAudit:
    """The audit made for the reader, kept if nothing was stored while it was made: it is then the audit of the
    game as the reader's sight of it was taken."""
    report = audit_for(reader, ledger, game, asked.up_to, asked.expect_head)
    made = KeptAudit(report.canonical, report.hash)
    if asked.basis.version == game.version and ledger.queries.audit_basis(game.id) == asked.basis:
        audits.keep(asked, made)
    return made


EventNumber = Annotated[
    int, Path(ge=1, le=schemas.MAX_EVENT_NUMBER, description="the event's version in the game's log")
]


@router.get(
    "/games/{game_id}/events/{event}/explanation",
    operation_id="explain",
    responses={200: {"content": {"application/json": {}}, "description": "the explanation, canonical JSON"}},
)
def explain(reader: ReaderDep, ledger: LedgerDep, event: EventNumber) -> Response:
    """Why the rules decided as they did about the part of the game (a combat, a survival phase...) the event
    belongs to: every number they used, as data and in words. 422 `not_explainable` for any other event."""
    check_live(reader, ledger, "explanations")
    return report_response(explanation_for(reader, ledger, ledger.queries.game(reader.game_id), event))


@router.get(
    "/games/{game_id}/events/{event}/what-if",
    operation_id="what_if",
    responses={200: {"content": {"application/json": {}}, "description": "the branch's report, canonical JSON"}},
)
def what_if(
    reader: ReaderDep,
    ledger: LedgerDep,
    event: EventNumber,
    replace: Annotated[
        str | None, Query(max_length=200, description="the action, in notation, to put in the event's place")
    ] = None,
    drop: Annotated[bool, Query(description="leave the event's action out")] = False,
) -> Response:
    """The game folded again in a branch with the event's action replaced or dropped, the later actions played
    on while the rules allow them, and the recorded and the branch's standings side by side. The log is never
    touched. A replacement whose legality rests on facts hidden from the reader (another seat's hand, a peek) is
    refused with 403 `hidden_facts`; a refusal in the branch is told as the reader may see it."""
    if (replace is None) == (not drop):
        raise ApiError(422, "invalid_request", "give either replace=ACTION or drop=true")
    check_live(reader, ledger, "branches")
    game = ledger.queries.game(reader.game_id)
    replacement = ledger.queries.seats.in_labels(game, replace) if replace is not None else None
    return report_response(branch_for(reader, ledger, game, event, replacement))


def report_response(report: CanonicalReport) -> Response:
    return Response(report.canonical, media_type="application/json", headers={"X-Report-Hash": report.hash})
