"""Games: create and list them, a game's summary, appending actions, the legal actions, and the admin's powers."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import date
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import AfterValidator, BeforeValidator

from api import schemas
from api.deps import (
    CallerDep,
    LedgerDep,
    Organiser,
    OrganiserDep,
    ReaderDep,
    TokenDep,
    competition_id_of,
    game_id_of,
    game_seen_by,
    join_link,
    known_ruleset,
    recorder,
    require_admin,
)
from api.errors import ApiError
from api.fast_paths import APPEND_PARAMETERS, AppendRead, read_append
from evo_ledger.app.access import HiddenGame, check_recorder, new_token
from evo_ledger.app.competitions import GameEntry, Placement
from evo_ledger.app.ledger import AppendRequest, Idempotency, Ledger
from evo_ledger.app.readers import (
    PUBLIC,
    Caller,
    Perspective,
    WithdrawnListed,
    advice_for,
    game_listed,
    head_hash_for,
    latest_for,
    legal_for,
)
from evo_ledger.app.writer import NewGame, Writer
from evo_ledger.game.aggregate import Game
from evo_ledger.rules import marked_seats
from projections import queries
from projections.runner import wait_until
from projections.store import ReadStore, position_in

router = APIRouter(prefix=schemas.API_PREFIX, tags=["games"], responses=schemas.PROBLEMS)
PROJECTIONS_HEADER = "Evo-Projections"


# The bodies endpoints here read themselves, for the OpenAPI schema's components.
BODIES_READ = (schemas.Append,)


# The append is this router's first route: a request is matched against the routes in turn, and most are appends.
@router.post(
    "/games/{game_id}/actions",
    response_model=schemas.Receipt,
    operation_id="append",
    responses=schemas.VERSION_CONFLICT,
    openapi_extra={"parameters": APPEND_PARAMETERS, "requestBody": schemas.json_body_of(schemas.Append)},
)
async def append(request: Request) -> Response:
    """Record actions, in notation or as data, all or none; only the game's recorder token may. With an
    `Idempotency-Key`, a retried request gets the first answer again. With `wait_for_projections`, the answer
    waits (that many seconds at most) until the read tables include the append; its `Evo-Projections` header
    says `caught-up`, or `behind` if they did not in time.

    The append is recorded by the server's writing process together with the others waiting (group commit).
    It reads its request itself (`api.fast_paths.read_append`: what FastAPI would read is documented all the same,
    and refused alike)."""
    return await record_append(request, await read_append(request))


async def record_append(request: Request, read: AppendRead) -> Response:
    """The append read (by hand or by FastAPI) recorded, and answered with its receipt."""
    body = read.body
    actions = [action if isinstance(action, str) else action.model_dump() for action in body.actions]
    check_action_sizes(body.actions)
    idempotency = None if read.idempotency_key is None else Idempotency(read.idempotency_key, body.digest())
    entered_at = schemas.entered_at_text(body.entered_at)
    appended = AppendRequest(read.game_id, actions, body.expected_version, idempotency, read.token, True, entered_at)
    writer: Writer = request.app.state.writer
    try:
        receipt = schemas.Receipt.of(await writer.append(appended))
    except HiddenGame:
        await run_in_threadpool(check_recorder_seen, request, read.game_id, read.token)
        raise
    headers = {}
    if read.wait_for_projections is not None:
        caught_up = await run_in_threadpool(projections_reach_log, request, read.wait_for_projections)
        headers[PROJECTIONS_HEADER] = "caught-up" if caught_up else "behind"
    return Response(receipt.model_dump_json(), media_type="application/json", headers=headers)


def check_recorder_seen(request: Request, game_id: UUID, token: str | None) -> None:
    """Why a caller refused as one that does not see the game may not append (`check_recorder`), where it sees the
    game all the same (the admin sees every game); nothing where it does not."""
    if game_seen_by(request, game_id, token):
        check_recorder(game_id, request.app.state.ledger.vouched.access(game_id), token)


def check_action_sizes(actions: Sequence[str | schemas.ActionData]) -> None:
    for index, action in enumerate(actions):
        size = len(action.encode() if isinstance(action, str) else action.model_dump_json().encode())
        if size > schemas.MAX_ACTION_BYTES:
            raise ApiError(
                422,
                "action_too_long",
                f"body.actions.{index}: an action is at most {schemas.MAX_ACTION_BYTES} bytes, this one {size}",
            )


def projections_reach_log(request: Request, timeout: float) -> bool:
    """Whether the read tables include every event stored so far, within `timeout` seconds."""
    ledger: Ledger = request.app.state.ledger
    return wait_until(request.app.state.read_store, ledger.store.recorder.max_notification_id() or 0, timeout)


@router.post(
    "/games",
    status_code=201,
    response_model=schemas.Created,
    operation_id="create_game",
    responses=schemas.GAME_CREATED,
)
async def create_game(body: schemas.NewGame, request: Request, organiser: OrganiserDep) -> schemas.Created:
    """A new game; the answer carries its recorder token, which is shown only here. It is stored by the server's
    writer, as appends are: one process writes the server's games. With `reveal_at_end` false, its second event
    keeps its hidden facts from readers who could not see them during play, also once it is over. With
    `competition`, the game is entered in that competition in the same transaction, by its organiser's token (or
    the admin's) as the bearer token: 401 `token_required` without one, 403 `token_refused` for another, 404
    `unknown_competition`; a refused entry stores no game."""
    token = new_token()
    players = [(p.name, p.id) for p in body.players]
    seats = {p.name: new_token() for p in body.players} if body.seat_tokens else None
    marks = {mark: [p.name for p in body.players if mark in p.marks()] for mark in schemas.SEAT_MARKS}
    options = {**body.options, **marked_seats(marks)}
    entry = competition_entry(body.competition, organiser)
    writer: Writer = request.app.state.writer
    new = NewGame(body.ruleset, body.kit, players, options, token, seats, body.reveal_at_end, entry)
    receipt = await writer.create(new)
    return schemas.Created.given(receipt, token, seats)


def competition_entry(entry: schemas.CompetitionEntry | None, organiser: Organiser) -> GameEntry | None:
    """A new game's entry in a competition, as the ledger takes it (None: the game is entered in none)."""
    if entry is None:
        return None
    return GameEntry(competition_id_of(entry.id), Placement(entry.round, entry.table), organiser)


