"""What recording at the table needs beside the append: the kits a game may be set up with, an action offered a
word at a time, and the record's revisions (an undo, a correction, a note), each made by the game's recorder token
(or the admin's)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from api import schemas
from api.deps import LedgerDep, ReaderDep, TokenDep, game_id_of, is_admin
from evo_ledger.app.ledger import Receipt, Recorder
from evo_ledger.app.readers import choices_for
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.kits import builtin_kit_names, load_kit_document, ruleset_of_kit

router = APIRouter(tags=["recording"])
REVISED: dict[int | str, dict[str, Any]] = {
    401: {"model": schemas.Problem, "description": "no token (`token_required`)"},
    403: {"model": schemas.Problem, "description": "not the recorder's token (`token_refused`)"},
    409: {"model": schemas.Problem, "description": "the game is no longer at `expected_version` (`version_conflict`)"},
}


@router.get("/kits", response_model=schemas.KitList, operation_id="list_kits")
def list_kits() -> schemas.KitList:
    """The built-in kits a new game may be set up with (`POST /v1/games`), by name."""
    return schemas.KitList(kits=[kit_summary(name) for name in builtin_kit_names()])


def kit_summary(name: str) -> schemas.KitSummary:
    document, _ = load_kit_document(name)
    ruleset = ruleset_of_kit(document, name)
    fewest, most = seats_of(document.get("players"))
    marks = [spec.seat_mark for spec in get_ruleset(ruleset).options if spec.seat_mark]
    return schemas.KitSummary(kit=name, ruleset=ruleset, min_players=fewest, max_players=most, seat_marks=marks)


def seats_of(players: Any) -> tuple[int, int]:
    """How many players a kit seats, as its document says (a count, or `min` and `max`); a game's bounds where
    it says neither."""
    if isinstance(players, int):
        return players, players
    if isinstance(players, dict) and isinstance(players.get("min"), int) and isinstance(players.get("max"), int):
        return players["min"], players["max"]
    return schemas.MIN_PLAYERS, schemas.MAX_PLAYERS


@router.get("/games/{game_id}/choices", response_model=schemas.Choices, operation_id="choices")
def choices(
    reader: ReaderDep,
    ledger: LedgerDep,
    words: Annotated[str, Query(max_length=schemas.MAX_ACTION_BYTES, description="the action's words so far")] = "",
) -> schemas.Choices:
    """An action entered a word at a time, as the recording page offers it to a tap: the words that may follow
    `words` in a legal action now (in notation; those `/legal` cannot list included: a card drawn, a move of
    several steps), and whether `words` is a legal action as it stands (`complete`). A reader who may not see every
    hidden fact is offered the words of the legal actions `/legal` shows it."""
    game = ledger.game(reader.game_id)
    entered = words.split()
    offered = choices_for(reader, game, entered)
    return schemas.Choices(version=game.version, words=entered, next=list(offered.words), complete=offered.complete)


@router.post("/games/{game_id}/undo", response_model=schemas.Receipt, operation_id="undo", responses=REVISED)
def undo(game_id: str, body: schemas.Undo, ledger: LedgerDep, token: TokenDep, request: Request) -> schemas.Receipt:
    """Undo the last `count` actions, with a reason: an event of the log (`ActionsUndone`), the actions kept in
    it, marked undone."""
    game = game_id_of(game_id)
    receipt = ledger.undo(game, body.count, body.reason, body.expected_version, recorder(request, token))
    return revised(request, receipt)


@router.post("/games/{game_id}/correct", response_model=schemas.Receipt, operation_id="correct", responses=REVISED)
def correct(
    game_id: str, body: schemas.Correction, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.Receipt:
    """Replace the latest action by another, with a reason: the replacement is checked by the rules where the
    latest action stood, and refused with its ruling as an append is."""
    game = game_id_of(game_id)
    entered_at = schemas.entered_at_text(body.entered_at)
    receipt = ledger.correct(
        game, body.action, body.reason, body.expected_version, recorder(request, token), entered_at
    )
    return revised(request, receipt)


@router.post("/games/{game_id}/notes", response_model=schemas.Receipt, operation_id="add_note", responses=REVISED)
def add_note(game_id: str, body: schemas.Note, ledger: LedgerDep, token: TokenDep, request: Request) -> schemas.Receipt:
    """A note about one of the game's events (a disputed roll, a rule looked up): an event of the log."""
    game = game_id_of(game_id)
    receipt = ledger.annotate(game, body.event, body.text, body.expected_version, recorder(request, token))
    return revised(request, receipt)


def recorder(request: Request, token: str | None) -> Recorder:
    """The game's recorder token is required, but for the admin."""
    return Recorder(token, token_required=not is_admin(request, token))


def revised(request: Request, receipt: Receipt) -> schemas.Receipt:
    request.app.state.appends.appended(receipt.game_id)  # wakes the game's streams and the read tables
    return schemas.Receipt.of(receipt)
