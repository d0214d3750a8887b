"""A game's events: the log (paged, JSON or msgpack), the state at any event, the live stream, export and import.

What the rules keep hidden (a card drawn, a sixth-sense peek) reaches only the recorder until it is revealed (the
card played, the climate token turned) or the game is over (unless its recorder keeps it hidden at the end): for
anyone else such an action shows only whose it is, in every one of these."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Annotated, Any

import anyio.to_thread
from eventsourcing.utils import get_topic
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.encoders import jsonable_encoder
from fastapi.responses import Response
from fastapi.sse import EventSourceResponse, ServerSentEvent

from api import schemas
from api.deps import LedgerDep, Reader, ReaderDep, import_match_told, token_of
from api.errors import ApiError
from api.open_streams import client_of, open_streams
from api.whole_log_reads import TOO_MANY_ANSWER, whole_log_read
from evo_ledger.app.access import new_token
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.readers import (
    Export,
    ShownEvent,
    bundle_for,
    check_live,
    events_for,
    game_file_for,
    latest_for,
    layout_for,
    lost_access,
    shown_version,
    state_for,
    with_access,
)
from evo_ledger.app.transfer import bundle_game, notation_game, store_game
from evo_ledger.game.aggregate import Game
from evo_ledger.game.codec import pack

router = APIRouter(prefix=schemas.API_PREFIX, tags=["events"], responses=schemas.PROBLEMS)
MSGPACK = "application/msgpack"
PAGE = 100
ACCESS_CHECK_SECONDS = 1.0
# The digits of the largest event number, and more for leading zeros: a longer number is none.
MAX_DIGITS = 40


def event_out(shown: ShownEvent) -> schemas.Event:
    """The event as JSON, as the readers give it to its reader (`events_for`), with the sentence the log gives it."""
    event = shown.event
    return schemas.Event(
        number=event.originator_version,
        kind=type(event).__name__,
        topic=get_topic(type(event)),
        timestamp=event.timestamp.isoformat(),
        text=shown.text,
        fields=jsonable_encoder(shown.fields),
        hidden=shown.hidden,
    )


def poll(ledger: Ledger, reader: Reader, sent: int) -> tuple[str | None, schemas.EventPage | None]:
    """One look at a followed game, in one thread hop: why the reader lost its access, if it did; else the page
    of events after `sent`, or None when the game has none (an idle stream reads no event)."""
    access = ledger.vouched.access(reader.game_id)
    lost = lost_access(reader, access)
    reader = with_access(reader, access)  # a delay set since the stream began holds back what follows
    if lost is not None or shown_version(reader, ledger) <= sent:
        return lost, None
    return None, page_of(ledger, reader, sent, PAGE)


def page_of(ledger: Ledger, reader: Reader, after: int, limit: int) -> schemas.EventPage:
    return page_in(ledger, reader, latest_for(reader, ledger), after, limit)


def page_in(ledger: Ledger, reader: Reader, game: Game, after: int, limit: int) -> schemas.EventPage:
    """The events of `game` (as the reader may see it: `latest_for`) after `after`, each as it is shown to the
    reader."""
    events = [event_out(shown) for shown in events_for(reader, ledger, game, after, limit)]
    more = bool(events) and events[-1].number < game.version
    return schemas.EventPage(events=events, next_after=events[-1].number if more else None)


@router.get(
    "/games/{game_id}/events",
    response_model=schemas.EventPage,
    operation_id="events",
    responses={200: {"content": {MSGPACK: {}}, "description": "JSON, or msgpack when Accept asks for it"}},
)
def events(
    reader: ReaderDep,
    ledger: LedgerDep,
    after: Annotated[int, Query(ge=0, le=schemas.MAX_EVENT_NUMBER)] = 0,
    limit: Annotated[int, Query(ge=1, le=1000)] = PAGE,
    accept: Annotated[str | None, Header()] = None,
) -> Any:
    """The events after event `after`, at most `limit` of them, in order."""
    page = page_of(ledger, reader, after, limit)
    if accept is not None and MSGPACK in accept:
        return Response(pack(page.model_dump()), media_type=MSGPACK)
    return page


@router.get("/games/{game_id}/view", response_model=schemas.PositionView, operation_id="view")
def position_view(
    reader: ReaderDep,
    ledger: LedgerDep,
    at: Annotated[int | None, Query(ge=1, le=schemas.MAX_EVENT_NUMBER, description="an event number")] = None,
) -> schemas.PositionView:
    """The position after event `at` (the latest if left out) as the replay viewer draws it: the picture its rules
    draw (a hex island's spaces, occupants, zones and auction; the trait-card game's locations, cards, tokens and
    species), each player's line. What a rule keeps hidden is drawn only for a reader who may see it (a hand, for
    its seat); to others it shows as a count. `seat` names the seat the answer was made for, if any."""
    latest = latest_for(reader, ledger)
    game = game_at(ledger, latest, at)
    view, layout = game.rules.view(game.state), layout_for(reader, latest, game)
    return schemas.PositionView(
        version=game.version,
        ruleset=game.rules.name,
        headline=view.headline,
        round=view.round,
        phase=view.phase,
        step=view.step,
        players=list(view.players),
        table=list(view.table),
        layout=jsonable_encoder(asdict(layout)) if layout is not None else None,
        result=schemas.result_of(game.rules.outcome(game.state)),
        perspectives=reader.perspectives(game.player_names),
        seat=reader.seat,
    )


def game_at(ledger: Ledger, latest: Game, at: int | None) -> Game:
    """The game after event `at`, 404 `unknown_event` past the `latest` the reader may see."""
    if at is not None and at > latest.version:
        raise ApiError(404, "unknown_event", f"the game has events 1 to {latest.version}, not {at}")
    return ledger.queries.game(latest.id, version=at) if at is not None else latest


@router.get("/games/{game_id}/state", response_model=schemas.State, operation_id="state")
def state(
    reader: ReaderDep,
    ledger: LedgerDep,
    at: Annotated[int | None, Query(ge=1, le=schemas.MAX_EVENT_NUMBER, description="an event number")] = None,
) -> schemas.State:
    """The game as it stood after event `at` (the latest if left out)."""
    latest = latest_for(reader, ledger)
    game = game_at(ledger, latest, at)
    view = game.rules.view(game.state)
    return schemas.State(
        version=game.version,
        headline=view.headline,
        round=view.round,
        phase=view.phase,
        step=view.step,
        players=list(view.players),
        occupants=dict(view.occupants),
        result=schemas.result_of(game.rules.outcome(game.state)),
        state=jsonable_encoder(state_for(reader, latest, game)),
    )


def resume_point(
    after: Annotated[int | None, Query(ge=0, le=schemas.MAX_EVENT_NUMBER)] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> int:
    """Where a stream starts: after event `after`, else after the `Last-Event-ID` a viewer reconnects with."""
    if after is not None:
        return after
    if last_event_id is None:
        return 0
    text = last_event_id.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS) or int(text) > schemas.MAX_EVENT_NUMBER:
        raise ApiError(422, "invalid_request", f"Last-Event-ID {last_event_id!r} is not an event number")
    return int(text)


async def placed_start(
    request: Request, reader: ReaderDep, start: Annotated[int, Depends(resume_point)]
) -> AsyncIterator[int]:
    """The stream's start, once a place among its client's streams is taken for it (a stream refused for its start
    takes none). The place is held until the answer ends, however it ends: the client gone (even before the first
    event), the server closing it, an error."""
    with open_streams(request).place(client_of(request, reader)):
        yield start


def as_json(problems: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """The problems an operation answers, documented as JSON: the schema would give them the operation's own media
    type (a stream's, here)."""
    problem = {"application/json": {"schema": {"$ref": schemas.COMPONENTS + schemas.Problem.__name__}}}
    return {status: {"description": answer["description"], "content": problem} for status, answer in problems.items()}


STREAM_PROBLEMS = as_json(
    {**schemas.PROBLEMS, 429: {"description": "the client holds as many live streams open as it may"}}
)


@router.get(
    "/games/{game_id}/stream",
    operation_id="stream",
    response_class=EventSourceResponse,
    responses={200: {"description": "server-sent events"}, **STREAM_PROBLEMS},
)
async def stream(
    reader: ReaderDep, ledger: LedgerDep, request: Request, start: Annotated[int, Depends(placed_start)]
) -> AsyncIterator[ServerSentEvent]:
    """New events as server-sent events, each with its number as its id. A viewer that reconnects with
    `Last-Event-ID` (or `after`) gets what it missed, then what follows, without gaps or repeats. A client holds
    at most `ApiSettings.streams_per_client` streams open at once: one more is refused with 429
    `too_many_streams` and `Retry-After`. The reader's access is read again before each page (at least once a
    second, and at once when it changes on this server): a reader who lost it is sent a last `closed` event saying
    why. A quiet stream is sent a comment every 15 seconds, so that no proxy on the way closes it. A server told to
    stop ends its streams within a second."""
    settings = request.app.state.settings
    appends, threads = request.app.state.appends, request.app.state.stream_threads
    wait = min(settings.stream_poll_seconds, ACCESS_CHECK_SECONDS)
    sent = start
    while True:
        lost, page = await anyio.to_thread.run_sync(poll, ledger, reader, sent, limiter=threads)
        if lost is not None:
            yield ServerSentEvent(event="closed", data={"reason": lost})
            return
        for event in page.events if page is not None else ():
            yield ServerSentEvent(id=str(event.number), event=event.kind, data=event)
            sent = event.number
        if page is not None and page.next_after is not None:
            continue
        await appends.wait(reader.game_id, wait)
        if request.app.state.stopping.is_set():  # the viewer reconnects, to another server where there is one
            return


@router.get(
    "/games/{game_id}/export",
    operation_id="export",
    responses={
        200: {"content": {"text/plain": {}, MSGPACK: {}}, "description": "a game file or a bundle"},
        **TOO_MANY_ANSWER,
    },
)
def export(
    reader: ReaderDep,
    ledger: LedgerDep,
    request: Request,
    format: Annotated[str, Query(pattern="^(notation|bundle)$")] = "notation",
) -> Response:
    """The game as a game file, or as a msgpack bundle of its stored events with their hashes. What the reader
    may not see is left out (a comment naming whose action it is, in a game file), and the answer's
    `Evo-Left-Out` header names those events: a bundle with hidden actions left out is not imported until they
    are revealed. A game broadcast with a delay is exported to a reader without a token once it ends (409
    `delayed_broadcast`). A reader without a token is limited in the exports it asks for (429
    `too_many_whole_log_reads`), and the server makes at most `ApiSettings.whole_log_reads_at_once` audits and
    exports at once, for any reader but the admin (429 `whole_log_reads_busy`)."""
    check_live(reader, ledger, "exports")
    with whole_log_read(request, reader, "exports"):
        return exported(reader, ledger, format)


def exported(reader: Reader, ledger: Ledger, format: str) -> Response:
    """The export as the readers make it for the reader (`game_file_for`, `bundle_for`), made whole before it is
    sent: its slot among the whole-log reads at once is given back before the answer's first byte leaves."""
    game = ledger.queries.game(reader.game_id)
    export: Export[str] | Export[bytes]
    if format == "notation":
        export, media_type = game_file_for(reader, ledger, game), "text/plain"
    else:
        export, media_type = bundle_for(reader, ledger, game), MSGPACK
    headers = {"Evo-Left-Out": " ".join(map(str, export.left_out))} if export.left_out else {}
    return Response(export.content, media_type=media_type, headers=headers)


@router.post(
    "/games/import",
    status_code=201,
    response_model=schemas.Created,
    operation_id="import_game",
    responses=schemas.GAME_CREATED,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/plain": {"schema": {"type": "string"}},
                MSGPACK: {"schema": {"type": "string", "format": "binary"}},
            },
        }
    },
)
async def import_game(request: Request) -> schemas.Created:
    """A whole game, as a game file (text/plain) or a bundle (application/msgpack), every action checked; the
    answer carries the new game's recorder token. A game file names a built-in kit (a bundle carries its kit).
    A game stored already (the same bundle, or a game file with the same ruleset, kit, players, options and
    actions) is not stored again: 409 `already_stored` names it. A game file's game is told stored already only
    to a caller who sees that game whole as it stands (`told_already_stored`): to any other (a private game it
    may not see, a game with an action hidden from it or held back by a broadcast's delay) the file is stored as a
    new game, as if none were stored, so that no import tells whether a guess of what it may not see is right."""
    body = await request.body()
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind not in ("text/plain", MSGPACK):
        raise ApiError(415, "unsupported_media_type", "send a game file as text/plain or a bundle as " + MSGPACK)
    caller = token_of(request.headers.get("authorization"))
    receipt, token = await run_in_threadpool(stored_import, request, kind, body, caller)
    request.app.state.appends.appended(receipt.game_id)
    if receipt.already_stored:
        raise ApiError(409, "already_stored", f"game {receipt.game_id} is stored already: nothing was imported")
    return schemas.Created.given(receipt, token)


def stored_import(request: Request, kind: str, body: bytes, caller: str | None) -> tuple[Receipt, str]:
    """The game and its new recorder token stored in one transaction."""
    ledger: Ledger = request.app.state.ledger
    token = new_token()
    if kind == MSGPACK:
        return store_game(ledger, bundle_game(ledger.store.mapper, body), recorder_token=token), token
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(422, "game_file_error", "a game file is UTF-8 text") from None
    receipt = store_game(ledger, notation_game(ledger.store.mapper, text, files=False), recorder_token=token)
    if receipt.already_stored and not import_match_told(request, receipt.game_id, caller):
        copy = notation_game(ledger.store.mapper, text, again=True, files=False)
        receipt = store_game(ledger, copy, recorder_token=token)
    return receipt, token