def iso_date_only(value: object) -> object:
    """A date in a query is YYYY-MM-DD: not a number, which pydantic would read as a Unix time."""
    if isinstance(value, str) and not ISO_DATE.fullmatch(value):
        raise ValueError(f"{value!r} is not a date written YYYY-MM-DD")
    return value


ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
DEFAULT_LIST, MAX_LIST = 100, 1000
IsoDate = Annotated[date, BeforeValidator(iso_date_only), AfterValidator(schemas.date_checked)]


@router.get("/games", response_model=schemas.GameList, operation_id="list_games")
def list_games(
    request: Request,
    ledger: LedgerDep,
    caller: CallerDep,
    ruleset: str | None = None,
    player: Annotated[str | None, Query(description="a player's name or stable id")] = None,
    status: Annotated[str | None, Query(pattern="^(ongoing|over)$")] = None,
    started_from: IsoDate | None = None,
    started_to: IsoDate | None = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIST, description="games a page")] = DEFAULT_LIST,
    cursor: Annotated[
        str | None, Query(pattern=r"^[0-9]{1,18}$", description="a page's `next_cursor`: the games after it")
    ] = None,
    withdrawn: Annotated[
        WithdrawnListed,
        Query(description="withdrawn games: left out (`exclude`), listed too (`include`) or alone (`only`)"),
    ] = "exclude",
) -> schemas.GameList:
    """Public games (and private ones for the admin), oldest first, filtered, `limit` a page; `next_cursor`
    gives the next page (null on the last). Withdrawn games are left out unless `withdrawn` asks for them. A
    ruleset that is not installed is refused with 404 `unknown_ruleset`, and a player no game the list would show
    the caller (the public games, withdrawn or not; the private too for the admin) names with 404
    `unknown_player`."""
    if ruleset is not None:
        known_ruleset(ruleset)
    found: list[schemas.Summary] = []
    last, more = 0, False
    known = statuses(request) if status is not None else {}
    named = ledger.store.personal.names_of(player) if player is not None else None
    for position, setup in ledger.queries.started_setups(after=int(cursor or 0)):
        if not set_up_as(setup, ruleset, named, started_from, started_to):
            continue  # told apart by its setup: the game is not read
        if known.get(setup.originator_id, status) != status:
            continue  # told apart by the read tables, which have followed the whole log
        game = game_listed(ledger, setup.originator_id, caller, request.app.state.clock, withdrawn)
        if game is None:
            continue
        summary = summarise(ledger, game)
        if status is not None and summary.status != status:
            continue
        if len(found) == limit:  # one more matches: there is a next page
            more = True
            break
        found.append(summary)
        last = position
    if player is not None and not found and not player_seen(ledger, named or {player}, caller, request.app.state.clock):
        raise ApiError(404, "unknown_player", f"player: no game names {player[:80]!r}, by name or stable id")
    return schemas.GameList(games=found, next_cursor=str(last) if more else None)


