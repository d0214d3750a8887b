"""The actions of an Evo 2nd edition game and their text form (docs/notation.md).

Each action is a frozen value. Facts that chance decides at the table (the initiative draw, a climate token,
a gene drawn, a die face) are actions too, recorded as they happen, never recomputed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evo_ledger.rules.text import NotationError, Words

PLAYER = re.compile(r"[a-z][a-z0-9_]{0,31}")
SPACE = re.compile(r"[A-Za-z0-9]{1,8}")
GENE = re.compile(r"[a-z][a-z0-9_]*")
CLIMATE_TOKENS = ("meteorite", "cw", "cw2", "zero", "acw")
DIE_FACES = ("horn", "horn=", "horn+", "horn++", "x")
BID_CARD = "card"
NO_GENE = "none"
KEYWORDS = frozenset({"order", "climate", "draw", "roll", "result", "ruleset", "kit", "players", "option"})


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


Action = SetOrder | RevealClimate | DrawGene | Bid | Move | Attack | Roll | Birth | Pass | Remove

PLAYER_VERBS = ("bid", "move", "attack", "birth", "pass", "remove")


def parse_action(text: str) -> Action:
    words = Words(text)
    first = words.take("an action: order, climate, draw, roll, or a player's name and a verb")
    action: Action
    if first.text == "order":
        action = SetOrder(tuple(words.rest(PLAYER, "a player's name")))
    elif first.text == "climate":
        action = RevealClimate(words.choice(CLIMATE_TOKENS, f"a climate token ({', '.join(CLIMATE_TOKENS)})"))
    elif first.text == "draw":
        gene = words.matching(GENE, f"a gene's name or {NO_GENE!r}")
        action = DrawGene(None if gene == NO_GENE else gene)
    elif first.text == "roll":
        action = Roll(words.choice(DIE_FACES, f"a die face ({', '.join(DIE_FACES)})"))
    elif PLAYER.fullmatch(first.text):
        action = _parse_player_action(first.text, words)
    else:
        raise NotationError(first.column, "an action: order, climate, draw, roll, or a player's name", repr(first.text))
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
    return Remove(player, tuple(words.rest(SPACE, "a space")))


def format_action(action: Action) -> str:
    match action:
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
