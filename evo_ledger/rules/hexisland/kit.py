"""Island kits: the physical components of an Evo board game as validated data.

An island kit is a JSON document (format in docs/kits.md): the island's spaces on a hex grid, the start marks
paired with seats, the climate wheel and its tokens, the gene bag and the component counts. Parsing checks every
part and gives the kit's content hash, which a game pins so that its replay never changes when a kit file does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from evo_ledger.rules.kits import KitReader, canonical_hash

FORMAT_VERSION = 1
ZONES = ("ideal", "hot", "cold", "deadly")
HEX_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@dataclass(frozen=True)
class Space:
    id: str
    q: int
    r: int
    terrain: str
    coast: bool


@dataclass(frozen=True)
class ClimateWheel:
    positions: tuple[Mapping[str, str], ...]
    start: int
    tokens: Mapping[str, int]
    removed_unseen: int
    meteorite_among_last: int


@dataclass(frozen=True)
class GeneBag:
    normal: Mapping[str, int]
    unique: tuple[str, ...]
    unique_in_bag: int


@dataclass(frozen=True)
class CardDefinition:
    """An event card the kit defines: the phases it may be played in (any if empty) and its effects' kinds."""

    phases: tuple[str, ...]
    effects: tuple[str, ...]


@dataclass(frozen=True)
class Kit:
    name: str
    edition: str
    stand_in: bool
    players: int
    terrains: tuple[str, ...]
    spaces: Mapping[str, Space]
    neighbours: Mapping[str, frozenset[str]]
    start_marks: Mapping[int, tuple[str, ...]]
    climate: ClimateWheel
    genes: GeneBag
    dinosaurs_per_player: int
    event_cards: int
    content_hash: str
    cards: Mapping[str, CardDefinition] = field(default_factory=dict)
    zones: tuple[Mapping[str, str], ...] = field(init=False, compare=False, repr=False)
    """For each wheel position, the zone of every space. Reckoned with the kit, not cached on first reading: an
    object whose `__dict__` was written to is slower at every attribute read (pays for: bench.rules_speed
    check+apply)."""

    def __post_init__(self) -> None:
        zones = tuple(
            {space.id: position[space.terrain] for space in self.spaces.values()} for position in self.climate.positions
        )
        object.__setattr__(self, "zones", zones)

    def distance(self, a: str, b: str) -> int:
        """Hex distance between two spaces, whatever lies between them."""
        sa, sb = self.spaces[a], self.spaces[b]
        return hex_steps(sa.q - sb.q, sa.r - sb.r)


def hex_steps(dq: int, dr: int) -> int:
    """The hexes an axial offset spans."""
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def parse_kit(document: Any, label: str = "kit") -> Kit:
    reader = KitReader(label)
    root = reader.document(document, FORMAT_VERSION)
    terrains = tuple(reader.strings(root, "terrains"))
    spaces = parse_spaces(reader, root, terrains)
    neighbours = neighbours_of(spaces)
    islands = reader.integer(root, "islands", minimum=1, default=1)
    check_islands(reader, spaces, neighbours, islands)
    players = reader.integer(root, "players", minimum=1)
    components = reader.mapping(root.get("components"), "components")
    return Kit(
        name=reader.string(root, "name"),
        edition=reader.string(root, "edition"),
        stand_in=reader.boolean(root, "stand_in"),
        players=players,
        terrains=terrains,
        spaces=spaces,
        neighbours=neighbours,
        start_marks=_parse_start_marks(reader, root, spaces, players),
        climate=_parse_climate(reader, root, terrains),
        genes=_parse_genes(reader, root),
        dinosaurs_per_player=reader.integer(components, "dinosaurs_per_player", minimum=1, where="components"),
        event_cards=reader.integer(components, "event_cards", minimum=0, where="components"),
        content_hash=canonical_hash(root),
        cards=_parse_cards(reader, root),
    )


def _parse_cards(reader: KitReader, root: Mapping[str, Any]) -> dict[str, CardDefinition]:
    """The optional `event_card_catalogue`: card name to the phases it is played in and its effects."""
    catalogue = reader.mapping(root.get("event_card_catalogue", {}), "event_card_catalogue")
    cards = {}
    for name, entry in catalogue.items():
        where = f"event_card_catalogue.{name}"
        item = reader.mapping(entry, where)
        phases = reader.strings(item, "phases", where=where) if "phases" in item else []
        cards[name] = CardDefinition(tuple(phases), tuple(reader.sequence(item.get("effects"), f"{where}.effects")))
    return cards


def parse_spaces(reader: KitReader, root: Mapping[str, Any], terrains: tuple[str, ...]) -> dict[str, Space]:
    entries = reader.sequence(root.get("spaces"), "spaces")
    if not entries:
        reader.fail("spaces", "the island needs at least one space")
    spaces: dict[str, Space] = {}
    seen_coords: dict[tuple[int, int], str] = {}
    for index, entry in enumerate(entries):
        where = f"spaces[{index}]"
        item = reader.mapping(entry, where)
        space_id = reader.string(item, "id", where=where)
        q, r = reader.integer(item, "q", where=where), reader.integer(item, "r", where=where)
        terrain = reader.choice(item, "terrain", terrains, where=where)
        if space_id in spaces:
            reader.fail(f"{where}.id", f"{space_id!r} is used by another space")
        if (q, r) in seen_coords:
            reader.fail(where, f"coordinates ({q}, {r}) are already those of {seen_coords[(q, r)]!r}")
        seen_coords[(q, r)] = space_id
        coast = item.get("coast")
        spaces[space_id] = Space(space_id, q, r, terrain, coast if isinstance(coast, bool) else False)
        if coast is not None and not isinstance(coast, bool):
            reader.fail(f"{where}.coast", f"must be true or false, got {coast!r}")
    return _derive_missing_coasts(spaces, entries, seen_coords)


