"""Kits: those a new game may be set up with, built in and stored on the server, each with its content hash; a kit
stored (by anyone, as anyone may create a game), and a stored kit removed by the admin."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Response

from api import schemas
from api.deps import KitCallerDep, LedgerDep, require_admin
from evo_ledger.app.stored_kits import MAX_STORED_KIT_BYTES, UnknownKit, is_kit_hash
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.kits import builtin_kit_names, canonical_hash, load_kit_document, ruleset_of_kit

router = APIRouter(prefix=schemas.API_PREFIX, tags=["kits"], responses=schemas.PROBLEMS)
KIT_FORMAT = "a kit document, in the format its ruleset reads (docs/kits.md), naming its ruleset in `ruleset`"
KIT_HASH = "a kit's content hash, `sha256:` and 64 hex digits, as `GET /v1/kits` lists it"
KitHash = Annotated[str, Path(description=KIT_HASH)]
STORED_ANSWERS: dict[int | str, dict[str, Any]] = {
    201: {"description": "the kit, stored under its content hash"},
    200: {"model": schemas.KitSummary, "description": "the kit was stored already, or is built in: nothing is stored"},
    409: {"model": schemas.Problem, "description": "the caller holds as many stored kits as it may (`too_many_kits`)"},
    413: {
        "model": schemas.Problem,
        "description": f"the kit's document is over {MAX_STORED_KIT_BYTES:,} bytes as canonical JSON "
        "(`kit_too_large`), or the request's body over the server's limit (`body_too_large`)",
    },
    422: {"model": schemas.Problem, "description": "a kit its ruleset refuses, named by its field (`invalid_kit`)"},
}
REMOVED_ANSWERS: dict[int | str, dict[str, Any]] = {
    204: {"description": "the kit removed: an event of its record"},
    404: {"model": schemas.Problem, "description": "no kit stored has the hash (`unknown_kit`)"},
    409: {
        "model": schemas.Problem,
        "description": "a game was started on the kit (`kit_in_use`), or the kit is built in (`kit_built_in`)",
    },
}


@router.get("/kits", response_model=schemas.KitList, operation_id="list_kits")
def list_kits(ledger: LedgerDep) -> schemas.KitList:
    """The kits a new game may be set up with (`POST /v1/games`): the built-in kits by name, then those stored on
    the server by hash, in the order each was first stored; each with its content hash."""
    built_in = [summary_of(name, load_kit_document(name)[0], stored=False) for name in builtin_kit_names()]
    held = ledger.queries.stored_kits().items()
    stored = [summary_of(kit_hash, document, stored=True) for kit_hash, document in held]
    return schemas.KitList(kits=[*built_in, *stored])


@router.post(
    "/kits",
    status_code=201,
    response_model=schemas.KitSummary,
    operation_id="store_kit",
    responses=STORED_ANSWERS,
)
def store_kit(
    document: Annotated[dict[str, Any], Body(description=KIT_FORMAT)],
    ledger: LedgerDep,
    caller: KitCallerDep,
    response: Response,
) -> schemas.KitSummary:
    """Store a kit, checked by the ruleset it names as every kit is, under its content hash: a new game names it by
    that hash. 201 when it is stored; the same kit again (or a built-in kit's document) is the same kit, answered
    200 with the same body, and nothing is stored. A caller (by its address) holds at most
    `ApiSettings.kits_per_caller` stored kits; the admin is held to none."""
    kept = ledger.commands.store_kit(document, caller)
    if kept.already:
        response.status_code = 200
    reference = kept.built_in or kept.kit_hash
    return summary_of(reference, kept.document, stored=kept.built_in is None)


@router.get("/kits/{kit_hash}", response_model=dict[str, Any], operation_id="get_kit")
def get_kit(kit_hash: KitHash, ledger: LedgerDep) -> dict[str, Any]:
    """A kit's document, built in or stored, by its content hash (as `GET /v1/kits` lists it)."""
    document, _ = ledger.queries.kit_document(checked_hash(kit_hash))
    return document


@router.delete(
    "/kits/{kit_hash}",
    status_code=204,
    response_class=Response,
    dependencies=[Depends(require_admin)],
    operation_id="remove_kit",
    responses=REMOVED_ANSWERS,
)
def remove_kit(kit_hash: KitHash, ledger: LedgerDep) -> Response:
    """The admin removes a stored kit no game was started on: an event of its record; it may be stored again."""
    ledger.commands.remove_kit(checked_hash(kit_hash))
    return Response(status_code=204)


def checked_hash(kit_hash: str) -> str:
    """A kit's hash as a path names it, refused with 404 `unknown_kit` when it is no hash."""
    if not is_kit_hash(kit_hash):
        raise UnknownKit(f"no kit has the hash {kit_hash[:80]!r}: a kit's hash is `sha256:` and 64 hex digits")
    return kit_hash


def summary_of(reference: str, document: dict[str, Any], stored: bool) -> schemas.KitSummary:
    """A kit as the list gives it: `reference` is what a new game names it by (a built-in's name, a stored kit's
    hash)."""
    ruleset = ruleset_of_kit(document, reference)
    fewest, most = seats_of(document.get("players"))
    marks = [spec.seat_mark for spec in get_ruleset(ruleset).options if spec.seat_mark]
    return schemas.KitSummary(
        kit=reference,
        ruleset=ruleset,
        min_players=fewest,
        max_players=most,
        seat_marks=marks,
        name=str(document.get("name", reference)),
        kit_hash=canonical_hash(document),
        stored=stored,
    )


def seats_of(players: Any) -> tuple[int, int]:
    """How many players a kit seats, as its document says (a count, or `min` and `max`); a game's bounds where
    it says neither."""
    if isinstance(players, int):
        return players, players
    if isinstance(players, dict) and isinstance(players.get("min"), int) and isinstance(players.get("max"), int):
        return players["min"], players["max"]
    return schemas.MIN_PLAYERS, schemas.MAX_PLAYERS
