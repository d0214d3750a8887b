"""The actions of an Evo 2nd edition game and their text form (docs/notation/evo2.md).

Each action is a frozen value. Facts that chance decides at the table (the initiative draw, a climate token,
a gene drawn, a die face) are actions too, recorded as they happen, never recomputed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evo_ledger.rules.text import NotationError, Words

PLAYER = re.compile(r"[a-z][a-z0-9_]{0,31}")
CARD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")
SPACE = re.compile(r"[A-Za-z0-9]{1,8}")
GENE = re.compile(r"[a-z][a-z0-9_]*")
CLIMATE_TOKENS = ("meteorite", "cw", "cw2", "zero", "acw")
DIE_FACES = ("horn", "horn=", "horn+", "horn++", "x")
BID_CARD = "card"
NO_GENE = "none"
KEYWORDS = frozenset({"order", "climate", "draw", "roll", "result", "ruleset", "kit", "players", "option"})
OVERRIDE = re.compile(r"(?P<action>.*\S)\s+override\s+(?P<card>\S+)\s*")
# Card effects: facts happen at once; the others are modifiers that last for the phase or the round.
FACT_EFFECTS = ("remove", "shift", "mp")
SIGNED_MODIFIERS = ("defence", "attack", "fur", "thermo")
VALUED_MODIFIERS = ("movement", "birth_range")
PLAIN_MODIFIERS = ("no_attacks", "no_births", "survive_cold", "survive_hot")
EFFECT_KINDS = (*FACT_EFFECTS, "peace", *SIGNED_MODIFIERS, *VALUED_MODIFIERS, *PLAIN_MODIFIERS)
DURATIONS = ("phase", "round")


@dataclass(frozen=True)
class SetOrder:
    """The clan markers' random places on the initiative track before round 1."""

    players: tuple[str, ...]


@dataclass(frozen=True)
class RevealClimate:
    token: str


@dataclass(frozen=True)
class DrawGene:
    """A gene token drawn from the bag; `gene` None records that the bag cannot fill the lab."""

    gene: str | None


@dataclass(frozen=True)
class Bid:
    """`target` is `card` (column 1), a gene in the lab, or `colN` for column N."""

    player: str
    amount: int
    target: str


@dataclass(frozen=True)
class Move:
    """One dinosaur walks along `path`, one movement point a step."""

    player: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class Attack:
    player: str
    source: str
    target: str


@dataclass(frozen=True)
class Roll:
    face: str


@dataclass(frozen=True)
class Birth:
    """A new dinosaur on `space`; `relocated_from` is the own dinosaur taken off when all are on the board."""

    player: str
    space: str
    relocated_from: str | None = None


@dataclass(frozen=True)
class Pass:
    """The player ends their movement, or lets this birth pass go by."""

    player: str


@dataclass(frozen=True)
class Remove:
    """The owner's choice of which excess dinosaurs the climate takes in the survival phase."""

    player: str
    spaces: tuple[str, ...]


@dataclass(frozen=True)
class Fly:
    """Wings: once per movement phase, a dinosaur to an empty space at hex distance 2, for 1 point."""

    player: str
    source: str
    target: str


@dataclass(frozen=True)
class Swim:
    """Flippers: once per movement phase, a dinosaur from a coastal space to an empty coastal space, for 1 point."""

    player: str
    source: str
    target: str


@dataclass(frozen=True)
class Escape:
    """Chameleon skin: the losing defender's move to an adjacent empty space."""

    player: str
    target: str


@dataclass(frozen=True)
class Peek:
    """Sixth sense: the holder sees the next climate token. Hidden from everyone else."""

    player: str
    token: str


@dataclass(frozen=True)
class Slot:
    """Adrenaline rush: the holder's chosen place on the initiative track, 1 being first."""

    player: str
    place: int


@dataclass(frozen=True)
class Drew:
    """The event card a player drew. Hidden from everyone else until played."""

    player: str
    card: str


