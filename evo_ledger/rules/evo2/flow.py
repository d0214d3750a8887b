"""How one phase of an Evo 2nd edition round leads to the next [E2-01], and the final standings [E2-14]."""

from __future__ import annotations

from evo_ledger.rules.base import Outcome, Standing
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo2 import auction, survival
from evo_ledger.rules.evo2.movement import movement_points
from evo_ledger.rules.evo2.state import Phase, State

SCORE_LABELS = ("mp", "dinosaurs")


def start_auction(state: State) -> None:
    state.phase = Phase.AUCTION
    state.to_bid = state.order
    state.markers = {}
    state.outbid = None


def after_settlement(state: State, effects: Effects) -> None:
    """The holder of adrenaline rush picks a place first; otherwise movement begins [E2-08]."""
    if auction.slot_chooser(state) is not None:
        state.phase = Phase.INITIATIVE
    else:
        start_movement(state, effects)


def start_movement(state: State, effects: Effects) -> None:
    state.phase = Phase.MOVEMENT
    state.specials_used = frozenset()
    state.turn = -1
    next_movement_turn(state, effects)


def end_movement_turn_if_spent(state: State, effects: Effects) -> None:
    if state.movement_left == 0 and state.pending is None:
        next_movement_turn(state, effects)


def next_movement_turn(state: State, effects: Effects) -> None:
    state.turn += 1
    if state.turn < len(state.order):
        state.movement_left = movement_points(state, state.order[state.turn])
        return
    state.movement_left = 0
    state.phase = Phase.BIRTH
    state.birth_pass = 1
    state.turn = -1
    next_birth_turn(state, effects)


def next_birth_turn(state: State, effects: Effects) -> None:
    """The next player in initiative order with an egg for this pass; a new pass once all have had theirs."""
    eggs = {name: player.eggs for name, player in state.players.items()}
    most_eggs = max(eggs.values())
    while state.birth_pass <= most_eggs:
        for index in range(state.turn + 1, len(state.order)):
            if eggs[state.order[index]] >= state.birth_pass:
                state.turn = index
                return
        state.birth_pass += 1
        state.turn = -1
    state.phase = Phase.SURVIVAL
    state.to_choose = state.order
    effects.entering(Phase.SURVIVAL, state)
    advance_survival(state, effects)


def advance_survival(state: State, effects: Effects) -> None:
    """Resolves in initiative order every player with nothing to choose; stops at the first with a choice."""
    while state.to_choose:
        player = state.to_choose[0]
        owed = survival.due(state, player)
        if owed.count and owed.choices() > 1:
            return
        if owed.count:
            spaces = owed.forced()
            survival.remove_all(state, spaces)
            effects.add("dinosaurs_perished", round=state.round, player=player, spaces=list(spaces), chosen=False)
        state.to_choose = state.to_choose[1:]
    award_mutation_points(state, effects)


def award_mutation_points(state: State, effects: Effects) -> None:
    """One MP per dinosaur on the board [E2-13], then the next round begins with its climate."""
    awards = dict.fromkeys(state.order, 0)
    for owner in state.board.values():
        awards[owner] += 1
    for name, amount in awards.items():
        state.own_player(name).mp += amount
    effects.add("mp_awarded", round=state.round, awards=awards, totals={n: state.players[n].mp for n in state.order})
    state.round += 1
    state.phase = Phase.CLIMATE
    state.modifiers = ()


def end_game(state: State, effects: Effects) -> None:
    state.phase = Phase.OVER
    result = standings(state)
    effects.add(
        "game_ended",
        round=state.round,
        standings=[
            {"rank": s.rank, "player": s.player, "mp": s.score[0], "dinosaurs": s.score[1]} for s in result.standings
        ],
    )


def standings(state: State) -> Outcome:
    """Most MP wins; ties go to most dinosaurs on the board; further ties share the place [E2-14]."""
    scores = {name: (p.mp, state.count_of(name)) for name, p in state.players.items()}
    ordered = sorted(state.players, key=lambda name: (-scores[name][0], -scores[name][1], state.players[name].seat))
    rows = tuple(
        Standing(1 + sum(1 for other in scores.values() if other > scores[name]), name, scores[name])
        for name in ordered
    )
    return Outcome(rows, SCORE_LABELS)
