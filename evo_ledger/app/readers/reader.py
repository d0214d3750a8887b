"""A caller reading a game with the token it holds (or none): what that token lets it see, whom it may read as
instead (`?as=`), and whether it still reads as it began."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from uuid import UUID

from evo_ledger.app.access import GameAccess, RecorderRefused

PUBLIC_PERSPECTIVE = "public"


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

    @property
    def known_token(self) -> str | None:
        """The token the game knows the reader by, as the recorder or a seat it reads as; None for one who reads
        as the public."""
        return self.token if self.sees_all or self.seat is not None else None

    def perspectives(self, players: Sequence[str]) -> list[str]:
        """What the token's holder may read as (`as`), whatever it reads as now: the public and every seat for one
        who sees all, the public for a seat, nothing for the public."""
        if self.holder_sees_all:
            return [PUBLIC_PERSPECTIVE, *players]
        return [PUBLIC_PERSPECTIVE] if self.holder_seat is not None else []


class UnknownPerspective(ValueError):
    """A perspective (`as`) that is neither the public nor a seat of the game."""

    code = "unknown_perspective"


class PerspectiveRefused(PermissionError):
    """A perspective the token's holder may not read as: one who sees more than it does."""

    code = "perspective_refused"


def narrowed(holder: Reader, perspective: str, players: Sequence[str]) -> Reader:
    """The holder reading as `perspective`: never as one who sees more than the holder does."""
    if perspective == PUBLIC_PERSPECTIVE:
        return replace(holder, sees_all=False, seat=None, narrowed=holder.sees_all or holder.seat is not None)
    if perspective not in players:
        seats = ", ".join(players)
        raise UnknownPerspective(f"as: {perspective[:64]!r} is not 'public' nor a seat ({seats})")
    if not holder.sees_all and holder.seat != perspective:
        raise PerspectiveRefused(f"as: this token may not read as {perspective}")
    return replace(holder, sees_all=False, seat=perspective, narrowed=holder.sees_all)


def may_see(access: GameAccess | None, sees_all: bool, seat: str | None) -> bool:
    """Whether a reader sees that a game exists: a private one is seen only by its recorder, its seats and the
    admin."""
    return access is None or not access.private or sees_all or seat is not None


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


class RecordersOnly(RecorderRefused):
    """What is given only to those who record the game (who see every hidden fact), asked with another token."""


def check_records_game(reader: Reader, refusal: str) -> None:
    """Refused (RecordersOnly, saying `refusal`) unless the reader's token records the game (the recorder's, a
    co-recorder's, the admin's), whatever it reads as."""
    if not reader.holder_sees_all:
        raise RecordersOnly(reader.game_id, refusal)
