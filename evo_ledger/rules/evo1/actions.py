"""The actions of an Evo 1st edition game and their text form (docs/notation/evo1.md).

Each action is a frozen value. What chance decides at the table (the starred beaches, a die face, a gene drawn,
a card dealt) is recorded as it happens, never recomputed. A die face is a number 1 to 6; what it decides
(initiative, the climate, a combat, the meteor) is what the game awaits when it is rolled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from evo_ledger.rules.text import Words

PLAYER = re.compile(r"[a-z][a-z0-9_]{0,31}")
SPACE = re.compile(r"[A-Za-z0-9]{1,8}")
GENE = re.compile(r"[a-z][a-z0-9_]*")
CARD = re.compile(r"[a-z][a-z0-9_]{0,39}")
ROW = re.compile(r"row([1-9][0-9]?)")
TARGET = re.compile(r"[A-Za-z0-9_]{1,40}")
DIE_FACES = range(1, 7)
STEPS = ("survival", "meteor", "end")
KEYWORDS = frozenset({"start", "roll", "draw", "result", "ruleset", "kit", "players", "option", *STEPS})


@dataclass(frozen=True)
class Start:
    """The starred beaches assigned to the seats at random, each seat's first dinosaur placed there [E1-02]."""

    beaches: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Drew:
    """An event card a player was dealt or drew for a card gene: hidden from everyone else until played."""

    player: str
    card: str


@dataclass(frozen=True)
class Roll:
    """A face of the die: for initiative, the climate, a combat or the meteor, whichever the game awaits."""

    face: int


@dataclass(frozen=True)
class Move:
    """One dinosaur walks along `path`, one movement point a step [E1-08]."""

    player: str
    path: tuple[str, ...]


@dataclass(frozen=True)
class Attack:
    """A dinosaur tries to move into an enemy's space; the attacker's die decides [E1-09]."""

    player: str
    source: str
    target: str


@dataclass(frozen=True)
class Pass:
    """The player ends their movement, or (where a pass is open) passes in the auction [E1-18]."""

    player: str


@dataclass(frozen=True)
class Birth:
    player: str
    space: str


@dataclass(frozen=True)
class Remove:
    """The owner's choice of which dinosaurs the climate takes where some of a zone may stay [E1-11]."""

    player: str
    spaces: tuple[str, ...]


@dataclass(frozen=True)
class DrawGene:
    """A gene counter drawn from the bag into the next row of the bidding board [E1-15]."""

    gene: str


@dataclass(frozen=True)
class Bid:
    """`target` is the gene of a row (when one row holds it) or `rowN`."""

    player: str
    amount: int
    target: str


@dataclass(frozen=True)
class PlayCard:
    """An event card played, with its targets as the table names them [E1-23]."""

    player: str
    card: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proceed:
    """The table goes on where a card could still be played before it: `survival` takes the climate's toll,
    `meteor` moves the meteor, `end` closes the end window and gives the result [E1-24]."""

    step: str


PlayerAction = Drew | Move | Attack | Pass | Birth | Remove | Bid | PlayCard
Action = Start | Roll | DrawGene | Proceed | PlayerAction

PLAYER_VERBS = ("drew", "move", "attack", "pass", "birth", "remove", "bid", "play")


def parse_action(text: str) -> Action:
    words = Words(text)
    first = words.take(f"an action: start, roll, draw, {', '.join(STEPS)}, or a player's name and a verb")
    action: Action
    if first == "start":
        action = _parse_start(words)
    elif first == "roll":
        face = words.integer("a die face (1 to 6)")
        if face not in DIE_FACES:
            raise words.fail("a die face (1 to 6)")
        action = Roll(face)
    elif first in STEPS:
        action = Proceed(first)
    elif first == "draw":
        action = DrawGene(words.matching(GENE, "a gene's name"))
    elif PLAYER.fullmatch(first) and first not in KEYWORDS:
        action = _parse_player_action(first, words)
    else:
        raise words.fail(f"an action: start, roll, draw, {', '.join(STEPS)}, or a player's name")
    words.end()
    return action


def _parse_start(words: Words) -> Start:
    pairs: list[tuple[str, str]] = []
    while words.peek() is not None or not pairs:
        player = words.matching(PLAYER, "a player's name")
        pairs.append((player, words.matching(SPACE, f"the starred beach of {player}")))
    return Start(tuple(pairs))


def _parse_player_action(player: str, words: Words) -> Action:
    verb = words.choice(PLAYER_VERBS, f"a verb ({', '.join(PLAYER_VERBS)})")
    if verb == "drew":
        return Drew(player, words.matching(CARD, "an event card's id"))
    if verb == "move":
        return Move(player, tuple(words.rest(SPACE, "a space", at_least=2)))
    if verb == "attack":
        return Attack(
            player, words.matching(SPACE, "the attacker's space"), words.matching(SPACE, "the space attacked")
        )
    if verb == "pass":
        return Pass(player)
    if verb == "birth":
        return Birth(player, words.matching(SPACE, "the newborn's space"))
    if verb == "remove":
        return Remove(player, tuple(words.rest(SPACE, "a space")))
    if verb == "bid":
        amount = words.integer("a bid (a whole number of MP)")
        if amount < 0:
            raise words.fail("a bid of 0 MP or more")
        return Bid(player, amount, words.matching(GENE, "a row's gene or rowN"))
    card = words.matching(CARD, "an event card's id")
    targets = words.rest(TARGET, "a target", at_least=0)
    return PlayCard(player, card, tuple(targets))


def format_action(action: Action) -> str:
    match action:
        case Roll(face):
            return f"roll {face}"
        case Move(player, path):
            return f"{player} move {' '.join(path)}"
        case Attack(player, source, target):
            return f"{player} attack {source} {target}"
        case Birth(player, space):
            return f"{player} birth {space}"
        case Pass(player):
            return f"{player} pass"
        case Remove(player, spaces):
            return f"{player} remove {' '.join(spaces)}"
        case DrawGene(gene):
            return f"draw {gene}"
        case Proceed(step):
            return step
        case Bid(player, amount, target):
            return f"{player} bid {amount} {target}"
        case Drew(player, card):
            return f"{player} drew {card}"
        case Start(beaches):
            return "start " + " ".join(f"{player} {space}" for player, space in beaches)
        case PlayCard(player, card, targets):
            return " ".join((player, "play", card, *targets))
    raise TypeError(f"not an evo1 action: {action!r}")


@lru_cache(maxsize=256)
def row_of(target: str) -> int | None:
    """The row number a bid's `rowN` target names, or None for a gene's name."""
    match = ROW.fullmatch(target)
    return int(match.group(1)) if match else None
