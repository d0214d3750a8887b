"""How the phases of an Evo 1st edition turn lead one to the next [E1-04], from the setup [E1-02] to the impact
and the final standings [E1-20]."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from evo_ledger.rules.base import Outcome, RuleViolation, Standing
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import auction, autosaur, board, modifiers
from evo_ledger.rules.evo1.actions import Birth, Drew, Start
from evo_ledger.rules.evo1.state import (
    AUTOSAUR_ROLL,
    CLIMATE_ROLL,
    COMBAT_ROLL,
    END_STEP,
    HEAT_ROLL,
    INITIATIVE_ROLL,
    METEOR_ROLL,
    METEOR_STEP,
    SURVIVAL_STEP,
    Phase,
    State,
)

SCORE_LABELS = ("mp", "dinosaurs")
"""Without cards (version 1), the score is the MP."""
CARD_SCORE_LABELS = ("score", "dinosaurs")
"""With cards, the score is the MP and 2 a fossil played [E1-20]."""
FOSSIL_POINTS = 2
# The climate die: the chart positions the marker moves by for each face [E1-06].
CLIMATE_STEPS = {1: -1, 2: 0, 3: 1, 4: 1, 5: 1, 6: 1}


def check_start(state: State, action: Start) -> None:
    if state.board:
        raise RuleViolation("E1-02", "the starred beaches are already assigned")
    players = [player for player, _ in action.beaches]
    if sorted(players) != sorted(state.seats):
        raise RuleViolation("E1-02", f"each seat gets one starred beach: {', '.join(state.seats)}")
    beaches = [space for _, space in action.beaches]
    if sorted(beaches) != sorted(state.kit.start_beaches):
        raise RuleViolation("E1-02", f"the starred beaches are {', '.join(state.kit.start_beaches)}, each used once")


def apply_start(state: State, action: Start, effects: Effects) -> None:
    state.board = {space: player for player, space in action.beaches}
    if state.autosaurs:
        state.starts = {player: space for player, space in action.beaches if player in state.autosaurs}
        state.placing = tuple(player for player in state.seats if player in state.autosaurs)
        skip_unplaceable(state)
    begin_if_ready(state, effects)


def skip_unplaceable(state: State) -> None:
    """An Autosaur with no free space next to its start starts with one dinosaur [AS-03]."""
    while state.placing and not autosaur.setup_spaces(state, state.placing[0]):
        state.placing = state.placing[1:]


def apply_setup_birth(state: State, action: Birth, effects: Effects) -> None:
    """The Autosaur's second dinosaur, once every seat's first is placed [AS-03]."""
    state.own_board()[action.space] = action.player
    state.placing = state.placing[1:]
    skip_unplaceable(state)
    begin_if_ready(state, effects)


def check_drew(state: State, action: Drew) -> None:
    """A card is drawn by a seat owed one, from the deal or a card gene [E1-19, E1-23]; an Autosaur is owed none,
    not even for a card gene it wins [AS-04]."""
    if action.player in state.autosaurs:
        raise RuleViolation(
            "AS-04", f"{action.player} is an Autosaur: it is dealt no card and draws none, a card gene's included"
        )
    if action.player not in state.cards_due:
        raise RuleViolation(
            "E1-23", f"{action.player} is owed no card: cards come from the deal and from card genes only"
        )
    if action.card not in state.kit.card_ids:
        raise RuleViolation(None, f"kit {state.kit.name} has no event card {action.card!r}")
    if state.holds(action.card) or action.card in state.discards:
        raise RuleViolation("E1-23", f"{action.card} has already been drawn: the deck holds each card once")


def apply_drew(state: State, action: Drew, effects: Effects) -> None:
    own = state.own_seat(action.player)
    own.hand = (*own.hand, action.card)
    due = list(state.cards_due)
    due.remove(action.player)
    state.cards_due = tuple(due)
    if state.phase == Phase.SETUP:
        begin_if_ready(state, effects)
    elif not state.cards_due:
        start_turn(state, effects)


def begin_if_ready(state: State, effects: Effects) -> None:
    """Turn 1 begins once every seat has its beach and its cards, and every Autosaur its second dinosaur."""
    if state.board and not state.cards_due and not state.placing:
        start_turn(state, effects)


def begin_phase(state: State, phase: str) -> None:
    """A phase begins, and with it its start window [E1-24]."""
    state.phase = phase
    state.window_open, state.window_plays = True, ()


def cards_open(state: State) -> bool:
    """Whether a card could still be played, as anyone at the table can tell: from turn 3, with no embargo, while
    a seat holds a card. Only then does the table wait for its step before survival, the meteor and the result
    [E1-23, E1-24, E1-29]."""
    return state.cards and state.turn > 2 and not state.embargo and any(seat.hand for seat in state.seats.values())


def start_turn(state: State, effects: Effects) -> None:
    state.turn += 1
    begin_phase(state, Phase.INITIATIVE)
    state.tiebreaks = {name: () for name in state.seats}
    state.to_roll = ()
    if state.cards:
        state.modifiers, state.embargo, state.climate_card, state.fresh = (), False, "", ()
        state.lost, state.born, state.seized = {}, (), ""
    settle_initiative(state, effects)


def initiative_keys(state: State) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    """Each seat's place: longest tail first, then fewer dinosaurs, then the lower rolls [E1-05]."""
    counts = Counter(state.board.values())
    return {p: (-state.gene(p, "tail"), counts[p], state.tiebreaks[p]) for p in state.seats}