@dataclass(frozen=True)
class Effect:
    """One effect of a played card: a fact (`remove`, `shift`, `mp`) or a modifier lasting `until`."""

    kind: str
    space: str | None = None
    player: str | None = None
    value: int = 0
    until: str | None = None


@dataclass(frozen=True)
class PlayCard:
    player: str
    card: str
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Overridden:
    """An action the rules would refuse, recorded as legal because of a card its player has played."""

    action: PlayerAction
    card: str


PlayerAction = Bid | Move | Attack | Birth | Pass | Remove | Fly | Swim | Escape | Peek | Slot | Drew | PlayCard
Action = SetOrder | RevealClimate | DrawGene | Roll | PlayerAction | Overridden

PLAYER_VERBS = (
    "bid",
    "move",
    "attack",
    "birth",
    "pass",
    "remove",
    "fly",
    "swim",
    "escape",
    "peek",
    "slot",
    "drew",
    "play",
)


def parse_action(text: str) -> Action:
    overridden = OVERRIDE.fullmatch(text) if " override " in text else None
    if overridden:
        inner = parse_action(overridden.group("action"))
        card_column = overridden.start("card") + 1
        if not isinstance(inner, PlayerAction):
            raise NotationError(1, "a player's action before 'override'", repr(overridden.group("action")))
        if not CARD.fullmatch(overridden.group("card")):
            raise NotationError(card_column, "a card's name", repr(overridden.group("card")))
        return Overridden(inner, overridden.group("card"))
    words = Words(text)
    first = words.take("an action: order, climate, draw, roll, or a player's name and a verb")
    action: Action
    if first == "order":
        action = SetOrder(tuple(words.rest(PLAYER, "a player's name")))
    elif first == "climate":
        action = RevealClimate(words.choice(CLIMATE_TOKENS, f"a climate token ({', '.join(CLIMATE_TOKENS)})"))
    elif first == "draw":
        gene = words.matching(GENE, f"a gene's name or {NO_GENE!r}")
        action = DrawGene(None if gene == NO_GENE else gene)
    elif first == "roll":
        action = Roll(words.choice(DIE_FACES, f"a die face ({', '.join(DIE_FACES)})"))
    elif PLAYER.fullmatch(first):
        action = _parse_player_action(first, words)
    else:
        raise words.fail("an action: order, climate, draw, roll, or a player's name")
    words.end()
    return action


def _parse_player_action(player: str, words: Words) -> Action:
    verb = words.choice(PLAYER_VERBS, f"a verb ({', '.join(PLAYER_VERBS)})")
    if verb == "bid":
        amount = words.integer("a bid (a whole number)")
        return Bid(player, amount, words.matching(GENE, f"{BID_CARD!r}, a gene's name or colN"))
    if verb == "move":
        path = words.rest(SPACE, "a space", at_least=2)
        return Move(player, tuple(path))
    if verb == "attack":
        return Attack(
            player, words.matching(SPACE, "the attacker's space"), words.matching(SPACE, "the space attacked")
        )
    if verb == "birth":
        space = words.matching(SPACE, "the newborn's space")
        if words.peek() is None:
            return Birth(player, space)
        words.choice(("from",), "'from' and the space of the dinosaur taken off, or the end of the action")
        return Birth(player, space, words.matching(SPACE, "the space of the dinosaur taken off"))
    if verb == "pass":
        return Pass(player)
    if verb in ("fly", "swim"):
        source, target = words.matching(SPACE, "the space flown or swum from"), words.matching(SPACE, "a space")
        return Fly(player, source, target) if verb == "fly" else Swim(player, source, target)
    if verb == "escape":
        return Escape(player, words.matching(SPACE, "the space escaped to"))
    if verb == "peek":
        return Peek(player, words.choice(CLIMATE_TOKENS, f"a climate token ({', '.join(CLIMATE_TOKENS)})"))
    if verb == "slot":
        return Slot(player, words.integer("a place on the initiative track (1 is first)"))
    if verb == "drew":
        return Drew(player, words.matching(CARD, "a card's name"))
    if verb == "play":
        return _parse_play(player, words)
    return Remove(player, tuple(words.rest(SPACE, "a space")))


