"""Evo 2nd edition's actions entered a word at a time (`Composing`): the words that may follow those entered in a
legal action, and whether those entered are one.

The listed legal actions give most of it (`listed_next_words`); what the list leaves out is added here, each word
offered only where some legal action follows it:

- a move of several steps: the path through empty spaces a step at a time, as far as the movement points go,
  each step checked by the rules [E2-02, E2-10] (the list has the single steps; listing every path would cost
  thousands of paths at every tap);
- a survival removal in any order, the spaces chosen one at a time within what each zone gives up [E2-12] (the
  list has one order of each set);
- a bid naming its column as `colN` where the column holds the card or a gene [E2-07];
- a sixth-sense peek [E2-16], a card drawn and a card played with its effects [E2-15], which the list leaves to
  the table: the cards offered are the player's own named cards and the names the game knows (the kit's
  catalogue, the cards drawn or played so far), and the numbers an effect names are offered up to `OFFERED`;
  a name or a number typed otherwise is still reported complete when legal. Effects are separated by a word
  `,` of its own (a word entered with its comma, as the notation writes it, is read as both);
- an action the rules refuse only on what a card may bend (movement points, a protected species, a newborn's
  distance), followed by `override` and a card its player played this round [E2-15].

`complete` is the rules' own verdict on the words entered: they parse, and the ruleset's check takes them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import listed_next_words
from evo_ledger.rules.evo2 import auction, birth, cards, movement, survival
from evo_ledger.rules.evo2.actions import (
    CLIMATE_TOKENS,
    DURATIONS,
    EFFECT_KINDS,
    PLAIN_MODIFIERS,
    PLAYER_VERBS,
    SIGNED_MODIFIERS,
    VALUED_MODIFIERS,
    Action,
    Attack,
    Bid,
    Birth,
    Drew,
    Fly,
    Move,
    Peek,
    PlayerAction,
    Swim,
    format_action,
    parse_action,
)
from evo_ledger.rules.evo2.state import Phase, State, player_to_act
from evo_ledger.rules.text import NotationError

Check = Callable[[State, Action], None]
Listed = Callable[[State], Iterable[Action]]
Notation = Callable[[Action], str]
NOTHING = NextWords((), False)
VERB_ORDER = {verb: index for index, verb in enumerate(PLAYER_VERBS)}
COMMA = ","
OVERRIDE = "override"
OFFERED = 6
"""The largest number offered for a card's effect (MP, horns, layers, points, a newborn's distance, the wheel's
turn within its positions); the notation takes any."""


def next_words(
    state: State, words: Sequence[str], listed: Listed, check: Check, notation: Notation = format_action
) -> NextWords:
    """After `words`, the words that may follow in a legal action, and whether `words` is one: `listed` gives the
    legal actions the ruleset lists, `check` is the ruleset's check, `notation` writes an action."""
    if state.phase == Phase.OVER:
        return NOTHING
    entered = separated(words)
    if OVERRIDE in entered[2:]:
        at = entered.index(OVERRIDE, 2)
        return override_words(state, entered[:at], entered[at + 1 :], check)
    player = entered[0] if entered and entered[0] in state.players else None
    verb = entered[1] if player is not None and len(entered) > 1 else None
    composed = COMPOSED.get(verb) if player is not None and verb is not None else None
    if player is not None and composed is not None:
        following = composed(state, player, entered[2:], check).words
    else:
        following = listed_next_words(LAST.texts(state, listed, check, notation), entered).words
        if player is not None and len(entered) == 1:
            following = verbs(state, player, following, check)
        elif not entered:
            others = (name for name in state.players if name not in following and opens(state, name, check))
            following = (*following, *others)
    action, refusal = verdict(state, entered, check)
    if action is not None and refusal is not None and bendable(state, action, refusal):
        following = (*following, OVERRIDE)
    return NextWords(following, action is not None and refusal is None)


def separated(words: Sequence[str]) -> list[str]:
    """The words, a comma that ends one (as the notation writes effects) taken as a word of its own."""
    entered: list[str] = []
    for word in words:
        if len(word) > 1 and word.endswith(COMMA):
            entered.extend((word[:-1], COMMA))
        else:
            entered.append(word)
    return entered


