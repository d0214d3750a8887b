"""Who reads a game, found from the token a caller holds: the reader it is (anyone may read a public game; a
private one, only its recorder, its seats and the admin), whether it sees the game at all, and the game as the
list of games shows it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from evo_ledger.app.access import GameAccess, HiddenGame
from evo_ledger.app.readers.broadcast import NotYetBroadcast, latest_for, shown_version, with_access
from evo_ledger.app.readers.reader import Reader, may_see, narrowed
from evo_ledger.game.aggregate import Game

if TYPE_CHECKING:
    from evo_ledger.app.ledger import Ledger

Clock = Callable[[], datetime]


def reader_for(
    ledger: Ledger, game_id: UUID, token: str | None, admin: bool, clock: Clock, perspective: str | None = None
) -> Reader:
    """The reader holding `token` (the `admin`'s or not), reading as `perspective` if one is asked for. A private
    game is unknown (HiddenGame) to one who may not see it; a game broadcast with a delay, to a reader without a
    token before its first event is that old (NotYetBroadcast), before a perspective asked for could name its
    seats."""
    access = ledger.vouched.access(game_id)
    if access is None:
        ledger.queries.game(game_id)  # an unknown game raises
    sees_all = admin or (access is not None and access.admits(token))
    seat = access.seat_of(token) if access is not None and not sees_all else None
    if not may_see(access, sees_all, seat):
        raise HiddenGame(f"no game {game_id}")
    holder = Reader(game_id, sees_all, seat, admin, token, holder_sees_all=sees_all, holder_seat=seat, clock=clock)
    holder = with_access(holder, access)
    if holder.anonymous and holder.broadcast_delay and shown_version(holder, ledger) == 0:
        raise NotYetBroadcast(ledger.queries.game(game_id), holder.broadcast_delay)
    return holder if perspective is None else narrowed(holder, perspective, ledger.queries.game(game_id).player_names)


def sees_game(access: GameAccess | None, token: str | None, admin: bool) -> bool:
    """Whether the holder of `token` (None: the public; the `admin`'s or not) sees that the game exists."""
    sees_all = admin or (access is not None and access.admits(token))
    return may_see(access, sees_all, access.seat_of(token) if access is not None else None)


def game_listed(ledger: Ledger, game_id: UUID, admin: bool, clock: Clock) -> Game | None:
    """The game as the list of games shows it: as it stands to the admin; to others as a reader without a token
    sees it (a game broadcast with a delay as it stood that long ago), and not at all where it is private or none
    of it is that old yet."""
    if admin:
        return ledger.queries.game(game_id)
    access = ledger.vouched.access(game_id)
    if access is not None and access.private:
        return None
    try:
        return latest_for(with_access(Reader(game_id, sees_all=False, clock=clock), access), ledger)
    except NotYetBroadcast:
        return None