def tied_seats(ranked: list[str], keys: dict[str, tuple[int, int, tuple[int, ...]]]) -> tuple[str, ...]:
    """The first seats of `ranked` (in initiative order, then seat order) that nothing yet tells apart."""
    for first, following in pairwise(ranked):
        if keys[first] == keys[following]:
            return tuple(player for player in ranked if keys[player] == keys[first])
    return ()


def settle_initiative(state: State, effects: Effects) -> None:
    """The order, once no seats are tied; tied seats roll, in seat order, and equal rolls roll again [E1-05]."""
    keys = initiative_keys(state)
    ranked = sorted(state.seats, key=keys.__getitem__)  # stable: the seats are in seat order
    state.to_roll = tied_seats(ranked, keys)
    if state.to_roll:
        return
    seized = {"seized": state.seized} if state.seized else {}
    if state.seized:
        ranked = [state.seized, *(player for player in ranked if player != state.seized)]
        state.seized = ""
    state.order = tuple(ranked)
    effects.add(
        "initiative_set",
        turn=state.turn,
        order=list(state.order),
        tails={p: -keys[p][0] for p in state.order},
        dinosaurs={p: keys[p][1] for p in state.order},
        rolls={p: list(rolls) for p, rolls in state.tiebreaks.items() if rolls},
        **seized,
    )
    begin_phase(state, Phase.CLIMATE)


def apply_initiative_roll(state: State, face: int, effects: Effects) -> None:
    roller, state.to_roll = state.to_roll[0], state.to_roll[1:]
    state.tiebreaks = {**state.tiebreaks, roller: (*state.tiebreaks[roller], face)}
    if not state.to_roll:
        settle_initiative(state, effects)


def apply_climate_roll(state: State, face: int, effects: Effects, card: str = "") -> None:
    """3 to 6 turn the marker clockwise, 1 anticlockwise, 2 leaves it [E1-06]; `choose_climate` names the face."""
    move_climate(state, CLIMATE_STEPS[face], effects, face=face, **({"card": card} if card else {}))
    start_movement(state, effects)


def move_climate(state: State, steps: int, effects: Effects, **how: object) -> None:
    """Turn the marker `steps` positions clockwise (back, when negative), saying how."""
    before = state.climate_position
    state.climate_position = (before + steps) % len(state.kit.chart)
    effects.add(
        "climate_changed",
        turn=state.turn,
        **how,
        roller=state.first_player,
        position=state.climate_position,
        colour=state.kit.chart[state.climate_position],
        previous=before,
    )


def start_movement(state: State, effects: Effects) -> None:
    begin_phase(state, Phase.MOVEMENT)
    state.acting = -1
    next_mover(state, effects)


def next_mover(state: State, effects: Effects) -> None:
    """The next seat with a dinosaur on the board moves with as many points as its feet [E1-08]."""
    state.acting += 1
    while state.acting < len(state.order):
        player = state.order[state.acting]
        if state.count_of(player) > 0 and player not in state.autosaurs:  # an Autosaur never moves [AS-05]
            state.movement_left = modifiers.movement_points(state, player)
            return
        state.acting += 1
    state.movement_left = 0
    start_births(state, effects)


def after_movement_action(state: State, effects: Effects) -> None:
    """A seat's movement ends by itself once its points are spent (an attack costs its point on the roll)."""
    if state.combat is None and state.movement_left == 0:
        next_mover(state, effects)


def start_births(state: State, effects: Effects) -> None:
    begin_phase(state, Phase.BIRTHS)
    adults: dict[str, list[str]] = {player: [] for player in state.order}
    for space, owner in state.board.items():
        adults[owner].append(space)
    state.adults = {player: tuple(spaces) for player, spaces in adults.items()}
    state.acting = -1
    next_birther(state, effects)