def verdict(state: State, entered: Sequence[str], check: Check) -> tuple[Action | None, RuleViolation | None]:
    """The action the words are (None where they are none) and the rules' refusal of it (None: legal)."""
    try:
        action = parse_action(" ".join(entered))
    except NotationError:
        return None, None
    return action, refusal_of(state, action, check)


def refusal_of(state: State, action: Action, check: Check) -> RuleViolation | None:
    try:
        check(state, action)
    except RuleViolation as violation:
        return violation
    return None


def played_cards(state: State, player: str) -> tuple[str, ...]:
    """The cards the player played this round: those an `override` may name [E2-15]."""
    return tuple(dict.fromkeys(card for at, who, card in state.cards_played if at == state.round and who == player))


def bendable(state: State, action: Action, refusal: RuleViolation) -> bool:
    """A player's action refused only on a rule a card may bend, by a player who played a card this round."""
    return isinstance(action, PlayerAction) and refusal.waivable and bool(played_cards(state, action.player))


def allowed(state: State, action: Action, check: Check) -> bool:
    """Legal, or legal once a card its player played this round overrides the refusal."""
    refusal = refusal_of(state, action, check)
    return refusal is None or bendable(state, action, refusal)


def override_words(state: State, inner: Sequence[str], after: Sequence[str], check: Check) -> NextWords:
    """After an action the rules refuse only on a rule a card may bend and `override`: the cards its player
    played this round [E2-15]."""
    action, refusal = verdict(state, inner, check)
    if not isinstance(action, PlayerAction) or refusal is None or not bendable(state, action, refusal):
        return NOTHING
    if not after:
        return NextWords(played_cards(state, action.player), False)
    whole, whole_refusal = verdict(state, [*inner, OVERRIDE, *after], check)
    return NextWords((), len(after) == 1 and whole is not None and whole_refusal is None)


class LastTexts:
    """The finite actions in notation at the last position composed for: a player's taps come one after another
    at the same position, and listing them is most of a call's cost. States are never changed in place, and the
    position is held by a weak reference."""

    def __init__(self) -> None:
        self.last: tuple[weakref.ref[State], Listed, tuple[str, ...]] | None = None

    def texts(self, state: State, listed: Listed, check: Check, notation: Notation) -> tuple[str, ...]:
        last = self.last
        if last is not None and last[0]() is state and last[1] is listed:
            return last[2]
        # In the survival phase the list holds only removals, which are composed here in any order.
        listing = listed(state) if state.phase != Phase.SURVIVAL else ()
        found = tuple(texts(state, listing, check, notation))
        self.last = (weakref.ref(state), listed, found)
        return found


LAST = LastTexts()


def texts(state: State, listed: Iterable[Action], check: Check, notation: Notation) -> Iterator[str]:
    """The finite actions in notation: the listed ones (a bid also naming its column), the peeks, the cards drawn,
    and the attacks, flights, swims and births a card played may let stand."""
    columns = []
    for action in listed:
        yield notation(action)
        if isinstance(action, Bid) and not action.target.startswith("col"):
            columns.append(Bid(action.player, action.amount, f"col{auction.resolve_column(state, action.target)}"))
    yield from map(notation, columns)
    if state.pending is not None:
        return
    known = None
    for player, holder in state.players.items():
        if holder.has("sixth_sense"):
            yield from (notation(a) for a in (Peek(player, t) for t in CLIMATE_TOKENS) if allowed(state, a, check))
        if cards.unnamed_cards(state, player) > 0:
            known = known_cards(state) if known is None else known
            yield from (notation(Drew(player, card)) for card in known)
    mover = player_to_act(state)
    if mover is not None and played_cards(state, mover):
        yield from (notation(action) for action in bent(state, mover) if allowed(state, action, check))


def bent(state: State, player: str) -> Iterator[Attack | Fly | Swim | Birth]:
    """The candidates, besides moves, for an action a card lets stand: attacks on any neighbouring enemy, flights
    and swims whatever the points left, births anywhere (taking one off once all are on the board)."""
    neighbours, spaces, board = state.kit.neighbours, sorted(state.kit.spaces), state.board
    own = sorted(state.dinosaurs_of(player))
    if state.phase == Phase.MOVEMENT:
        for space in own:
            yield from (Attack(player, space, there) for there in sorted(neighbours[space]) if board.get(there))
            yield from movement.special_moves(state, player, space)
    elif state.phase == Phase.BIRTH and not birth.all_on_board(state, player):
        yield from (Birth(player, space) for space in spaces)
    elif state.phase == Phase.BIRTH:
        for space in spaces:
            yield from (Birth(player, space, taken_off) for taken_off in own if taken_off != space)


