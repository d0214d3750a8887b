"""What recording at the table needs beside the append: an action offered a word at a time, and the record's
revisions (an undo, a correction, a note), each made by the game's recorder token (or the admin's); and who records
the game and how it is read (co-recorders, seats' tokens, a broadcast's delay, whether it is withdrawn), each set by
the recorder's own token (or the admin's)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from api import schemas
from api.deps import LedgerDep, ReaderDep, TokenDep, game_id_of, is_admin, join_link, recorder
from api.errors import ApiError
from evo_ledger.app.access import GameAccess, new_token
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.readers import (
    check_records_game,
    choices_for,
    forced_choices_for,
    latest_for,
    recorded_actions_for,
)

router = APIRouter(prefix=schemas.API_PREFIX, tags=["recording"], responses=schemas.PROBLEMS)
REVISED: dict[int | str, dict[str, Any]] = {
    **schemas.PROBLEMS,
    401: {"model": schemas.Problem, "description": "no token (`token_required`)"},
    403: {"model": schemas.Problem, "description": "not the recorder's token (`token_refused`)"},
    409: {"model": schemas.Problem, "description": "the game is no longer at `expected_version` (`version_conflict`)"},
}
CHANGED = {**REVISED, **schemas.VERSION_CONFLICT}  # a revision, made on the version it names


@router.get("/games/{game_id}/choices", response_model=schemas.Choices, operation_id="choices")
def choices(
    reader: ReaderDep,
    ledger: LedgerDep,
    words: Annotated[str, Query(max_length=schemas.MAX_ACTION_BYTES, description="the action's words so far")] = "",
    forced: Annotated[bool, Query(description="enter the words that are the only ones possible too")] = False,
) -> schemas.Choices:
    """An action entered a word at a time, as the recording page offers it to a tap: the words that may follow
    `words` in a legal action now (in notation; those `/legal` cannot list included: a card drawn, a move of
    several steps), and whether `words` is a legal action as it stands (`complete`). With `forced`, the words that
    follow as the only ones possible are entered too, in one answer (`forced`), and `next` and `complete` are
    those after them. A reader who may not see every hidden fact is offered the words of the legal actions
    `/legal` shows it."""
    game = latest_for(reader, ledger)
    entered = ledger.queries.seats.in_labels(game, words).split()
    more, offered = forced_choices_for(reader, game, entered) if forced else ([], choices_for(reader, game, entered))
    return schemas.Choices(
        version=game.version, words=entered, forced=more, next=list(offered.words), complete=offered.complete
    )


@router.post("/games/{game_id}/undo", response_model=schemas.Receipt, operation_id="undo", responses=CHANGED)
def undo(game_id: str, body: schemas.Undo, ledger: LedgerDep, token: TokenDep, request: Request) -> schemas.Receipt:
    """Undo the last `count` actions, with a reason: an event of the log (`ActionsUndone`), the actions kept in
    it, marked undone."""
    game = game_id_of(game_id)
    receipt = ledger.commands.undo(game, body.count, body.reason, body.expected_version, recorder(request, token))
    return revised(request, receipt)


@router.post("/games/{game_id}/correct", response_model=schemas.Receipt, operation_id="correct", responses=CHANGED)
def correct(
    game_id: str, body: schemas.Correction, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.Receipt:
    """Replace the latest action by another, with a reason: the replacement is checked by the rules where the
    latest action stood, and refused with its ruling as an append is."""
    game = game_id_of(game_id)
    entered_at = schemas.entered_at_text(body.entered_at)
    receipt = ledger.commands.correct(
        game, body.action, body.reason, body.expected_version, recorder(request, token), entered_at
    )
    return revised(request, receipt)


@router.post("/games/{game_id}/notes", response_model=schemas.Receipt, operation_id="add_note", responses=CHANGED)
def add_note(game_id: str, body: schemas.Note, ledger: LedgerDep, token: TokenDep, request: Request) -> schemas.Receipt:
    """A note about one of the game's events (a disputed roll, a rule looked up): an event of the log."""
    game = game_id_of(game_id)
    receipt = ledger.commands.annotate(game, body.event, body.text, body.expected_version, recorder(request, token))
    return revised(request, receipt)


