"""The actions of the trait-card game "Evo" and their text form (docs/notation/traits.md).

What chance decides at the table is recorded as it happens, never recomputed: the location boards drawn, each card
dealt face up (fauna, flora, adaptations) or drawn into a hand (trait cards, hidden), the start player, a
migration's random pick, the supply cards a genome target adds or returns, and the picks that settle ties.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evo_ledger.rules.text import Words

PLAYER = re.compile(r"[a-z][a-z0-9_]{0,31}")
NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
DEALT = ("fauna", "flora", "adaptation")
OVERRIDES = ("swap", "waive", "token")
KEYWORDS = frozenset({"deal", "start", "drop", "result", "ruleset", "kit", "players", "option"})


@dataclass(frozen=True)
class Use:
    """An adaptation named in an action, with the override it claims: `swap A B` (a card of A stands for B),
    `waive T` (one T symbol goes unpaid), `token` (one more survival token) [TR-12]."""

    adaptation: str
    override: str
    traits: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChooseSpecies:
    """The species a player plays in the first millennium [TR-03]."""

    player: str
    species: str


@dataclass(frozen=True)
class DrawLocation:
    """The location board a player drew at random [TR-04]."""

    player: str
    location: str


@dataclass(frozen=True)
class Deal:
    """A card dealt face up: a fauna or flora to a location, an adaptation to a species; `symbols` records a
    fauna's face where the kit has none [TR-02, TR-04]."""

    kind: str
    to: str
    card: str
    symbols: tuple[str, ...] = ()


@dataclass(frozen=True)
class Draw:
    """Trait cards a player draws into its species' hand: hidden from every other reader [TR-24]."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class StartPlayer:
    player: str


@dataclass(frozen=True)
class Activate:
    """The standing population at `location` becomes the active population [TR-07]."""

    player: str
    location: str


@dataclass(frozen=True)
class Hunt:
    player: str
    fauna: str
    cards: tuple[str, ...]
    uses: tuple[Use, ...] = ()


@dataclass(frozen=True)
class Forage:
    player: str
    flora: str
    cards: tuple[str, ...]
    uses: tuple[Use, ...] = ()


@dataclass(frozen=True)
class Migrate:
    """The two hand cards chosen for the journey: hidden until it resolves [TR-10, TR-24]."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Journey:
    """The random pick of the two (`card` goes face up on the deck, the other to the Lost Genome), and where the
    active population arrives [TR-10]."""

    player: str
    card: str
    location: str


@dataclass(frozen=True)
class HuntSpecies:
    """Hunt Species: 'Tbd' in the source, so always refused [TR-11]."""

    player: str
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class EndGeneration:
    player: str


@dataclass(frozen=True)
class TopUp:
    """The random supply cards a genome below its target takes in, by trait [TR-17]."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Cull:
    """The random Future Genome cards a genome above its target returns, by trait [TR-17]."""

    player: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Drop:
    """Natural selection's random pick among the adaptations tied with the fewest tokens [TR-18]."""

    species: str
    adaptation: str


@dataclass(frozen=True)
class Select:
    """A player takes a species for the next millennium [TR-19]."""

    player: str
    species: str


@dataclass(frozen=True)
class AddPopulation:
    """A reserve population token goes to a location where the species has one [TR-19]."""

    player: str
    location: str


@dataclass(frozen=True)
class MovePopulation:
    """The free move of one of the species' population tokens after selection, or none (`stays`) [TR-19]."""

    player: str
    source: str = ""
    target: str = ""


Action = (
    ChooseSpecies
    | DrawLocation
    | Deal
    | Draw
    | StartPlayer
    | Activate
    | Hunt
    | Forage
    | Migrate
    | Journey
    | HuntSpecies
    | EndGeneration
    | TopUp
    | Cull
    | Drop
    | Select
    | AddPopulation
    | MovePopulation
)
PLAYER_VERBS = (
    "species",
    "location",
    "draw",
    "active",
    "hunt",
    "forage",
    "migrate",
    "journey",
    "hunt_species",
    "end",
    "topup",
    "cull",
    "selects",
    "adds",
    "moves",
    "stays",
)