def known_cards(state: State) -> tuple[str, ...]:
    """The event cards the game knows by name: the kit's catalogue, then those drawn or played so far."""
    drawn = (card for holder in state.players.values() for card in holder.named_cards)
    return tuple(dict.fromkeys((*state.kit.cards, *sorted({*drawn, *(card for _, _, card in state.cards_played)}))))


def verbs(state: State, player: str, listed: Sequence[str], check: Check) -> tuple[str, ...]:
    """The verbs of the listed actions and those composed here that the player may use now, in the notation's
    order."""
    opened = (
        verb for verb, words_of in COMPOSED.items() if verb not in listed and words_of(state, player, [], check).words
    )
    return tuple(sorted({*listed, *opened}, key=VERB_ORDER.__getitem__))


def opens(state: State, player: str, check: Check) -> bool:
    """Whether the player may take an action of a kind composed here now."""
    return any(words_of(state, player, [], check).words for words_of in COMPOSED.values())


def move_words(state: State, player: str, path: Sequence[str], check: Check) -> NextWords:
    """The spaces a move's path may go on to, each step checked by the rules: first the player's dinosaurs that
    can step, then each empty space next to the last not on the path, while movement points last or a card
    played may bend them [E2-02, E2-10]."""
    neighbours, board = state.kit.neighbours, state.board

    def steps_to(steps: tuple[str, ...]) -> tuple[str, ...]:
        ahead = sorted(there for there in neighbours[steps[-1]] if there not in board and there not in steps)
        return tuple(there for there in ahead if allowed(state, Move(player, (*steps, there)), check))

    if state.phase != Phase.MOVEMENT or state.pending is not None or player_to_act(state) != player:
        return NOTHING
    if not path:
        return NextWords(tuple(s for s in sorted(state.dinosaurs_of(player)) if steps_to((s,))), False)
    if path[-1] not in neighbours or board.get(path[0]) != player:
        return NOTHING
    steps = tuple(path)
    if len(steps) > 1 and not allowed(state, Move(player, steps), check):
        return NOTHING
    return NextWords(steps_to(steps), False)


def removal_words(state: State, player: str, chosen: Sequence[str], check: Check) -> NextWords:
    """The dinosaurs the climate may take next, in any order: those in a threatened zone still giving up fewer
    than its excess, until the count is reached [E2-12]."""
    if state.phase != Phase.SURVIVAL or state.pending is not None or state.to_choose[:1] != (player,):
        return NOTHING
    owed = survival.due(state, player)
    zone_of = {space: zone for zone in survival.AT_RISK for space in owed.at_risk[zone]}
    taken = dict.fromkeys(survival.AT_RISK, 0)
    for space in chosen:
        zone = zone_of.get(space)
        if zone is None or chosen.count(space) > 1:
            return NOTHING
        taken[zone] += 1
        if taken[zone] > owed.excess[zone]:
            return NOTHING
    if len(chosen) >= owed.count:
        return NOTHING
    return NextWords(
        tuple(
            space
            for zone in survival.AT_RISK
            if taken[zone] < owed.excess[zone]
            for space in owed.at_risk[zone]
            if space not in chosen
        ),
        False,
    )


