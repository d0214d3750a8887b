"""`/v1/rules`: what each ruling id means, so that any refusal's `ruling` can be looked up."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter

from api import schemas
from api.errors import ApiError
from evo_ledger.rules.reference import UnknownRuling, reference, ruling

router = APIRouter(prefix=schemas.API_PREFIX, tags=["rules"])


@router.get("/rules", response_model=schemas.RulingList, operation_id="list_rulings")
def list_rulings() -> schemas.RulingList:
    """Every ruling id the installed rulesets name, in id order."""
    return schemas.RulingList(rulings=[schemas.Ruling(**asdict(found)) for found in reference().values()])


@router.get(
    "/rules/{ruling_id}",
    response_model=schemas.Ruling,
    operation_id="get_ruling",
    responses={404: {"description": "no such ruling (`unknown_ruling`)"}},
)
def get_ruling(ruling_id: str) -> schemas.Ruling:
    """What the ruling means: a refusal's `ruling`, in any case."""
    try:
        return schemas.Ruling(**asdict(ruling(ruling_id)))
    except UnknownRuling as error:
        raise ApiError(404, "unknown_ruling", str(error)) from None
