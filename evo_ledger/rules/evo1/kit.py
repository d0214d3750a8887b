"""Evo 1st edition kits: the two half-boards, the starred beaches, the climate chart, the meteor track, the gene
bag, the species sheet and the 26 event cards, as validated data (format in docs/kits.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evo_ledger.rules.hexisland.kit import Space, check_islands, hex_steps, neighbours_of, parse_spaces
from evo_ledger.rules.kits import KitReader, canonical_hash

FORMAT_VERSION = 1
PLAYER_COUNTS = range(3, 6)
GENES = ("tail", "foot", "horn", "egg", "fur", "parasol", "mutant", "card")
CARD_GENE = "card"


@dataclass(frozen=True)
class CardSpec:
    """An event card: its id, the rulebook line of its text, when it may be played, whether it is a climate card."""

    id: str
    text_line: int
    window: str
    climate: bool


@dataclass(frozen=True)
class Kit:
    name: str
    stand_in: bool
    players: int
    terrains: tuple[str, ...]
    """Hottest first [E1-07]."""
    halves: tuple[str, ...]
    spaces: Mapping[str, Space]
    neighbours: Mapping[str, frozenset[str]]
    half_of: Mapping[str, str]
    start_beaches: tuple[str, ...]
    chart: tuple[str, ...]
    chart_start: int
    meteor_track: tuple[int | None, ...]
    meteor_start: int
    genes: Mapping[str, int]
    sheet: Mapping[str, int]
    dinosaurs_per_player: int
    start_mp: int
    hand: int
    cards: tuple[CardSpec, ...]
    content_hash: str
    center: tuple[int, int] | None = None
    """The centre of the island as a hex coordinate, where the Autosaurs' fourth preference measures from; None:
    the land hex nearest the mean of all land coordinates [AS-07]."""
    zones: tuple[Mapping[str, str], ...] = field(init=False, compare=False, repr=False)
    """For each chart position, the zone of every space [E1-07]."""
    card_ids: tuple[str, ...] = field(init=False, compare=False, repr=False)
    _rings: dict[tuple[str, int], frozenset[str]] = field(default_factory=dict, init=False, compare=False, repr=False)
    """The spaces `within` found, by space and reach. Like the zones and the card ids, made with the kit, not
    cached on first reading: an object whose `__dict__` was written to is slower at every attribute read (pays
    for: bench.rules_speed check+apply)."""

    def __post_init__(self) -> None:
        zones = tuple(
            {space.id: zone(self.terrains, colour, space.terrain) for space in self.spaces.values()}
            for colour in self.chart
        )
        object.__setattr__(self, "zones", zones)
        object.__setattr__(self, "card_ids", tuple(card.id for card in self.cards))

    def within(self, space: str, reach: int) -> frozenset[str]:
        """The other spaces at most `reach` from `space`, whatever lies between [E1-26]."""
        rings = self._rings
        found = rings.get((space, reach))
        if found is None:
            found = rings[space, reach] = frozenset(
                other for other in self.spaces if other != space and self.distance(space, other) <= reach
            )
        return found

    def distance(self, a: str, b: str) -> int:
        sa, sb = self.spaces[a], self.spaces[b]
        return hex_steps(sa.q - sb.q, sa.r - sb.r)


def zone(terrains: tuple[str, ...], ideal: str, terrain: str) -> str:
    """Ideal on the chart's colour, hot one colour warmer, cold one colder, deadly elsewhere [E1-07]."""
    step = terrains.index(terrain) - terrains.index(ideal)
    return {0: "ideal", -1: "hot", 1: "cold"}.get(step, "deadly")


def parse_kit(document: Any, label: str = "kit") -> Kit:
    reader = KitReader(label)
    root = reader.document(document, FORMAT_VERSION)
    players = reader.integer(root, "players")
    if players not in PLAYER_COUNTS:
        reader.fail("players", f"[E1-01] Evo 1st edition is for 3 to 5 players, not {players}")
    terrains = tuple(reader.strings(root, "terrains"))
    if len(terrains) != 4:
        reader.fail("terrains", "needs the four colours, hottest first [E1-07]")
    spaces = parse_spaces(reader, root, terrains)
    neighbours = neighbours_of(spaces)
    check_islands(reader, spaces, neighbours, 1)
    halves = tuple(reader.strings(root, "halves"))
    components = reader.mapping(root.get("components"), "components")
    chart, chart_start = _parse_chart(reader, root, terrains)
    track, track_start = _parse_meteor(reader, root, players)
    return Kit(
        name=reader.string(root, "name"),
        stand_in=reader.boolean(root, "stand_in"),
        players=players,
        terrains=terrains,
        halves=halves,
        spaces=spaces,
        neighbours=neighbours,
        half_of=_parse_halves(reader, root, halves),
        start_beaches=_parse_beaches(reader, root, spaces, terrains, players),
        chart=chart,
        chart_start=chart_start,
        meteor_track=track,
        meteor_start=track_start,
        genes=_parse_counts(reader, root, "genes", GENES),
        sheet=_parse_counts(reader, root, "sheet", tuple(g for g in GENES if g != CARD_GENE)),
        dinosaurs_per_player=reader.integer(components, "dinosaurs_per_player", minimum=1, where="components"),
        start_mp=reader.integer(components, "start_mp", minimum=0, where="components"),
        hand=reader.integer(components, "hand", minimum=0, where="components"),
        cards=_parse_cards(reader, root, players),
        content_hash=canonical_hash(root),
        center=_parse_center(reader, root),
    )


