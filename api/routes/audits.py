"""Disputes over HTTP: the audit of a game, the explanation of an event and a what-if branch, each the same
canonical report, byte for byte, as the command line's `--json`."""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from api import schemas
from api.deps import LedgerDep, Reader, ReaderDep, Visibility, visibility
from api.errors import ApiError
from evo_ledger.audit import CanonicalReport
from evo_ledger.ledger import Ledger

router = APIRouter(tags=["audit"], responses=schemas.PROBLEMS)
Report = TypeVar("Report", bound=CanonicalReport)


@router.get(
    "/games/{game_id}/audit",
    operation_id="audit",
    responses={200: {"content": {"application/json": {}}, "description": "the audit report, canonical JSON"}},
)
def audit(
    reader: ReaderDep,
    ledger: LedgerDep,
    event: Annotated[
        int | None, Query(ge=1, le=schemas.MAX_EVENT_NUMBER, description="audit the log up to this event")
    ] = None,
    expect_head: Annotated[
        str | None, Query(pattern="^[0-9a-f]{64}$", description="a receipt's head hash: shows a cut end")
    ] = None,
) -> Response:
    """The game's log checked from its first event: the sequence, each hash and the chain, the setup it pinned,
    every action and consequence by the rules, and a receipt's head. The verdict is `clean`, `damaged` or
    `rules changed`; the first divergence names its event. The report carries its own hash."""
    seen = visibility(reader, ledger, ledger.game(reader.game_id))
    return report_response(for_reader(ledger.audit(reader.game_id, up_to=event, expect_head=expect_head), seen))


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
    seen = not_hidden(reader, ledger, event)
    return report_response(for_reader(ledger.explain(reader.game_id, event), seen))


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
    touched."""
    if (replace is None) == (not drop):
        raise ApiError(422, "invalid_request", "give either replace=ACTION or drop=true")
    seen = not_hidden(reader, ledger, event)
    return report_response(for_reader(ledger.what_if(reader.game_id, event, replace), seen))


def for_reader(report: Report, seen: Visibility) -> Report:
    """The report with what the reader may not see left out, and said to be (`left_out` in the report)."""
    return report.left_out(seen.hidden, seen.withheld_hashes)


def not_hidden(reader: Reader, ledger: Ledger, event: int) -> Visibility:
    """What the reader may see of the game, refused if `event` is an action hidden from it: that is neither
    explained nor branched from for it."""
    seen = visibility(reader, ledger, ledger.game(reader.game_id))
    if event in seen.hidden:
        raise ApiError(404, "hidden_event", f"event {event} is an action hidden from this reader until it is revealed")
    return seen


def report_response(report: CanonicalReport) -> Response:
    return Response(report.canonical, media_type="application/json", headers={"X-Report-Hash": report.hash})
