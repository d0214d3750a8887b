"""Kits of the trait-card game "Evo": the trait types, the locations and their primary traits, the fauna with
their symbols, the flora, the adaptations and their effects, the species and the component counts, as validated
data (format in docs/kits.md) [TR-01, TR-02]."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evo_ledger.rules.kits import KitReader, canonical_hash

FORMAT_VERSION = 1
EFFECT_KINDS = ("swap", "waive", "token")


@dataclass(frozen=True)
class Fauna:
    id: str
    type: str
    primary: str
    symbols: tuple[str, ...] | None
    """The trait cards a hunt plays, or None where the kit does not know the face [TR-02]."""


@dataclass(frozen=True)
class Flora:
    id: str
    type: str
    primary: str


@dataclass(frozen=True)
class Effect:
    """An adaptation's machine-readable effect: `swap` (a card of `traits[0]` stands for `traits[1]`), `waive` (one
    symbol of `traits[0]` goes unpaid) or `token` (one more survival token on the target) [TR-12]."""

    kind: str
    traits: tuple[str, ...] = ()


@dataclass(frozen=True)
class Adaptation:
    id: str
    name: str
    effect: Effect | None


@dataclass(frozen=True)
class Kit:
    name: str
    stand_in: bool
    min_players: int
    max_players: int
    traits: tuple[str, ...]
    trait_cards: int
    locations: Mapping[str, str]
    """Each location's primary trait, in the kit's order."""
    fauna: Mapping[str, Fauna]
    flora: Mapping[str, Flora]
    adaptations: Mapping[str, Adaptation]
    species: tuple[str, ...]
    population: int
    start_population: int
    survival_tokens: int
    hand: int
    deck_per_trait: int
    start_adaptations: int
    genome_targets: tuple[int, ...]
    bonus: tuple[tuple[int, int], ...]
    """(from tokens, points), lowest first [TR-16]."""
    content_hash: str

    @property
    def players(self) -> int:
        return self.max_players

    def bonus_for(self, tokens: int) -> int:
        return max((points for least, points in self.bonus if tokens >= least), default=0)


def parse_kit(document: Any, label: str = "kit") -> Kit:
    reader = KitReader(label)
    root = reader.document(document, FORMAT_VERSION)
    traits = tuple(reader.strings(root, "traits"))
    players = reader.mapping(root.get("players"), "players")
    components = reader.mapping(root.get("components"), "components")
    minimum = reader.integer(players, "min", minimum=1, where="players")
    targets = reader.sequence(root.get("genome_targets"), "genome_targets")
    if len(targets) != 4 or not all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in targets):
        reader.fail("genome_targets", "must be the four millennia's targets, whole numbers above 0 [TR-17]")
    return Kit(
        name=reader.string(root, "name"),
        stand_in=reader.boolean(root, "stand_in"),
        min_players=minimum,
        max_players=reader.integer(players, "max", minimum=minimum, where="players"),
        traits=traits,
        trait_cards=reader.integer(root, "trait_cards", minimum=0),
        locations=_parse_locations(reader, root, traits),
        fauna=_parse_fauna(reader, root, traits),
        flora={card.id: card for card in _parse_typed(reader, root, "flora", traits)},
        adaptations=_parse_adaptations(reader, root, traits),
        species=tuple(reader.strings(root, "species")),
        population=reader.integer(components, "population", minimum=1, where="components"),
        start_population=reader.integer(components, "start_population", minimum=1, where="components"),
        survival_tokens=reader.integer(components, "survival_tokens", minimum=1, where="components"),
        hand=reader.integer(components, "hand", minimum=1, where="components"),
        deck_per_trait=reader.integer(components, "deck_per_trait", minimum=0, where="components"),
        start_adaptations=reader.integer(components, "start_adaptations", minimum=0, where="components"),
        genome_targets=tuple(targets),
        bonus=_parse_bonus(reader, root),
        content_hash=canonical_hash(root),
    )


def _parse_locations(reader: KitReader, root: Mapping[str, Any], traits: tuple[str, ...]) -> dict[str, str]:
    found = {}
    for index, entry in enumerate(reader.sequence(root.get("locations"), "locations")):
        where = f"locations[{index}]"
        item = reader.mapping(entry, where)
        found[reader.string(item, "id", where)] = reader.choice(item, "primary", traits, where)
    return found


def _parse_typed(reader: KitReader, root: Mapping[str, Any], key: str, traits: tuple[str, ...]) -> list[Flora]:
    cards = []
    for index, entry in enumerate(reader.sequence(root.get(key), key)):
        where = f"{key}[{index}]"
        item = reader.mapping(entry, where)
        cards.append(
            Flora(
                reader.string(item, "id", where),
                reader.string(item, "type", where),
                reader.choice(item, "primary", traits, where),
            )
        )
    if len({card.id for card in cards}) != len(cards):
        reader.fail(key, "each card id must be different")
    return cards


def _parse_fauna(reader: KitReader, root: Mapping[str, Any], traits: tuple[str, ...]) -> dict[str, Fauna]:
    entries = reader.sequence(root.get("fauna"), "fauna")
    found = {}
    for card, entry in zip(_parse_typed(reader, root, "fauna", traits), entries, strict=True):
        symbols = entry.get("symbols")
        if symbols is not None and (
            not symbols or any(symbol not in traits for symbol in reader.sequence(symbols, card.id))
        ):
            reader.fail(f"fauna {card.id}.symbols", f"must be null or a list of traits ({', '.join(traits)})")
        found[card.id] = Fauna(card.id, card.type, card.primary, tuple(symbols) if symbols is not None else None)
    return found


def _parse_adaptations(reader: KitReader, root: Mapping[str, Any], traits: tuple[str, ...]) -> dict[str, Adaptation]:
    found = {}
    for index, entry in enumerate(reader.sequence(root.get("adaptations"), "adaptations")):
        where = f"adaptations[{index}]"
        item = reader.mapping(entry, where)
        identity = reader.string(item, "id", where)
        found[identity] = Adaptation(
            identity, reader.string(item, "name", where), _parse_effect(reader, item, where, traits)
        )
    if len(found) != len(reader.sequence(root.get("adaptations"), "adaptations")):
        reader.fail("adaptations", "each card id must be different")
    return found


def _parse_effect(reader: KitReader, item: Mapping[str, Any], where: str, traits: tuple[str, ...]) -> Effect | None:
    effect = item.get("effect")
    if effect is None:
        return None
    effect = reader.mapping(effect, f"{where}.effect")
    if len(effect) != 1 or next(iter(effect)) not in EFFECT_KINDS:
        reader.fail(f"{where}.effect", f"must be null or one of {', '.join(EFFECT_KINDS)}")
    kind, value = next(iter(effect.items()))
    named = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    expected = {"swap": 2, "waive": 1, "token": 0}[kind]
    if kind != "token" and (len(named) != expected or any(trait not in traits for trait in named)):
        reader.fail(f"{where}.effect.{kind}", f"must name {expected} trait{'s' if expected > 1 else ''}")
    return Effect(kind, tuple(named) if kind != "token" else ())


def _parse_bonus(reader: KitReader, root: Mapping[str, Any]) -> tuple[tuple[int, int], ...]:
    rows = []
    for index, entry in enumerate(reader.sequence(root.get("bonus"), "bonus")):
        item = reader.mapping(entry, f"bonus[{index}]")
        rows.append(
            (
                reader.integer(item, "from", minimum=0, where=f"bonus[{index}]"),
                reader.integer(item, "points", where=f"bonus[{index}]"),
            )
        )
    return tuple(sorted(rows))