def _parse_play(player: str, words: Words) -> PlayCard:
    card = words.take("a card's name")
    if not CARD.fullmatch(card):
        raise words.fail("a card's name")
    rest = words.remainder()
    effects = []
    if rest is not None:
        text, column = rest
        offset = column - 1
        for part in text.split(","):
            effects.append(_parse_effect(Words(part, offset)))
            offset += len(part) + 1
    return PlayCard(player, card, tuple(effects))


def _parse_effect(words: Words) -> Effect:
    kind = words.choice(EFFECT_KINDS, f"a card effect ({', '.join(EFFECT_KINDS)})")
    effect: Effect
    if kind == "remove":
        effect = Effect(kind, space=words.matching(SPACE, "the space of the dinosaur removed"))
    elif kind == "shift":
        effect = Effect(kind, value=words.integer("how many positions the wheel turns (+1, -1, ...)"))
    elif kind == "mp":
        effect = Effect(kind, player=words.matching(PLAYER, "a player"), value=words.integer("a signed number of MP"))
    else:
        effect = _parse_modifier(kind, words)
    words.end()
    return effect


def _parse_modifier(kind: str, words: Words) -> Effect:
    other = words.matching(PLAYER, "the other player") if kind == "peace" else None
    value = words.integer("a number") if kind in (*SIGNED_MODIFIERS, *VALUED_MODIFIERS) else 0
    words.choice(("for",), "'for' and how long: 'for phase' or 'for round'")
    return Effect(kind, player=other, value=value, until=words.choice(DURATIONS, "'phase' or 'round'"))


def format_effect(effect: Effect) -> str:
    kind = effect.kind
    if kind == "remove":
        return f"remove {effect.space}"
    if kind == "shift":
        return f"shift {effect.value:+d}"
    if kind == "mp":
        return f"mp {effect.player} {effect.value:+d}"
    words = [kind]
    if kind == "peace":
        words.append(str(effect.player))
    if kind in SIGNED_MODIFIERS:
        words.append(f"{effect.value:+d}")
    if kind in VALUED_MODIFIERS:
        words.append(str(effect.value))
    return " ".join([*words, "for", str(effect.until)])


def format_action(action: Action) -> str:
    match action:
        case Overridden(inner, card):
            return f"{format_action(inner)} override {card}"
        case Fly(player, source, target):
            return f"{player} fly {source} {target}"
        case Swim(player, source, target):
            return f"{player} swim {source} {target}"
        case Escape(player, target):
            return f"{player} escape {target}"
        case Peek(player, token):
            return f"{player} peek {token}"
        case Slot(player, place):
            return f"{player} slot {place}"
        case Drew(player, card):
            return f"{player} drew {card}"
        case PlayCard(player, card, ()):
            return f"{player} play {card}"
        case PlayCard(player, card, effects):
            return f"{player} play {card} " + ", ".join(format_effect(e) for e in effects)
        case SetOrder(players):
            return "order " + " ".join(players)
        case RevealClimate(token):
            return f"climate {token}"
        case DrawGene(gene):
            return f"draw {gene or NO_GENE}"
        case Roll(face):
            return f"roll {face}"
        case Bid(player, amount, target):
            return f"{player} bid {amount} {target}"
        case Move(player, path):
            return f"{player} move {' '.join(path)}"
        case Attack(player, source, target):
            return f"{player} attack {source} {target}"
        case Birth(player, space, None):
            return f"{player} birth {space}"
        case Birth(player, space, relocated_from):
            return f"{player} birth {space} from {relocated_from}"
        case Pass(player):
            return f"{player} pass"
        case Remove(player, spaces):
            return f"{player} remove {' '.join(spaces)}"
    raise TypeError(f"not an evo2 action: {action!r}")