def player_seen(ledger: Ledger, player: Collection[str], caller: Caller, clock: Any) -> bool:
    """Whether a game the list shows the caller, withdrawn or not, names the player (any of the names it may be
    stored under: only the games that name it are read)."""
    return any(
        set_up_as(setup, None, player, None, None)
        and game_listed(ledger, setup.originator_id, caller, clock, "include") is not None
        for _, setup in ledger.queries.started_setups()
    )


def set_up_as(
    setup: Any, ruleset: str | None, player: Collection[str] | None, started_from: date | None, started_to: date | None
) -> bool:
    """Whether a game's setup (its first event) has the ruleset, the player (any of the names or stable ids it may
    be stored under) and the start asked for."""
    started = setup.timestamp.date()
    return (
        (ruleset is None or setup.ruleset == ruleset)
        and (player is None or any(p["name"] in player or p["id"] in player for p in setup.players))
        and (started_from is None or started >= started_from)
        and (started_to is None or started <= started_to)
    )


def statuses(request: Request) -> dict[UUID, str]:
    """Each game's status as the read tables have it, where they have followed the whole log (none otherwise)."""
    store: ReadStore = request.app.state.read_store
    with store.engine.connect() as connection:
        found = queries.game_statuses(connection)
        followed = position_in(connection) >= (request.app.state.ledger.store.recorder.max_notification_id() or 0)
    return {UUID(game_id): status for game_id, status in found} if followed else {}


@router.get("/games/{game_id}", response_model=schemas.Summary, operation_id="game_summary")
def game_summary(reader: ReaderDep, ledger: LedgerDep) -> schemas.Summary:
    return summarise(ledger, latest_for(reader, ledger), reader)


def summarise(ledger: Ledger, game: Game, reader: Perspective = PUBLIC) -> schemas.Summary:
    """The game as a reader (the public if none is named) sees it: the head hash is left out where a hidden action
    could be tried from it (`head_hash_for`)."""
    outcome, view = game.rules.outcome(game.state), game.rules.view(game.state)
    access = ledger.vouched.access(game.id)
    return schemas.Summary(
        game_id=str(game.id),
        ruleset=game.ruleset_name,
        ruleset_version=game.ruleset_version,
        kit=game.kit_name,
        kit_hash=game.kit_hash,
        players=game.players,
        version=game.version,
        head_hash=head_hash_for(reader, ledger, game),
        status="over" if outcome is not None else "ongoing",
        headline=view.headline,
        round=view.round,
        phase=view.phase,
        step=view.step,
        private=access is not None and access.private,
        broadcast_delay=access.broadcast_delay if access is not None else 0,
        seats_record=access is not None and access.seats_record,
        withdrawn=access is not None and access.withdrawn,
        withdrawn_reason=access.withdrawal_reason if access is not None else None,
        reveal_at_end=game.reveal_at_end,
        started_at=game.created_on.isoformat(),
        result=schemas.result_of(outcome),
    )


