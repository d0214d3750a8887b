"""What the endpoints depend on: the ledger, the caller's token, and what that token lets the caller do."""

from __future__ import annotations

import secrets
from typing import Annotated
from uuid import UUID

import segno
from fastapi import Depends, Header, Query, Request

from api.errors import ApiError
from evo_ledger.app.competitions import Organiser, UnknownCompetition
from evo_ledger.app.ledger import Ledger, Recorder
from evo_ledger.app.people import Keeper
from evo_ledger.app.readers import (
    Caller,
    Reader,
    lost_access,
    narrowed,
    reader_for,
    sees_game,
    told_already_stored,
    utc_now,
)
from evo_ledger.app.stored_kits import UNCOUNTED, KitCaller, caller_key
from evo_ledger.rules import rulesets

__all__ = [
    "Caller",
    "CallerDep",
    "KeeperDep",
    "KitCallerDep",
    "LedgerDep",
    "Organiser",
    "OrganiserDep",
    "PerspectiveQuery",
    "Reader",
    "ReaderDep",
    "TokenDep",
    "bearer_token",
    "caller",
    "competition_id_of",
    "game_id_of",
    "game_seen_by",
    "import_match_told",
    "is_admin",
    "join_link",
    "kit_caller",
    "known_ruleset",
    "ledger",
    "lost_access",
    "narrowed",
    "organiser_for",
    "reader",
    "recorder",
    "require_admin",
    "require_keeper",
    "token_of",
    "utc_now",
]


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


LedgerDep = Annotated[Ledger, Depends(ledger)]
TokenDep = Annotated[str | None, Depends(bearer_token)]


def is_admin(request: Request, token: str | None) -> bool:
    admin: str | None = request.app.state.settings.admin_token
    return admin is not None and token is not None and secrets.compare_digest(token.encode(), admin.encode())


async def caller(request: Request, token: TokenDep) -> Caller:
    """The caller of what is answered across games, as the readers take it: the admin, or another."""
    return Caller(admin=is_admin(request, token))


CallerDep = Annotated[Caller, Depends(caller)]


async def kit_caller(request: Request, token: TokenDep) -> KitCaller:
    """Who stores a kit, as its stored kits are counted: the admin is held to no count; any other caller is the
    address it comes from, by its digest (`caller_key`), held to `ApiSettings.kits_per_caller`. A token names no
    caller here: no record ties a token to kits, and any text is a token, so one caller could count as many."""
    if is_admin(request, token):
        return UNCOUNTED
    settings = request.app.state.settings
    address = request.client.host if request.client is not None else "unknown"
    return KitCaller(caller_key(address, settings.store.seal_key), settings.kits_per_caller)


KitCallerDep = Annotated[KitCaller, Depends(kit_caller)]


def recorder(request: Request, token: str | None) -> Recorder:
    """Who makes a change to a game: the holder of its recorder token, or the admin."""
    return Recorder(token, token_required=not is_admin(request, token))


def organiser_for(request: Request, token: str | None) -> Organiser:
    """Who changes a competition: the holder of `token` (the ledger checks it is the competition's organiser's), or
    the admin."""
    return Organiser(token, admin=is_admin(request, token))


async def organiser(request: Request, token: TokenDep) -> Organiser:
    return organiser_for(request, token)


OrganiserDep = Annotated[Organiser, Depends(organiser)]


def require_admin(request: Request, token: TokenDep) -> None:
    if token is None:
        raise ApiError(401, "token_required", "this needs the admin token")
    if not is_admin(request, token):
        raise ApiError(403, "token_refused", "the token is not the admin token")


def require_keeper(request: Request, ledger: LedgerDep, token: TokenDep) -> Keeper:
    """Who makes a change to the people's records: a keeper, the admin or the organiser of a competition (its
    organiser token names the competition it is checked against). Whose records each keeps is the people's book's
    to decide."""
    if token is None:
        raise ApiError(401, "token_required", "this needs a keeper's token: the admin's or a competition organiser's")
    if is_admin(request, token):
        return Keeper()
    competition = ledger.competitions.organised_by(token)
    if competition is None:
        raise ApiError(403, "token_refused", "the token is not a keeper's: the admin's or a competition organiser's")
    return Keeper(competition.id)


KeeperDep = Annotated[Keeper, Depends(require_keeper)]


def game_id_of(game_id: str) -> UUID:
    try:
        return UUID(game_id)
    except ValueError:
        whole = "the API takes a game's whole id (a UUID), as `/v1/games` lists it"
        raise ApiError(404, "unknown_game", f"no game {game_id[:80]!r}: {whole}") from None


def competition_id_of(competition_id: str) -> UUID:
    """A competition's id as a path or a body names it: an id that is no UUID names no competition."""
    try:
        return UUID(competition_id)
    except ValueError:
        raise UnknownCompetition(f"no competition {competition_id[:80]!r}: a competition's id is a UUID") from None


def known_ruleset(ruleset: str) -> str:
    """A ruleset a filter names, refused with 404 `unknown_ruleset` unless it is installed."""
    if ruleset not in rulesets():
        known = ", ".join(sorted(rulesets()))
        raise ApiError(404, "unknown_ruleset", f"no ruleset {ruleset[:80]!r}; the rulesets are {known}")
    return ruleset


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
    """The caller as a reader of the game, as the readers find it from its token (`reader_for`)."""
    game = game_id_of(game_id)
    return reader_for(ledger, game, token, is_admin(request, token), request.app.state.clock, perspective)


def game_seen_by(request: Request, game: UUID, token: str | None) -> bool:
    """Whether the game is seen to exist by the holder of `token` (None: the public)."""
    ledger: Ledger = request.app.state.ledger
    return sees_game(ledger.vouched.access(game), token, is_admin(request, token))


def import_match_told(request: Request, game: UUID, token: str | None) -> bool:
    """Whether the holder of `token` (None: the public) is told that the game file it imports is stored already as
    `game` (`told_already_stored`)."""
    ledger: Ledger = request.app.state.ledger
    return told_already_stored(ledger, game, token, is_admin(request, token), request.app.state.clock)


ReaderDep = Annotated[Reader, Depends(reader)]


def join_link(request: Request, game: UUID, token: str) -> tuple[str, str]:
    """The recording page with `token` after `#`, at the address the recorder's device reached this server by
    (the other devices at the table reach it there too), and the link as a QR code (an SVG data URI)."""
    link = f"{request.base_url}games/{game}/record#token={token}"
    return link, segno.make(link, error="m").svg_data_uri(scale=4)
