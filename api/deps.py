"""What the endpoints depend on: the ledger, the caller's token, and what that token lets the caller do."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Annotated
from uuid import UUID

from fastapi import Depends, Header, Request

from api.errors import ApiError
from evo_ledger.game import Game
from evo_ledger.ledger import Ledger


async def ledger(request: Request) -> Ledger:
    """Async, as the other dependencies without I/O: a plain function would be run on the thread pool."""
    found: Ledger = request.app.state.ledger
    return found


async def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str | None:
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
    return admin is not None and token is not None and secrets.compare_digest(token, admin)


def require_admin(request: Request, token: TokenDep) -> None:
    if token is None:
        raise ApiError(401, "token_required", "this needs the admin token")
    if not is_admin(request, token):
        raise ApiError(403, "token_refused", "the token is not the admin token")


@dataclass(frozen=True)
class Reader:
    """A caller reading a game: `sees_all` when it holds the recorder token (or the admin's)."""

    game_id: UUID
    sees_all: bool


def game_id_of(game_id: str) -> UUID:
    try:
        return UUID(game_id)
    except ValueError:
        raise ApiError(404, "unknown_game", f"no game {game_id!r}: a game id is a UUID") from None


def reader(game_id: str, request: Request, ledger: LedgerDep, token: TokenDep) -> Reader:
    """Anyone may read a public game; a private one, only its recorder and the admin."""
    game = game_id_of(game_id)
    access = ledger.access(game)
    if access is None:
        ledger.game(game)  # an unknown game raises
    sees_all = is_admin(request, token) or (access is not None and access.admits(token))
    if access is not None and access.private and not sees_all:
        raise ApiError(403, "private_game", f"game {game} is private")
    return Reader(game, sees_all)


ReaderDep = Annotated[Reader, Depends(reader)]


def hidden_from(reader: Reader, ledger: Ledger, game: Game) -> bool:
    """Whether the game's log holds an action the reader may not see yet."""
    if reads_hidden(reader, game):
        return False
    revealed = game.revealed_versions()
    return any(
        getattr(event, "visible_only_to", None) is not None and event.originator_version not in revealed
        for event in ledger.game_events(game.id)
    )


def reads_hidden(reader: Reader, game: Game) -> bool:
    """What the rules keep hidden is shown to the recorder, and to everyone once the game is over."""
    return reader.sees_all or game.rules.outcome(game.state) is not None