def next_birther(state: State, effects: Effects) -> None:
    """The next seat with a birth it can make places as many babies as it has eggs, and dinosaurs in reserve
    [E1-10]."""
    state.acting += 1
    while state.acting < len(state.order):
        player = state.order[state.acting]
        state.babies = ()
        if player in state.autosaurs:
            autosaur.begin_births(state, player)
            if autosaur.births_open(state):
                return
        else:
            state.births_left = min(state.gene(player, "egg"), state.reserve_of(player))
            if board.has_birth_space(state, player):
                return
        state.acting += 1
    state.births_left, state.babies = 0, ()
    start_survival(state, effects)


def after_birth(state: State, effects: Effects) -> None:
    """Births are compulsory, so a seat's births end when none is left that it can make [E1-10]; an Autosaur's
    when its step has none left to try [AS-06]."""
    if state.combat is not None:
        return
    player = state.order[state.acting]
    if not (autosaur.births_open(state) if player in state.autosaurs else board.has_birth_space(state, player)):
        next_birther(state, effects)


def end_births(state: State, effects: Effects) -> None:
    """No seat places another baby this turn (`no_births`)."""
    state.acting = len(state.order)
    state.births_left, state.babies = 0, ()
    start_survival(state, effects)


def start_survival(state: State, effects: Effects) -> None:
    begin_phase(state, Phase.SURVIVAL)
    state.adults = {}
    if state.autosaurs:
        state.birth_step, state.step_keys, state.tried = "", {}, ()
    state.acting = -1
    if cards_open(state):
        state.due = SURVIVAL_STEP
        return
    next_survivor(state, effects)


def take_step(state: State, step: str, effects: Effects) -> None:
    """The table goes on: survival, the meteor, or the result [E1-24]."""
    state.due = ""
    if step == SURVIVAL_STEP:
        next_survivor(state, effects)
    elif step == METEOR_STEP:
        advance_meteor(state, effects)
    else:
        finish_game(state, effects)


def next_survivor(state: State, effects: Effects) -> None:
    """In initiative order, each seat loses what the climate takes; one whose owner must choose waits [E1-11]."""
    state.acting += 1
    waiting = state.order[state.acting :]
    losing = board.losing_survivals(state, waiting)
    for player in waiting:
        if player in state.autosaurs:
            autosaur_survival(state, player, effects)
            state.acting += 1
            continue
        survival = losing.get(player)
        if survival is None:
            state.acting += 1
            continue
        if survival.choices:
            return
        if survival.forced:
            board.remove_survivors_choice(state, survival, (), effects)
        state.acting += 1
    award_mp(state, effects)
    start_evolution(state, effects)


def autosaur_survival(state: State, player: str, effects: Effects) -> None:
    """Its dinosaurs in deadly zones go, then those left alone; hot and cold cost it nothing [AS-10]."""
    deadly, isolated = autosaur.survival_losses(state, player)
    if not deadly and not isolated:
        return
    for space in (*deadly, *isolated):
        del state.own_board()[space]
    state.lost = {**state.lost, player: state.lost.get(player, 0) + len(deadly) + len(isolated)}
    effects.add("autosaur_survived", turn=state.turn, player=player, deadly=deadly, isolated=isolated)


def apply_autosaur_roll(state: State, face: int, effects: Effects) -> None:
    """The Autosaur's die at its bid decision, and what the algorithm makes of it [AS-13 to AS-16]."""
    player = auction.bidder(state)
    assert player is not None
    state.bid_roll = face
    decision = autosaur.bid_decision(state, player, face)
    effects.add(
        "autosaur_rolled",
        turn=state.turn,
        player=player,
        face=face,
        row=decision.row,
        amount=decision.amount,
        ruling=decision.ruling,
        reason=decision.reason,
        **({"modified": decision.modified} if decision.modified is not None else {}),
    )


def award_mp(state: State, effects: Effects) -> None:
    """1 MP a dinosaur on the board [E1-12]."""
    owners = list(state.board.values())
    awards = {player: owners.count(player) for player in state.order}
    totals = {}
    for player, mp in awards.items():
        if mp:
            state.own_seat(player).mp += mp
        totals[player] = state.seats[player].mp
    effects.add("mp_awarded", turn=state.turn, awards=awards, totals=totals)
    for penalty in state.modifiers:
        if penalty.card == modifiers.LOSS_PENALTY:
            charge_losses(state, penalty.player, effects)


