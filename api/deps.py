"""What the endpoints depend on: the ledger, the caller's token, and what that token lets the caller do."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Annotated, TypeVar
from uuid import UUID

import segno
from fastapi import Depends, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from api.errors import ApiError
from evo_ledger.app.access import GameAccess
from evo_ledger.app.ledger import Ledger, Recorder
from evo_ledger.app.readers import broadcast_horizon, broadcast_starts
from evo_ledger.game.aggregate import Game
from evo_ledger.rules import rulesets

Body = TypeVar("Body", bound=BaseModel)


async def ledger(request: Request) -> Ledger:
    """Async, as the other dependencies without I/O: a plain function would be run on the thread pool."""
    found: Ledger = request.app.state.ledger
    return found


async def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
    return token_of(authorization)


def token_of(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer TOKEN` header (None without the header)."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "token_required", "the Authorization header must be 'Bearer TOKEN'")
    return token.strip()


async def json_body(request: Request, model: type[Body]) -> Body:
    """The request's JSON body read as `model`, for an endpoint that reads its request itself: refused as a
    declared body is, with 422 `invalid_request` naming where in the body."""
    raw = await request.body()
    if not raw:
        raise body_error("missing", "Field required")
    if not is_json(request.headers.get("content-type", "")):
        raise body_error("not_json", "the body must be JSON, sent with Content-Type: application/json")
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        raise RequestValidationError([{**e, "loc": ("body", *e["loc"])} for e in error.errors()]) from None


def body_error(kind: str, message: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body",), "msg": message, "input": None}])


def is_json(content_type: str) -> bool:
    media_type = content_type.partition(";")[0].strip().lower()
    return media_type == "application/json" or (media_type.startswith("application/") and media_type.endswith("+json"))


LedgerDep = Annotated[Ledger, Depends(ledger)]
TokenDep = Annotated[str | None, Depends(bearer_token)]


def is_admin(request: Request, token: str | None) -> bool:
    admin: str | None = request.app.state.settings.admin_token
    return admin is not None and token is not None and secrets.compare_digest(token.encode(), admin.encode())


def recorder(request: Request, token: str | None) -> Recorder:
    """Who makes a change to a game: the holder of its recorder token, or the admin."""
    return Recorder(token, token_required=not is_admin(request, token))


def require_admin(request: Request, token: TokenDep) -> None:
    if token is None:
        raise ApiError(401, "token_required", "this needs the admin token")
    if not is_admin(request, token):
        raise ApiError(403, "token_refused", "the token is not the admin token")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Reader:
    """A caller reading a game: `sees_all` when it holds the recorder token (or the admin's); `seat`, the player
    whose seat token it holds, who sees that seat's hidden actions. A caller may read as one who sees less
    (`?as=SEAT` or `?as=public`): then `sees_all` and `seat` are that perspective's, and `narrowed` says so."""

    game_id: UUID
    sees_all: bool
    seat: str | None = None
    admin: bool = False
    token: str | None = field(default=None, repr=False)
    narrowed: bool = False
    holder_sees_all: bool = False
    holder_seat: str | None = None
    clock: Callable[[], datetime] = field(default=utc_now, repr=False, compare=False)
    broadcast_delay: float = 0  # the game's, as its access had it when read: for a reader without a token

    @property
    def anonymous(self) -> bool:
        """A reader who holds no token of the game's (nor the admin's): a broadcast's delay is for it."""
        return not (self.holder_sees_all or self.holder_seat is not None or self.admin)

    def perspectives(self, players: Sequence[str]) -> list[str]:
        """What the token's holder may read as (`as`), whatever it reads as now: the public and every seat for one
        who sees all, the public for a seat, nothing for the public."""
        if self.holder_sees_all:
            return [PUBLIC_PERSPECTIVE, *players]
        return [PUBLIC_PERSPECTIVE] if self.holder_seat is not None else []


def game_id_of(game_id: str) -> UUID:
    try:
        return UUID(game_id)
    except ValueError:
        whole = "the API takes a game's whole id (a UUID), as `/v1/games` lists it"
        raise ApiError(404, "unknown_game", f"no game {game_id[:80]!r}: {whole}") from None


def known_ruleset(ruleset: str) -> str:
    """A ruleset a filter names, refused with 404 `unknown_ruleset` unless it is installed."""
    if ruleset not in rulesets():
        known = ", ".join(sorted(rulesets()))
        raise ApiError(404, "unknown_ruleset", f"no ruleset {ruleset[:80]!r}; the rulesets are {known}")
    return ruleset


def unknown_game(game: UUID) -> ApiError:
    """What a reader who may not see a private game is told: the same as for a game that does not exist."""
    return ApiError(404, "unknown_game", f"no game {game}")


PUBLIC_PERSPECTIVE = "public"
PerspectiveQuery = Annotated[
    str | None,
    Query(
        alias="as",
        max_length=64,
        description="read as one who sees less: `public`, or a seat's name (the recorder may take any seat, a seat "
        "token its own); left out, as the token's holder",
    ),
]


def reader(
    game_id: str, request: Request, ledger: LedgerDep, token: TokenDep, perspective: PerspectiveQuery = None
) -> Reader:
    """Anyone may read a public game; a private one, only its recorder, its seats and the admin."""
    game = game_id_of(game_id)
    access = ledger.access(game)
    if access is None:
        ledger.game(game)  # an unknown game raises
    admin = is_admin(request, token)
    sees_all = admin or (access is not None and access.admits(token))
    seat = access.seat_of(token) if access is not None and not sees_all else None
    if not may_see(access, sees_all, seat):
        raise unknown_game(game)
    holder = Reader(
        game, sees_all, seat, admin, token, holder_sees_all=sees_all, holder_seat=seat, clock=request.app.state.clock
    )
    holder = with_access(holder, access)
    if holder.anonymous and holder.broadcast_delay and shown_version(holder, ledger) == 0:
        raise not_yet_broadcast(holder, ledger.game(game))  # before a perspective asked for could name the seats
    return holder if perspective is None else narrowed(holder, perspective, ledger.game(game).player_names)


def with_access(reader: Reader, access: GameAccess | None) -> Reader:
    """The reader with the game's broadcast delay as `access` (read now) has it."""
    delay = access.broadcast_delay if access is not None else 0
    return reader if delay == reader.broadcast_delay else replace(reader, broadcast_delay=delay)


def held_back_to(reader: Reader, ledger: Ledger, game: Game) -> int | None:
    """The last event of `game` (as it stands) the reader may see now, where a broadcast's delay holds the rest
    back from it (0: none yet); None where nothing is held back (`broadcast_horizon`)."""
    if not reader.anonymous or not reader.broadcast_delay:
        return None
    return broadcast_horizon(ledger, game, reader.broadcast_delay, reader.clock())


def shown_version(reader: Reader, ledger: Ledger) -> int:
    """The game's last event the reader may see now (0: none yet, for a game broadcast with a delay)."""
    game = ledger.game(reader.game_id)
    horizon = held_back_to(reader, ledger, game)
    return game.version if horizon is None else horizon


def latest_for(reader: Reader, ledger: Ledger) -> Game:
    """The game as the reader may see it now: as it stands, or, for a reader without a token of a game broadcast
    with a delay, as it stood that long ago until the game ends. Every answer about a game starts here."""
    game = ledger.game(reader.game_id)
    horizon = held_back_to(reader, ledger, game)
    if horizon is None or horizon == game.version:
        return game
    if horizon == 0:
        raise not_yet_broadcast(reader, game)
    return ledger.game(reader.game_id, version=horizon)


def not_yet_broadcast(reader: Reader, game: Game) -> ApiError:
    """What a reader without a token is told of a game broadcast with a delay before its first event is that old:
    when its broadcast starts and how far behind the table it follows, and nothing else of it, its setup included."""
    starts = broadcast_starts(game, reader.broadcast_delay).isoformat()
    told = f"game {game.id} is broadcast with a delay: none of it is that old yet (it starts at {starts})"
    extra = {"broadcast_starts_at": starts, "broadcast_delay": reader.broadcast_delay}
    return ApiError(404, "not_yet_broadcast", told, extra=extra)


def live_only(reader: Reader, ledger: Ledger, what: str) -> None:
    """Refuse `what` (an audit, a branch...: answers that read the whole log as it stands) to a reader a
    broadcast's delay is for, until the game ends."""
    if held_back_to(reader, ledger, ledger.game(reader.game_id)) is not None:
        raise ApiError(409, "delayed_broadcast", f"{what} of a game broadcast with a delay come once it ends")


def narrowed(holder: Reader, perspective: str, players: Sequence[str]) -> Reader:
    """The holder reading as `perspective`: never as one who sees more than the holder does."""
    if perspective == PUBLIC_PERSPECTIVE:
        return replace(holder, sees_all=False, seat=None, narrowed=holder.sees_all or holder.seat is not None)
    if perspective not in players:
        seats = ", ".join(players)
        raise ApiError(422, "unknown_perspective", f"as: {perspective[:64]!r} is not 'public' nor a seat ({seats})")
    if not holder.sees_all and holder.seat != perspective:
        raise ApiError(403, "perspective_refused", f"as: this token may not read as {perspective}")
    return replace(holder, sees_all=False, seat=perspective, narrowed=holder.sees_all)


def may_see(access: GameAccess | None, sees_all: bool, seat: str | None) -> bool:
    """Whether a reader sees that a game exists: a private one is seen only by its recorder, its seats and the
    admin."""
    return access is None or not access.private or sees_all or seat is not None


def game_seen_by(request: Request, game: UUID, token: str | None) -> bool:
    """Whether the game is seen to exist by the holder of `token` (None: the public)."""
    access: GameAccess | None = request.app.state.ledger.access(game)
    sees_all = is_admin(request, token) or (access is not None and access.admits(token))
    return may_see(access, sees_all, access.seat_of(token) if access is not None else None)


def lost_access(reader: Reader, access: GameAccess | None) -> str | None:
    """Why the reader no longer reads the game as it did when it began (its access has changed since), or None."""
    if reader.admin or access is None:
        return None
    holds = access.admits(reader.token) or access.seat_of(reader.token) is not None
    if (reader.sees_all or reader.narrowed or reader.seat is not None) and not holds:
        return "the token records this game no more (replaced or revoked): reconnect with the one the recorder gives"
    if access.private and not holds:
        return "the game was made private"
    return None


ReaderDep = Annotated[Reader, Depends(reader)]


def join_link(request: Request, game: UUID, token: str) -> tuple[str, str]:
    """The recording page with `token` after `#`, at the address the recorder's device reached this server by
    (the other devices at the table reach it there too), and the link as a QR code (an SVG data URI)."""
    link = f"{request.base_url}games/{game}/record#token={token}"
    return link, segno.make(link, error="m").svg_data_uri(scale=4)