@router.post(
    "/games/{game_id}/co-recorders",
    response_model=schemas.CoRecorderIssued,
    status_code=201,
    operation_id="add_co_recorder",
    responses=REVISED,
)
def add_co_recorder(
    game_id: str, body: schemas.CoRecorder, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.CoRecorderIssued:
    """Another device records the game as the recorder does: its id, its token, shown once, with a join link and
    the link as a QR code for the device's camera. Only the recorder's own token (or the admin's) issues one; the
    name is kept in the game's access log, and refused with 409 `co_recorder_exists` while another holds it."""
    issued = new_token()

    def add(held: GameAccess) -> None:  # once the token is found to be the recorder's
        held.add_co_recorder(body.name, issued, partial(ledger.commands.typed, held.game_id))

    access = changed_by_recorder(request, ledger, game_id, token, add)
    added = access.co_recorder_named(ledger.commands.typed(access.game_id, body.name))
    assert added is not None
    link, qr = join_link(request, access.game_id, issued)
    return schemas.CoRecorderIssued(id=added.id, name=body.name, token=issued, join_link=link, join_qr=qr)


@router.post(
    "/games/{game_id}/seat-tokens/{seat}",
    response_model=schemas.SeatTokenIssued,
    status_code=201,
    operation_id="issue_seat_token",
    responses=REVISED,
)
def issue_seat_token(
    game_id: str, seat: str, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.SeatTokenIssued:
    """A seat's token, issued anew for the player's own device (the one it had reads no more): it reads the game
    with that seat's hidden facts alone. With a join link and its QR code; the recorder's own token (or the
    admin's) alone issues one."""
    game, issued = game_id_of(game_id), new_token()

    def issue(access: GameAccess) -> None:  # once the token is found to be the recorder's
        played = ledger.queries.game(game)
        players, named = played.player_names, ledger.queries.seats.in_labels(played, seat)
        if named not in players:
            raise ApiError(422, "unknown_seat", f"{seat[:64]!r} is not a seat of the game ({', '.join(players)})")
        access.issue_seat_token(named, issued)

    changed_by_recorder(request, ledger, game_id, token, issue)  # a stream read with the old token closes
    link, qr = join_link(request, game, issued)
    return schemas.SeatTokenIssued(seat=seat, token=issued, join_link=link, join_qr=qr)


@router.put(
    "/games/{game_id}/broadcast-delay",
    response_model=schemas.BroadcastDelay,
    operation_id="set_broadcast_delay",
    responses=REVISED,
)
def set_broadcast_delay(
    game_id: str, body: schemas.BroadcastDelay, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.BroadcastDelay:
    """Broadcast the game `minutes` behind the table: a reader without a token (a spectator) sees it as it stood
    that long ago, never later, by every route (its summary, state, view, events, stream, legal actions and
    choices, standings and auctions, and its place in the game list); its rows stay out of the statistics and the
    tables' CSV, and its audits, explanations, branches and exports are refused with 409 `delayed_broadcast`,
    until the game ends, which ends the delay. 0 broadcasts it live. The recorder's own token (or the admin's)
    alone sets it: an event of the game's access."""
    changed_by_recorder(request, ledger, game_id, token, lambda access: access.set_broadcast_delay(body.minutes))
    return body


@router.put(
    "/games/{game_id}/seats-record",
    response_model=schemas.SeatsRecord,
    operation_id="set_seats_record",
    responses=REVISED,
)
def set_seats_record(
    game_id: str, body: schemas.SeatsRecord, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.SeatsRecord:
    """Whether each seat's token may append its player's own actions (an action of another player, or of the
    table, is refused with 403 `not_own_action`); undo, correct and notes stay the recorders'. The recorder's own
    token (or the admin's) alone sets it: an event of the game's access."""
    changed_by_recorder(request, ledger, game_id, token, lambda access: access.set_seats_record(body.allowed))
    return body


WITHDRAWAL_REFUSED: dict[int | str, dict[str, Any]] = {
    **REVISED,
    409: {"model": schemas.Problem, "description": "withdrawn already (`already_withdrawn`), or not (`not_withdrawn`)"},
}


@router.post(
    "/games/{game_id}/withdraw",
    response_model=schemas.WithdrawalSet,
    operation_id="withdraw_game",
    responses=WITHDRAWAL_REFUSED,
)
def withdraw_game(
    game_id: str, body: schemas.Withdrawal, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.WithdrawalSet:
    """Withdraw the game (a test game, an abandoned one), with a reason: an event of the game's access. Its log
    and its audits keep it, and its audit says it is withdrawn and why; its rows are left out of standings,
    ratings and every statistic, and the game out of the game list unless asked for (`withdrawn`). A game
    withdrawn already is refused with 409 `already_withdrawn`. The recorder's own token (or the admin's) alone
    withdraws it."""
    access = changed_by_recorder(request, ledger, game_id, token, withdrawn_as(ledger, True, body.reason))
    return schemas.WithdrawalSet(game_id=str(access.game_id), withdrawn=access.withdrawn, reason=body.reason)


@router.post(
    "/games/{game_id}/reinstate",
    response_model=schemas.WithdrawalSet,
    operation_id="reinstate_game",
    responses=WITHDRAWAL_REFUSED,
)
def reinstate_game(
    game_id: str, body: schemas.Withdrawal, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.WithdrawalSet:
    """Put a withdrawn game back, with a reason: an event of the game's access, after which it counts again as
    any game does. A game that is not withdrawn is refused with 409 `not_withdrawn`. The recorder's own token (or
    the admin's) alone reinstates it."""
    access = changed_by_recorder(request, ledger, game_id, token, withdrawn_as(ledger, False, body.reason))
    return schemas.WithdrawalSet(game_id=str(access.game_id), withdrawn=access.withdrawn, reason=body.reason)


def withdrawn_as(ledger: Ledger, withdrawn: bool, reason: str) -> Callable[[GameAccess], None]:
    """The game withdrawn or reinstated, its reason sealed as typed text once the token is found to make it."""

    def change(held: GameAccess) -> None:
        held.set_withdrawn(withdrawn, reason, partial(ledger.commands.typed, held.game_id))

    return change


def changed_by_recorder(
    request: Request, ledger: Ledger, game_id: str, token: str | None, change: Callable[[GameAccess], None]
) -> GameAccess:
    """A change to who records the game or how it is read, by the recorder's own token (or the admin's); the
    game's streams, the writer's held accesses and the read tables read it at once."""
    access = ledger.commands.change_recorders(game_id_of(game_id), change, token, is_admin(request, token))
    request.app.state.appends.appended(access.game_id)
    return access


CoRecorderId = Annotated[int, Path(ge=1, le=schemas.MAX_EVENT_NUMBER, description=schemas.CO_RECORDER_ID)]


@router.delete(
    "/games/{game_id}/co-recorders/{co_recorder_id}",
    response_model=schemas.CoRecorderList,
    operation_id="revoke_co_recorder",
    responses=REVISED,
)
def revoke_co_recorder(
    game_id: str, co_recorder_id: CoRecorderId, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.CoRecorderList:
    """The co-recorder's token records no more, and its streams close; answered with the co-recorders left. Only
    the recorder's own token (or the admin's) lets one go, by its id (a name never goes in the path)."""
    access = changed_by_recorder(request, ledger, game_id, token, lambda held: held.revoke_co_recorder(co_recorder_id))
    return co_recorders_of(access)


@router.get("/games/{game_id}/setup", response_model=schemas.GameSetup, operation_id="game_setup")
def game_setup(reader: ReaderDep, ledger: LedgerDep) -> schemas.GameSetup:
    """The game's setup and effective actions, for the recording page to judge entries on the device when the
    server cannot be reached. It holds every hidden fact (a card drawn, a peek), so the readers give it only to
    those who record the game (the recorder, a co-recorder, the admin: `recorded_actions_for`)."""
    game = latest_for(reader, ledger)
    actions = recorded_actions_for(reader, game)
    return schemas.GameSetup(
        ruleset=game.ruleset_name,
        ruleset_version=game.ruleset_version,
        kit=game.kit_document,
        players=game.player_names,
        options=dict(game.options),
        actions=actions,
        version=game.version,
    )


@router.get("/games/{game_id}/co-recorders", response_model=schemas.CoRecorderList, operation_id="list_co_recorders")
def list_co_recorders(reader: ReaderDep, ledger: LedgerDep) -> schemas.CoRecorderList:
    """The co-recorders, each by its id and name, for a reader who records the game (the recorder, a co-recorder,
    the admin)."""
    check_records_game(reader, "the co-recorders are listed to those who record the game")
    access = ledger.vouched.access(reader.game_id)
    return co_recorders_of(access) if access is not None else schemas.CoRecorderList(co_recorders=[])


def co_recorders_of(access: GameAccess) -> schemas.CoRecorderList:
    held = sorted(access.co_recorders.values(), key=lambda co_recorder: (co_recorder.name, co_recorder.id))
    return schemas.CoRecorderList(co_recorders=[schemas.CoRecorderListed(id=c.id, name=c.name) for c in held])


def revised(request: Request, receipt: Receipt) -> schemas.Receipt:
    request.app.state.appends.appended(receipt.game_id)  # wakes the game's streams and the read tables
    return schemas.Receipt.of(receipt)