def parse_action(text: str) -> Action:
    words = Words(text)
    first = words.take("an action: deal, start, drop, or a player's name and a verb")
    action: Action
    if first == "deal":
        kind = words.choice(DEALT, "fauna, flora or adaptation")
        to = words.matching(NAME, "a location or a species")
        card = words.matching(NAME, f"a {kind} card's id")
        action = Deal(kind, to, card, tuple(words.rest(NAME, "a trait", at_least=0)))
    elif first == "start":
        action = StartPlayer(words.matching(PLAYER, "the start player"))
    elif first == "drop":
        action = Drop(words.matching(NAME, "a species"), words.matching(NAME, "an adaptation"))
    elif PLAYER.fullmatch(first) and first not in KEYWORDS:
        action = _parse_player_action(first, words)
    else:
        raise words.fail("an action: deal, start, drop, or a player's name")
    words.end()
    return action


def _parse_player_action(player: str, words: Words) -> Action:
    verb = words.choice(PLAYER_VERBS, f"a verb ({', '.join(PLAYER_VERBS)})")
    if verb in ("species", "selects"):
        species = words.matching(NAME, "a species")
        return ChooseSpecies(player, species) if verb == "species" else Select(player, species)
    if verb in ("location", "active", "adds"):
        place = words.matching(NAME, "a location")
        if verb == "location":
            return DrawLocation(player, place)
        return Activate(player, place) if verb == "active" else AddPopulation(player, place)
    if verb in ("draw", "migrate", "topup", "cull"):
        cards = tuple(words.rest(NAME, "a trait", at_least=1 if verb == "migrate" else 0))
        if verb in ("draw", "migrate"):
            return Draw(player, cards) if verb == "draw" else Migrate(player, cards)
        return TopUp(player, cards) if verb == "topup" else Cull(player, cards)
    if verb in ("hunt", "forage"):
        target = words.matching(NAME, f"the {'fauna' if verb == 'hunt' else 'flora'} card")
        cards, uses = _cards_and_uses(words)
        return (Hunt if verb == "hunt" else Forage)(player, target, cards, uses)
    if verb == "journey":
        return Journey(player, words.matching(NAME, "the card picked"), words.matching(NAME, "the location"))
    if verb == "hunt_species":
        return HuntSpecies(player, tuple(words.rest(NAME, "a word", at_least=0)))
    if verb == "moves":
        return MovePopulation(player, words.matching(NAME, "from a location"), words.matching(NAME, "to a location"))
    return MovePopulation(player) if verb == "stays" else EndGeneration(player)


def _cards_and_uses(words: Words) -> tuple[tuple[str, ...], tuple[Use, ...]]:
    cards: list[str] = []
    while words.peek() not in (None, "with"):
        cards.append(words.matching(NAME, "a trait card"))
    uses = []
    while words.peek() == "with":
        words.take("with")
        adaptation = words.matching(NAME, "an adaptation")
        override = words.choice(OVERRIDES, "swap, waive or token")
        count = {"swap": 2, "waive": 1, "token": 0}[override]
        uses.append(Use(adaptation, override, tuple(words.matching(NAME, "a trait") for _ in range(count))))
    return tuple(cards), tuple(uses)


def format_uses(uses: tuple[Use, ...]) -> list[str]:
    return [part for use in uses for part in ("with", use.adaptation, use.override, *use.traits)]


def format_action(action: Action) -> str:
    match action:
        case Deal(kind, to, card, symbols):
            return " ".join(("deal", kind, to, card, *symbols))
        case StartPlayer(player):
            return f"start {player}"
        case Drop(species, adaptation):
            return f"drop {species} {adaptation}"
        case ChooseSpecies(player, species):
            return f"{player} species {species}"
        case Select(player, species):
            return f"{player} selects {species}"
        case DrawLocation(player, place):
            return f"{player} location {place}"
        case Activate(player, place):
            return f"{player} active {place}"
        case AddPopulation(player, place):
            return f"{player} adds {place}"
        case Draw(player, cards) | Migrate(player, cards) | TopUp(player, cards) | Cull(player, cards):
            verb = {Draw: "draw", Migrate: "migrate", TopUp: "topup", Cull: "cull"}[type(action)]
            return " ".join((player, verb, *cards))
        case Hunt(player, target, cards, uses) | Forage(player, target, cards, uses):
            verb = "hunt" if isinstance(action, Hunt) else "forage"
            return " ".join((player, verb, target, *cards, *format_uses(uses)))
        case Journey(player, card, place):
            return f"{player} journey {card} {place}"
        case HuntSpecies(player, said):
            return " ".join((player, "hunt_species", *said))
        case MovePopulation(player, source, target):
            return f"{player} moves {source} {target}" if source else f"{player} stays"
        case EndGeneration(player):
            return f"{player} end"
    raise TypeError(f"not a traits action: {action!r}")
