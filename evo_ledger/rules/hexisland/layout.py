"""The layout of a position on a hex island, as the viewer draws it (the board capability's `layout`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class BoardSpace:
    """A space of a board drawn on a hex grid: flat-topped axial coordinates, its terrain, whether it is on the
    coast or a start, and who stands on it."""

    id: str
    q: int
    r: int
    terrain: str
    coast: bool
    start: bool
    occupant: str | None


@dataclass(frozen=True)
class AuctionItem:
    """What is up for auction in one column or row, and the bids standing on it."""

    place: str
    item: str
    bids: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Layout:
    """A position on a hex island as a picture is drawn: the terrains hottest first with the zone each is in now,
    the board's spaces, and the auction on the table."""

    terrains: tuple[str, ...]
    zones: Mapping[str, str]
    spaces: tuple[BoardSpace, ...]
    auction: tuple[AuctionItem, ...] = ()
    kind: str = "hex-island"
    """The drawing the viewer makes of it."""
