"""An action entered a word at a time (`Composing`): the words that may follow those entered in a legal action,
and whether those entered are one.

The listed legal actions give most of it (`listed_next_words`); what the list leaves out is added here:

- a move: any path through empty spaces, a step at a time, as far as the movement points go, a space passed
  twice included [E1-08]; the list has only the paths that never come back to a space, and listing them all
  would cost thousands of paths at every tap, so the moves are composed step by step and checked by the rules;
- a bid that names its row by the gene the row holds, where no other row holds it [E1-16]; the list names rows
  as `rowN`;
- the starred beaches and the dinosaurs a survival removes, in any order [E1-02, E1-11]; the list has one order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import listed_next_words
from evo_ledger.rules.evo1.actions import (
    PLAYER_VERBS,
    Action,
    Bid,
    DrawGene,
    Move,
    Proceed,
    Remove,
    Roll,
    Start,
    format_action,
    row_of,
)
from evo_ledger.rules.evo1.auction import target_row
from evo_ledger.rules.evo1.state import Phase, State

Check = Callable[[State, Action], None]
NOTHING = NextWords((), False)
VERB_ORDER = {verb: index for index, verb in enumerate(PLAYER_VERBS)}


def next_words(state: State, words: Sequence[str], listed: Iterable[Action], legal: Check) -> NextWords:
    """After `words`, the words that may follow in a legal action, and whether `words` is one: `listed` are the
    legal actions the ruleset lists, the moves left out (their attacks kept); `legal` is the ruleset's check."""
    entered = list(words)
    if entered[:1] == ["start"]:
        starts = [action.beaches for action in listed if isinstance(action, Start)]
        return in_any_order(starts, entered[1:], 2)
    player = entered[0] if entered and entered[0] in state.seats else None
    verb = entered[1] if player is not None and len(entered) > 1 else None
    if player is not None and verb == "move":
        return move_words(state, player, entered[2:], legal)
    if player is not None and verb == "remove":
        removals = [
            tuple((space,) for space in action.spaces)
            for action in listed
            if isinstance(action, Remove) and action.player == player
        ]
        return in_any_order(removals, entered[2:], 1)
    if not entered:
        return NextWords(tuple(dict.fromkeys(opening(action) for action in listed)), False)
    found = listed_next_words(listed_texts(state, (a for a in listed if opening(a) == entered[0])), entered)
    if player is not None and len(entered) == 1:
        moving = state.phase == Phase.MOVEMENT and state.current_player == player
        verbs = (*found.words, "move") if moving and move_words(state, player, [], legal).words else found.words
        return NextWords(tuple(sorted(verbs, key=VERB_ORDER.__getitem__)), found.complete)
    if verb == "bid" and len(entered) == 2:
        return NextWords(tuple(sorted(found.words, key=int)), found.complete)
    return found


def opening(action: Action) -> str:
    """The first word of the action in notation."""
    if isinstance(action, Roll):
        return "roll"
    if isinstance(action, DrawGene):
        return "draw"
    if isinstance(action, Proceed):
        return action.step
    if isinstance(action, Start):
        return "start"
    return action.player


def listed_texts(state: State, listed: Iterable[Action]) -> Iterator[str]:
    """The listed actions in notation, each bid on a row also with the row's gene as its target where that gene
    names the row alone."""
    named = row_genes(state)
    for action in listed:
        yield format_action(action)
        if named and isinstance(action, Bid):
            gene = named.get(row_of(action.target) or 0)
            if gene is not None:
                yield format_action(Bid(action.player, action.amount, gene))


def row_genes(state: State) -> dict[int, str]:
    """The rows a bid may name by their gene, with that gene: those whose gene no other row holds [E1-16]."""
    named = {}
    for gene in dict.fromkeys(state.rows):
        try:
            named[target_row(state, gene)] = gene
        except RuleViolation:
            continue
    return named


def move_words(state: State, player: str, path: Sequence[str], legal: Check) -> NextWords:
    """The spaces a move's path may go on to, each step checked by the rules: first the player's dinosaurs that
    can move, then each empty space next to the last, while movement points last [E1-08]."""

    def allowed(steps: tuple[str, ...]) -> bool:
        try:
            legal(state, Move(player, steps))
        except RuleViolation:
            return False
        return True

    neighbours = state.kit.neighbours
    if not path:
        sources = sorted(state.dinosaurs_of(player))
        return NextWords(
            tuple(s for s in sources if any(allowed((s, there)) for there in sorted(neighbours[s]))), False
        )
    if path[-1] not in neighbours:
        return NOTHING
    steps = tuple(path)
    following = tuple(there for there in sorted(neighbours[path[-1]]) if allowed((*steps, there)))
    return NextWords(following, len(steps) > 1 and allowed(steps))


def in_any_order(actions: Sequence[Sequence[tuple[str, ...]]], entered: Sequence[str], size: int) -> NextWords:
    """The words that may follow `entered` where each action is a set of items of `size` words, given in any
    order (a seat and its beach, a dinosaur's space): complete once the items entered are all of one action."""
    whole = len(entered) - len(entered) % size
    items = [tuple(entered[start : start + size]) for start in range(0, whole, size)]
    pending = tuple(entered[whole:])
    chosen = set(items)
    if len(chosen) < len(items):
        return NOTHING
    following: dict[str, None] = {}
    complete = False
    for action in actions:
        if not chosen.issubset(action):
            continue
        if chosen and not pending and len(chosen) == len(action):
            complete = True
        for item in action:
            if item not in chosen and item[: len(pending)] == pending:
                following.setdefault(item[len(pending)], None)
    return NextWords(tuple(following), complete)