def _parse_center(reader: KitReader, root: Mapping[str, Any]) -> tuple[int, int] | None:
    found = root.get("center")
    if found is None:
        return None
    if not (isinstance(found, list) and len(found) == 2 and all(type(value) is int for value in found)):
        reader.fail("center", f"must be a hex coordinate [q, r], got {found!r} [AS-07]")
    return found[0], found[1]


def _parse_halves(reader: KitReader, root: Mapping[str, Any], halves: tuple[str, ...]) -> dict[str, str]:
    if len(halves) != 2:
        reader.fail("halves", "the board is two half-boards [E1-01]")
    half_of = {}
    for index, entry in enumerate(reader.sequence(root.get("spaces"), "spaces")):
        half_of[entry["id"]] = reader.choice(entry, "half", halves, where=f"spaces[{index}]")
    return half_of


def _parse_beaches(
    reader: KitReader, root: Mapping[str, Any], spaces: Mapping[str, Space], terrains: tuple[str, ...], players: int
) -> tuple[str, ...]:
    beaches = reader.strings(root, "start_beaches")
    if len(beaches) != players:
        reader.fail("start_beaches", f"needs one starred beach a player ({players}), got {len(beaches)} [E1-01]")
    for space in beaches:
        if space not in spaces:
            reader.fail("start_beaches", f"{space!r} is not a space of the board")
        if spaces[space].terrain != terrains[0]:
            reader.fail("start_beaches", f"{space!r} is {spaces[space].terrain}, not a beach ({terrains[0]})")
    return tuple(beaches)


def _parse_chart(reader: KitReader, root: Mapping[str, Any], terrains: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    chart = reader.mapping(root.get("climate_chart"), "climate_chart")
    positions = reader.sequence(chart.get("positions"), "climate_chart.positions")
    for index, colour in enumerate(positions):
        if colour not in terrains:
            reader.fail(f"climate_chart.positions[{index}]", f"{colour!r} is not one of {', '.join(terrains)}")
    if not positions:
        reader.fail("climate_chart.positions", "the chart needs at least one position [E1-06]")
    start = reader.integer(chart, "start", minimum=0, maximum=len(positions) - 1, where="climate_chart")
    return tuple(positions), start


def _parse_meteor(reader: KitReader, root: Mapping[str, Any], players: int) -> tuple[tuple[int | None, ...], int]:
    track = reader.mapping(root.get("meteor_track"), "meteor_track")
    spaces = reader.sequence(track.get("spaces"), "meteor_track.spaces")
    if len(spaces) < 2:
        reader.fail("meteor_track.spaces", "the track needs a start and an end [E1-13]")
    for index, number in enumerate(spaces):
        if number is not None and (not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= 6):
            reader.fail(f"meteor_track.spaces[{index}]", f"must be null or a die number 1 to 6, got {number!r}")
    starts = reader.mapping(track.get("start"), "meteor_track.start")
    start = reader.integer(starts, str(players), minimum=0, maximum=len(spaces) - 2, where="meteor_track.start")
    return tuple(spaces), start


def _parse_counts(reader: KitReader, root: Mapping[str, Any], key: str, names: tuple[str, ...]) -> dict[str, int]:
    counts = reader.mapping(root.get(key), key)
    if set(counts) != set(names):
        reader.fail(key, f"must give exactly {', '.join(names)}")
    return {name: reader.integer(counts, name, minimum=0, where=key) for name in names}


def _parse_cards(reader: KitReader, root: Mapping[str, Any], players: int) -> tuple[CardSpec, ...]:
    cards = []
    for index, entry in enumerate(reader.sequence(root.get("event_cards"), "event_cards")):
        where = f"event_cards[{index}]"
        item = reader.mapping(entry, where)
        climate = item.get("climate")
        if not isinstance(climate, bool):
            reader.fail(f"{where}.climate", f"must be true or false, got {climate!r}")
        cards.append(
            CardSpec(
                reader.string(item, "id", where=where),
                reader.integer(item, "text_line", minimum=1, where=where),
                reader.string(item, "window", where=where),
                climate,
            )
        )
    ids = [card.id for card in cards]
    if len(set(ids)) != len(ids):
        reader.fail("event_cards", "each card id must be different [E1-23]")
    hand = reader.integer(reader.mapping(root.get("components"), "components"), "hand", minimum=0, where="components")
    if len(ids) < hand * players:
        reader.fail("event_cards", f"{len(ids)} cards cannot deal {hand} to each of {players} players")
    return tuple(cards)
