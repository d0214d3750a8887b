"""Who reads a game, found from the token a caller holds: the reader it is (anyone may read a public game; a
private one, only its recorder, its seats and the admin), whether it sees the game at all, whether it is told that
a game file it imports is stored already, and the game as the list of games shows it. Beside it, a caller of what
is answered across games (`Caller`): the read tables' rows it is counted, and what the server's health tells it of
a game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal
from uuid import UUID

from evo_ledger.app.access import GameAccess, HiddenGame
from evo_ledger.app.readers.broadcast import NotYetBroadcast, held_back_to, latest_for, shown_version, with_access
from evo_ledger.app.readers.log import visibility
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
    if perspective is None:
        return holder
    game = ledger.queries.game(game_id)
    return narrowed(holder, ledger.queries.seats.in_labels(game, perspective), game.player_names)


def sees_game(access: GameAccess | None, token: str | None, admin: bool) -> bool:
    """Whether the holder of `token` (None: the public; the `admin`'s or not) sees that the game exists (`may_see`):
    the token is read only for a private game."""
    if may_see(access, admin, None):
        return True
    return access is not None and may_see(access, access.admits(token), access.seat_of(token))


def check_seen(game_id: UUID, access: GameAccess | None, token: str | None) -> None:
    """Refused as an unknown game (HiddenGame) unless the holder of `token` sees that the game exists
    (`sees_game`): a private game, to a token that neither records it nor is one of its seats'."""
    if not sees_game(access, token, admin=False):
        raise HiddenGame(f"no game {game_id}")


def told_already_stored(ledger: Ledger, game_id: UUID, token: str | None, admin: bool, clock: Clock) -> bool:
    """Whether the holder of `token` (the `admin`'s or not), importing a game file whose game is stored already
    as `game_id`, is told so. A game file's id is its content's, so that telling a match confirms every action
    the file holds: only a reader who sees the stored game whole as it stands is told (one who sees that it
    exists, nothing of it held back by a broadcast's delay, no action in it hidden from it). Any other is answered
    as if none were stored, whether its file matched or not."""
    try:
        reader = reader_for(ledger, game_id, token, admin, clock)
    except (HiddenGame, NotYetBroadcast):
        return False
    game = ledger.queries.game(game_id)
    if held_back_to(reader, ledger, game) not in (None, game.version):
        return False
    return not visibility(reader, ledger, game).hidden


@dataclass(frozen=True)
class Caller:
    """A caller of what is answered across games (the list of games, the statistics and the read tables, the
    server's health), by the token it holds: the admin, who sees every game, or another, who sees the games that
    are not private. A private game's recorder and seats read it by its own endpoints (`reader_for`): among every
    game's rows, the games a token records are not told apart."""

    admin: bool = False


def private_rows_for(caller: Caller) -> bool:
    """Whether the read tables' rows of private games count in what the caller is answered across games (the
    statistics, a table as CSV, the dice): for the admin alone. It is what the projections' queries take as
    `include_private`."""
    return caller.admin


def check_rows_shown(game_id: str, ruleset: str | None) -> str:
    """The ruleset of the game whose read tables' rows a caller asks for, as the rows counted for it hold it
    (`private_rows_for`); where they hold none, the game is unknown to it (HiddenGame): a private game's rows, to
    a caller they do not count for, are told as those of a game never stored."""
    if ruleset is None:
        raise HiddenGame(f"game_id: the read tables hold no game {game_id[:80]!r}")
    return ruleset


def games_seen_by(accesses: Mapping[UUID, GameAccess | None], caller: Caller) -> set[UUID]:
    """Of the games whose accesses are given (read at once, as `Vouched.accesses` reads them), those the caller
    sees exist (`sees_game`): the admin every one, another those that are not private."""
    return {game_id for game_id, access in accesses.items() if sees_game(access, None, caller.admin)}


def game_named_for(caller: Caller, game_id: str) -> dict[str, str]:
    """What the server's health (the events the read tables set aside, those no checkpoint vouched for) says to the
    caller of the game an event is of: its id to the admin; nothing to another, as the game may be private."""
    return {"game_id": game_id} if caller.admin else {}


WithdrawnListed = Literal["exclude", "include", "only"]
"""Which games the list of games shows by whether they are withdrawn: those that are not (`exclude`, unless asked
otherwise), every one (`include`), or the withdrawn alone (`only`)."""


def withdrawal_listed(access: GameAccess | None, withdrawn: WithdrawnListed) -> bool:
    """Whether the list of games asked for `withdrawn` shows a game with that access."""
    return withdrawn == "include" or (access is not None and access.withdrawn) == (withdrawn == "only")


def game_listed(
    ledger: Ledger, game_id: UUID, caller: Caller, clock: Clock, withdrawn: WithdrawnListed = "exclude"
) -> Game | None:
    """The game as the list of games shows it: as it stands to the admin; to others as a reader without a token
    sees it (a game broadcast with a delay as it stood that long ago), and not at all where it is private or none
    of it is that old yet; to every caller, not at all where it is withdrawn or not as `withdrawn` asks."""
    access = ledger.vouched.access(game_id)
    if not withdrawal_listed(access, withdrawn):
        return None
    if caller.admin:
        return ledger.queries.game(game_id)
    if not may_see(access, sees_all=False, seat=None):
        return None
    try:
        return latest_for(with_access(Reader(game_id, sees_all=False, clock=clock), access), ledger)
    except NotYetBroadcast:
        return None
