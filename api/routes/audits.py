"""The audit of a game over HTTP: the same canonical report, byte for byte, as `evo-ledger audit --json`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from api import schemas
from api.deps import LedgerDep, ReaderDep, hidden_from
from api.errors import ApiError

router = APIRouter(tags=["audit"], responses=schemas.PROBLEMS)


@router.get(
    "/games/{game_id}/audit",
    operation_id="audit",
    responses={200: {"content": {"application/json": {}}, "description": "the audit report, canonical JSON"}},
)
def audit(
    reader: ReaderDep,
    ledger: LedgerDep,
    event: Annotated[int | None, Query(ge=1, description="audit the log up to this event")] = None,
    expect_head: Annotated[
        str | None, Query(pattern="^[0-9a-f]{64}$", description="a receipt's head hash: shows a cut end")
    ] = None,
) -> Response:
    """The game's log checked from its first event: the sequence, each hash and the chain, the setup it pinned,
    every action and consequence by the rules, and a receipt's head. The verdict is `clean`, `damaged` or
    `rules changed`; the first divergence names its event. The report carries its own hash."""
    game = ledger.game(reader.game_id)
    if hidden_from(reader, ledger, game):
        raise ApiError(403, "hidden_until_over", "the log holds hidden actions: only the recorder may audit it now")
    report = ledger.audit(reader.game_id, up_to=event, expect_head=expect_head)
    return Response(report.canonical, media_type="application/json", headers={"X-Report-Hash": report.hash})