@router.get("/games/{game_id}/legal", response_model=schemas.LegalActions, operation_id="legal_actions")
def legal_actions(reader: ReaderDep, ledger: LedgerDep) -> schemas.LegalActions:
    """The actions the rules allow now, where they can be listed (not card draws or peeks). A reader who may not see
    every hidden fact is not shown the hidden actions, nor those whose legality rests on another seat's hidden
    facts (a held card, a peek). Where the rules decide themselves for a seat they run (an Autosaur), `advice`
    offers that decision, to a reader its actions are shown to (`advice_for`): recording its first action confirms
    it."""
    game = latest_for(reader, ledger)
    offered = advice_for(reader, game)
    advice = schemas.Advice(**offered) if offered is not None else None
    return schemas.LegalActions(version=game.version, actions=legal_for(reader, game), advice=advice)


@router.post(
    "/games/{game_id}/recorder-token",
    response_model=schemas.RecorderToken,
    dependencies=[Depends(require_admin)],
    operation_id="issue_recorder_token",
)
def issue_recorder_token(game_id: str, ledger: LedgerDep, request: Request) -> schemas.RecorderToken:
    """A new recorder token for a game whose token was lost, with its join link and QR code: the old one stops
    working (its streams close), and every co-recorder its holder let in is let go (`co_recorders_let_go` says
    how many)."""
    game = game_id_of(game_id)
    token = new_token()
    let_go = ledger.commands.grant_recorder(game, token)
    request.app.state.appends.appended(game)  # the game's streams read their access again
    link, qr = join_link(request, game, token)
    return schemas.RecorderToken(
        game_id=str(game), recorder_token=token, co_recorders_let_go=let_go, join_link=link, join_qr=qr
    )


@router.put("/games/{game_id}/reveal-at-end", response_model=schemas.RevealAtEndSet, operation_id="set_reveal_at_end")
def set_reveal_at_end(
    game_id: str, body: schemas.RevealAtEnd, ledger: LedgerDep, token: TokenDep, request: Request
) -> schemas.RevealAtEndSet:
    """Whether, once the game is over, its hidden facts are shown to every reader, or kept from readers who could
    not see them during play: an event of the game's log (`EndRevealSet`), which stands from then on, also after
    the end. Only the game's recorder's own token (or the admin's) may set it, as every change of how the game is
    read: a co-recorder's or a seat's token is refused with 403 `token_refused`, no token with 401
    `token_required`. Setting what stands appends nothing."""
    game = game_id_of(game_id)
    receipt = ledger.commands.set_reveal_at_end(game, body.reveal_at_end, recorder(request, token))
    request.app.state.appends.appended(game)  # wakes the game's streams and the read tables
    return schemas.RevealAtEndSet(**schemas.Receipt.of(receipt).model_dump(), reveal_at_end=body.reveal_at_end)


@router.put(
    "/games/{game_id}/privacy",
    response_model=schemas.Privacy,
    dependencies=[Depends(require_admin)],
    operation_id="set_privacy",
)
def set_privacy(game_id: str, body: schemas.Privacy, ledger: LedgerDep, request: Request) -> schemas.Privacy:
    game = game_id_of(game_id)
    ledger.commands.change_access(game, lambda access: access.set_private(body.private))
    request.app.state.appends.appended(game)  # the game's streams read their access again
    return body
