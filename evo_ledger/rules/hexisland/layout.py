"""A position on a hex island as a board is drawn (the board capability's `layout`): its spaces coloured by
terrain with the dinosaurs on them, a legend of the zone each terrain is in now, and the auction on the table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evo_ledger.rules.boards import DASHED, HEX, THICK, BoardLayout, Key, Piece, Space

TERRAIN_COLOURS = {"yellow": "#f3dc7a", "green": "#9ccc65", "brown": "#b08a5a", "grey": "#9e9e9e", "white": "#f4f4f4"}
UNKNOWN_TERRAIN = "#cccccc"
DEADLY = "deadly"


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
class Island:
    """A position on a hex island: the terrains hottest first with the zone each is in now, the board's spaces,
    the auction on the table, and the players in seat order (whose colours the dinosaurs are drawn in)."""

    terrains: tuple[str, ...]
    zones: Mapping[str, str]
    spaces: tuple[BoardSpace, ...]
    auction: tuple[AuctionItem, ...]
    players: tuple[str, ...]


def island_board(island: Island) -> BoardLayout:
    """The island as a board: a hex a space, a tap on one entering its id; the legend's terrains with their zones,
    then the auction's columns or rows with their bids."""
    return BoardLayout(
        grid=HEX,
        spaces=tuple(hex_space(island, space) for space in island.spaces),
        pieces=tuple(Piece(s.id, s.occupant) for s in island.spaces if s.occupant is not None),
        owners=island.players,
        legend=(*(terrain_key(island, terrain) for terrain in island.terrains), *map(auction_key, island.auction)),
    )


def hex_space(island: Island, space: BoardSpace) -> Space:
    zone = island.zones.get(space.terrain, "")
    occupant = f", {space.occupant}" if space.occupant else ""
    return Space(
        id=space.id,
        x=space.q,
        y=space.r,
        label=space.id,
        fill=TERRAIN_COLOURS.get(space.terrain, UNKNOWN_TERRAIN),
        title=f"{space.id}: {space.terrain}, {zone}{occupant}",
        edges=(*((THICK,) if space.coast else ()), *((DASHED,) if space.start else ())),
        tap=space.id,
        tags={"terrain": space.terrain, "zone": zone},
    )


def terrain_key(island: Island, terrain: str) -> Key:
    zone = island.zones.get(terrain, "")
    return Key(
        f"{terrain}: {zone}",
        swatch=TERRAIN_COLOURS.get(terrain, UNKNOWN_TERRAIN),
        struck=zone == DEADLY,
        tags={"terrain": terrain, "zone": zone},
    )


def auction_key(item: AuctionItem) -> Key:
    """`column 2: eggs — ann 3, ben 4`."""
    bids = " — " + ", ".join(f"{who} {amount}" for who, amount in item.bids) if item.bids else ""
    return Key(f"{item.place}: {item.item}{bids}", wide=True, tags={"auction": item.place})
