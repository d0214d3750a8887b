"""A board as data: what a ruleset's `layout` gives (the `Board` capability), which the replay viewer and the
recording page draw with one renderer whatever the game (`api/static/boards.js`), so that a ruleset's board needs
no code of its own outside its package.

A board has up to three parts, each drawn only where it has something:
- spaces on a grid (a hex island, a square board), with the pieces standing on them; a tap on a space on the
  recording page enters the words of notation the space names;
- a legend beside them (what each colour means now, an auction's bids);
- panels (a location and its cards, a species' board), in groups drawn as rows of their own.

A layout is drawn for a reader: the hidden facts in it are those of the `seat` its `layout` was given alone (every
seat's for `ALL_SEATS`, none for None). Every value is plain (strings, numbers, booleans, tuples, mappings of
strings), so that `dataclasses.asdict` gives it as JSON has it. Colours are CSS colours (`#f3dc7a`); an owner's
colour is dealt by the page from the board's `owners`, so that the players' panel and the board agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

HEX = "hex"
"""A grid of flat-topped hexes on axial coordinates: `x` is the column (q), `y` the diagonal row (r)."""
SQUARE = "square"
"""A grid of squares: `x` is the column from the left, `y` the row from the top."""

THICK, DASHED = "thick", "dashed"
"""The ways a space's edge may be drawn besides the plain one (a hex island's coast, a start space)."""

SOLID, OUTLINE = "solid", "outline"
"""The ways a token is drawn: filled with its owner's colour, or edged with it (`DASHED`: edged with a dashed line)."""


def no_tags() -> Mapping[str, str]:
    return {}


@dataclass(frozen=True)
class Space:
    """A space of the board's grid."""

    id: str
    """Its name, unique on the board: the pieces standing on it name it."""
    x: int
    """Its column on the grid (`HEX`, `SQUARE` say how the grid counts)."""
    y: int
    """Its row on the grid."""
    label: str = ""
    """What is written on it (its name, say); empty: nothing."""
    fill: str = ""
    """Its colour; empty: the page's plain one."""
    title: str = ""
    """What a pointer resting on it is told (`C4: yellow, ideal, ann`); empty: its `id`."""
    edges: tuple[str, ...] = ()
    """How its edge is drawn besides the plain line: `THICK`, `DASHED`, or both."""
    tap: str | None = None
    """The words of notation a tap on it enters on the recording page (its name, mostly); None: a tap enters
    nothing."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it (`terrain`, `zone`), written on its drawing as `data-NAME` attributes for a page's
    scripts and its tests to read; nothing is drawn from them. A name is lower case, of letters, digits and
    hyphens."""


@dataclass(frozen=True)
class Piece:
    """A piece standing on a space (a dinosaur, a pawn, a nought)."""

    space: str
    """The `id` of the space it stands on."""
    owner: str
    """Whose it is: it is drawn in its owner's colour (the board's `owners` deal them)."""
    label: str = ""
    """What is written on it (`X`); empty: nothing."""
    title: str = ""
    """What a pointer resting on it is told; empty: its owner."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class Token:
    """A marker with a count, in a panel's line or on a card (survival tokens, populations)."""

    owner: str
    """Whose it is: drawn in that owner's colour."""
    count: int
    """How many it stands for."""
    text: str
    """What is written on it (`circle 2 standing`)."""
    look: str = SOLID
    """`SOLID` (filled with its owner's colour), `OUTLINE` (edged with it) or `DASHED` (edged with a dashed line)."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class Card:
    """A card lying in a panel: its name, a line of text under it, the tokens on it."""

    title: str
    """Its name, written at its top."""
    id: str = ""
    """The card's own id where the game has one (written as `data-card`); empty: none."""
    text: str = ""
    """A line under its name (its symbols); empty: none, and the card is drawn small."""
    fill: str = ""
    """Its colour; empty: white."""
    edge: str = ""
    """The colour of its edge; empty: grey."""
    tokens: tuple[Token, ...] = ()
    """The tokens lying on it."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class Line:
    """A line of a panel: words, cards, tokens, each drawn where it has any."""

    text: str = ""
    """What it says (`deck 12 · Lost Genome 3 · reserve 4`)."""
    cards: tuple[Card, ...] = ()
    """Cards drawn in a row after the text."""
    tokens: tuple[Token, ...] = ()
    """Tokens drawn in a row after the cards."""
    players_panel: bool = False
    """True: it says what a page's players' panel says already (a player's points, their hand), and a page with
    that panel (the recording page) leaves it out."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class Panel:
    """A box of its own beside the grid: a location, a species' board."""

    title: str
    """Its heading."""
    note: str = ""
    """A few words drawn small after the heading (a location's primary trait); empty: none."""
    owner: str | None = None
    """Whose it is: its edge is drawn in that owner's colour; None: nobody's."""
    lines: tuple[Line, ...] = ()
    """Its content, a line under another."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class PanelGroup:
    """Panels of one kind, drawn together as a row that wraps (the locations, then the species)."""

    name: str
    """What they are (`locations`), written as `data-group`."""
    panels: tuple[Panel, ...]
    """The panels in the order they are drawn."""


@dataclass(frozen=True)
class Key:
    """An entry of the legend drawn beside the grid: what a colour means now, a bid standing."""

    text: str
    """What it says (`yellow: ideal`, `column 2: eggs — ann 3`)."""
    swatch: str = ""
    """A colour drawn before the text (a terrain's); empty: none."""
    struck: bool = False
    """True: drawn struck through (a zone where nothing lives)."""
    wide: bool = False
    """True: given a line of its own, where short entries share one."""
    tags: Mapping[str, str] = field(default_factory=no_tags)
    """Named facts about it, as a space's `tags` are."""


@dataclass(frozen=True)
class BoardLayout:
    """A position as a board is drawn, for one reader."""

    grid: str = ""
    """How `spaces` lie: `HEX` or `SQUARE`; empty when there are none."""
    spaces: tuple[Space, ...] = ()
    """The spaces of the grid, in the order they are drawn."""
    pieces: tuple[Piece, ...] = ()
    """The pieces on the spaces, drawn over them in this order."""
    owners: tuple[str, ...] = ()
    """Whoever owns pieces, tokens or panels (players, species), in the order their colours are dealt: the first
    owner has the page's first colour. An owner not listed is drawn grey."""
    legend: tuple[Key, ...] = ()
    """The entries of the legend, in the order they are drawn."""
    groups: tuple[PanelGroup, ...] = ()
    """The panels, by group, in the order the groups are drawn."""
    says_all: bool = False
    """True: the board says all the view's `table` and `players` lines say, and a page that draws it need not list
    them again."""