def play_words(state: State, player: str, entered: Sequence[str], check: Check) -> NextWords:
    """A card the player may play now, then its effects one after another, a `,` between two [E2-15]: those the
    kit's catalogue gives the card, or any number of any for a card it does not define."""
    holder = state.players[player]
    if state.pending is not None or holder.event_cards < 1:
        return NOTHING
    unnamed = cards.unnamed_cards(state, player) > 0
    if not entered:
        offered = dict.fromkeys((*holder.named_cards, *(known_cards(state) if unnamed else ())))
        return NextWords(tuple(card for card in offered if playable(state, card)), False)
    card = entered[0]
    if not (card in holder.named_cards or unnamed) or not playable(state, card):
        return NOTHING
    definition = state.kit.cards.get(card)
    left = list(definition.effects) if definition is not None else None
    *done, current = split_effects(entered[1:])
    removed: set[str] = set()
    for effect in done:
        if not effect or not effect_words(state, player, effect, removed).whole:
            return NOTHING
        if left is not None:
            if effect[0] not in left:
                return NOTHING
            left.remove(effect[0])
        if effect[0] == "remove":
            removed.add(effect[1])
    if current and left is not None and current[0] not in left:
        return NOTHING
    if not current:
        removable = any(space not in removed for space in state.board)
        kinds = EFFECT_KINDS if left is None else tuple(dict.fromkeys(left))
        return NextWords(tuple(kind for kind in kinds if kind != "remove" or removable), False)
    found = effect_words(state, player, current, removed)
    more = left is None or len(left) > 1
    return NextWords((*found.words, COMMA) if found.whole and more else found.words, False)


def playable(state: State, card: str) -> bool:
    """Whether the card may be played now: any the kit does not define; one it defines in its phases, with effects
    the notation knows."""
    definition = state.kit.cards.get(card)
    if definition is None:
        return True
    in_phase = not definition.phases or state.phase in definition.phases
    return in_phase and all(kind in EFFECT_KINDS for kind in definition.effects)


def split_effects(words: Sequence[str]) -> list[list[str]]:
    """The words of each effect, the last one perhaps begun only."""
    effects: list[list[str]] = [[]]
    for word in words:
        if word == COMMA:
            effects.append([])
        else:
            effects[-1].append(word)
    return effects


class EffectWords(NamedTuple):
    words: tuple[str, ...]
    whole: bool


Place = tuple[tuple[str, ...], Callable[[str], bool]]
"""A word of an effect: the words offered there, and the test of a word entered there."""


def effect_words(state: State, player: str, effect: Sequence[str], removed: set[str]) -> EffectWords:
    """The words that may follow those of an effect begun with its kind, and whether it is whole (`removed`: the
    spaces the play's earlier effects remove)."""
    places = effect_places(state, player, effect[0], removed)
    arguments = effect[1:]
    if places is None or len(arguments) > len(places):
        return EffectWords((), False)
    if not all(accepts(word) for word, (_, accepts) in zip(arguments, places, strict=False)):
        return EffectWords((), False)
    if len(arguments) == len(places):
        return EffectWords((), True)
    return EffectWords(places[len(arguments)][0], False)


def effect_places(state: State, player: str, kind: str, removed: set[str]) -> list[Place] | None:
    """The words after an effect's kind, as the notation reads them (evo_ledger.rules.evo2.actions)."""
    players = tuple(state.players)
    lasting: list[Place] = [(("for",), ("for",).__contains__), (DURATIONS, DURATIONS.__contains__)]
    if kind == "remove":
        spaces = tuple(sorted(space for space in state.board if space not in removed))
        return [(spaces, spaces.__contains__)]
    if kind == "shift":
        turns = min(OFFERED, len(state.kit.climate.positions) - 1)
        return [(signed(turns), is_integer)]
    if kind == "mp":
        return [(players, players.__contains__), (signed(OFFERED), is_integer)]
    if kind == "peace":
        others = tuple(name for name in players if name != player)
        return [(others, others.__contains__), *lasting]
    if kind in SIGNED_MODIFIERS:
        return [(signed(OFFERED), is_integer), *lasting]
    if kind in VALUED_MODIFIERS:
        return [(tuple(str(value) for value in range(OFFERED + 1)), is_integer), *lasting]
    return lasting if kind in PLAIN_MODIFIERS else None


def signed(most: int) -> tuple[str, ...]:
    """The signed whole numbers from -most to +most but 0, as the notation writes them."""
    return tuple(f"{value:+d}" for value in range(-most, most + 1) if value)


def is_integer(word: str) -> bool:
    digits = word[1:] if word[:1] in ("+", "-") else word
    return digits.isascii() and digits.isdigit() and len(digits) <= 18


COMPOSED: dict[str, Callable[[State, str, Sequence[str], Check], NextWords]] = {
    "move": move_words,
    "remove": removal_words,
    "play": play_words,
}
"""The kinds of action composed a word at a time here rather than read from the list."""