def _derive_missing_coasts(
    spaces: dict[str, Space], entries: list[Any], coords: Mapping[tuple[int, int], str]
) -> dict[str, Space]:
    """A space whose `coast` is left out borders the sea if one of its six hex neighbours is not land."""
    result: dict[str, Space] = {}
    for entry, space in zip(entries, spaces.values(), strict=True):
        if "coast" in entry:
            result[space.id] = space
            continue
        open_sides = any((space.q + dq, space.r + dr) not in coords for dq, dr in HEX_DIRECTIONS)
        result[space.id] = Space(space.id, space.q, space.r, space.terrain, open_sides)
    return result


def neighbours_of(spaces: Mapping[str, Space]) -> dict[str, frozenset[str]]:
    by_coords = {(s.q, s.r): s.id for s in spaces.values()}
    return {
        s.id: frozenset(
            by_coords[(s.q + dq, s.r + dr)] for dq, dr in HEX_DIRECTIONS if (s.q + dq, s.r + dr) in by_coords
        )
        for s in spaces.values()
    }


def check_islands(
    reader: KitReader, spaces: Mapping[str, Space], neighbours: Mapping[str, frozenset[str]], declared: int
) -> None:
    unvisited = set(spaces)
    found = 0
    while unvisited:
        found += 1
        frontier = [unvisited.pop()]
        while frontier:
            for other in neighbours[frontier.pop()]:
                if other in unvisited:
                    unvisited.remove(other)
                    frontier.append(other)
    if found != declared:
        reader.fail("islands", f"the spaces form {found} island(s) on the hex grid, but the kit declares {declared}")


def _parse_start_marks(
    reader: KitReader, root: Mapping[str, Any], spaces: Mapping[str, Space], players: int
) -> dict[int, tuple[str, ...]]:
    marks = reader.mapping(root.get("start_marks"), "start_marks")
    expected = {str(seat) for seat in range(1, players + 1)}
    if set(marks) != expected:
        reader.fail("start_marks", f"needs exactly the seats {sorted(expected, key=int)}, got {sorted(marks)}")
    owner: dict[str, int] = {}
    result: dict[int, tuple[str, ...]] = {}
    for seat_text in marks:
        seat = int(seat_text)
        where = f"start_marks.{seat}"
        ids = reader.strings(marks, seat_text, where="start_marks")
        for space_id in ids:
            if space_id not in spaces:
                reader.fail(where, f"{space_id!r} is not a space of the island")
            if space_id in owner:
                reader.fail(where, f"{space_id!r} is already the start mark of seat {owner[space_id]}")
            owner[space_id] = seat
        result[seat] = tuple(ids)
    return result


def _parse_climate(reader: KitReader, root: Mapping[str, Any], terrains: tuple[str, ...]) -> ClimateWheel:
    climate = reader.mapping(root.get("climate"), "climate")
    positions = []
    for index, entry in enumerate(reader.sequence(climate.get("positions"), "climate.positions")):
        where = f"climate.positions[{index}]"
        mapping = reader.mapping(entry, where)
        if set(mapping) != set(terrains):
            reader.fail(where, f"must give a zone for exactly the terrains {list(terrains)}")
        for terrain in terrains:
            reader.choice(mapping, terrain, ZONES, where=where)
        positions.append(dict(mapping))
    if not positions:
        reader.fail("climate.positions", "the wheel needs at least one position")
    tokens = reader.mapping(climate.get("tokens"), "climate.tokens")
    for kind in tokens:
        reader.integer(tokens, kind, minimum=0, where="climate.tokens")
    return ClimateWheel(
        positions=tuple(positions),
        start=reader.integer(climate, "start", minimum=0, maximum=len(positions) - 1, where="climate"),
        tokens=dict(tokens),
        removed_unseen=reader.integer(climate, "removed_unseen", minimum=0, where="climate"),
        meteorite_among_last=reader.integer(climate, "meteorite_among_last", minimum=1, where="climate"),
    )


def _parse_genes(reader: KitReader, root: Mapping[str, Any]) -> GeneBag:
    genes = reader.mapping(root.get("genes"), "genes")
    normal = reader.mapping(genes.get("normal"), "genes.normal")
    for kind in normal:
        reader.integer(normal, kind, minimum=0, where="genes.normal")
    unique = tuple(reader.strings(genes, "unique", where="genes"))
    overlap = sorted(set(unique) & set(normal))
    if overlap:
        reader.fail("genes.unique", f"{overlap} are also normal genes")
    return GeneBag(
        normal=dict(normal),
        unique=unique,
        unique_in_bag=reader.integer(genes, "unique_in_bag", minimum=0, maximum=len(unique), where="genes"),
    )