def charge_losses(state: State, player: str, effects: Effects) -> None:
    """`loss_penalty`: every other seat loses 1 MP a dinosaur it lost in this survival, down to 0 [E1-12]."""
    losses = {seat: count for seat, count in state.lost.items() if seat != player and count}
    for seat, count in losses.items():
        own = state.own_seat(seat)
        own.mp = max(0, own.mp - count)
    totals = {seat: state.seats[seat].mp for seat in losses}
    effects.add("mp_lost", turn=state.turn, card=modifiers.LOSS_PENALTY, by=player, losses=losses, totals=totals)


def start_evolution(state: State, effects: Effects) -> None:
    """The meteor moves one space (not in turns 1 and 2 under `experienced`); the end of the track is the
    impact, a die number on the space is rolled against [E1-13, E1-21]."""
    begin_phase(state, Phase.EVOLUTION)
    state.acting = 0
    if state.options["experienced"] and state.turn <= 2:
        open_auction(state, effects)
        return
    if cards_open(state):
        state.due = METEOR_STEP
        return
    advance_meteor(state, effects)


def advance_meteor(state: State, effects: Effects) -> None:
    state.meteor += 1
    number = state.kit.meteor_track[state.meteor]
    effects.add("meteor_advanced", turn=state.turn, space=state.meteor, **({"number": number} if number else {}))
    if state.meteor == len(state.kit.meteor_track) - 1:
        end_game(state, effects, "the meteor reached the end of its track")
    elif number is not None:
        state.awaiting_meteor_roll = True
    else:
        open_auction(state, effects)


def apply_meteor_roll(state: State, face: int, effects: Effects) -> None:
    number = state.kit.meteor_track[state.meteor]
    assert number is not None
    state.awaiting_meteor_roll = False
    impact = face <= number
    effects.add("meteor_rolled", turn=state.turn, space=state.meteor, number=number, face=face, impact=impact)
    if impact:
        end_game(state, effects, f"the meteor struck: {face} is at most {number}")
    else:
        open_auction(state, effects)


def open_auction(state: State, effects: Effects) -> None:
    """No auction in the turn the meteor strikes; the bag may be empty [E1-14, E1-18]."""
    if not auction.open_auction(state, effects):
        start_turn(state, effects)


def after_auction(state: State, effects: Effects) -> None:
    """The winners pay, unless a payment waits for the vouchers that cover it; then the next turn [E1-19]."""
    if not auction.settle(state, effects):
        return
    if not state.cards_due:
        start_turn(state, effects)


def end_game(state: State, effects: Effects, reason: str) -> None:
    """The impact ends the game; while a card could still be played, the end window opens first [E1-14, E1-20]."""
    state.impact = True
    state.ending = reason
    if cards_open(state):
        begin_phase(state, Phase.END)
        state.due = END_STEP
        return
    finish_game(state, effects)


def finish_game(state: State, effects: Effects) -> None:
    state.phase = Phase.OVER
    result = standings(state)
    effects.add(
        "game_ended",
        turn=state.turn,
        reason=state.ending,
        standings=[{"rank": s.rank, "player": s.player, "score": list(s.score)} for s in result.standings],
        **({"fossils": dict(state.fossils)} if state.fossils else {}),
    )


def standings(state: State) -> Outcome:
    """Most points first (MP, and 2 a fossil played); a tie goes to most dinosaurs on the board; a further tie
    shares the place [E1-20]."""
    scores = {
        p: (seat.mp + FOSSIL_POINTS * state.fossils.get(p, 0), state.count_of(p)) for p, seat in state.seats.items()
    }
    ranked = sorted(scores, key=lambda p: (-scores[p][0], -scores[p][1], state.seats[p].seat))
    result: list[Standing] = []
    for index, player in enumerate(ranked):
        rank = index + 1 if index == 0 or scores[player] != scores[ranked[index - 1]] else result[-1].rank
        result.append(Standing(rank, player, scores[player]))
    return Outcome(tuple(result), CARD_SCORE_LABELS if state.cards else SCORE_LABELS)


def awaited_roll(state: State) -> str | None:
    """What a die roll would decide now, if the game awaits one."""
    if state.phase == Phase.INITIATIVE and state.to_roll:
        return INITIATIVE_ROLL
    if state.heat_rolls:
        return HEAT_ROLL
    if state.phase == Phase.CLIMATE:
        return CLIMATE_ROLL
    if state.combat is not None:
        return COMBAT_ROLL
    if state.awaiting_meteor_roll:
        return METEOR_ROLL
    if state.autosaurs and not state.bid_roll and state.phase == Phase.EVOLUTION and not state.impact:  # noqa: SIM102
        if auction.bidder(state) in state.autosaurs:  # the bidder is sought only at a table with an Autosaur
            return AUTOSAUR_ROLL
    return None
