"""The 26 event cards: when each may be played [E1-23, E1-24, E1-25], what it must name [E1-26, E1-27, E1-30],
and what it does, as facts on the board or as modifiers the later checks honour (evo1/modifiers.py) [E1-26,
E1-28, E1-29]."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import auction, board, flow, modifiers
from evo_ledger.rules.evo1.actions import DIE_FACES, PlayCard
from evo_ledger.rules.evo1.kit import CardSpec
from evo_ledger.rules.evo1.state import (
    COMBAT_ROLL,
    HEAT_ROLL,
    METEOR_ROLL,
    METEOR_STEP,
    PHASE_NUMBERS,
    SURVIVAL_STEP,
    Modifier,
    Phase,
    State,
)

EMBARGO = "card_embargo"
RECOVER = "recover_card"
FOSSIL = "fossil_2mp"
HEAT_STROKE = "heat_stroke"
# The die rolls a card may not interrupt: a fight, a heat stroke and the meteor.
ROLLS_FIRST = frozenset({COMBAT_ROLL, HEAT_ROLL, METEOR_ROLL})
CULL_AT_LEAST = 5
SWAP_MORE_THAN = 5
HEAT_STROKE_SURVIVES_ABOVE = 4


@dataclass(frozen=True)
class Card:
    """A card's own conditions (`check`, beyond its window), its effect (`apply`) and the targets it may name."""

    check: Callable[[State, PlayCard], None]
    apply: Callable[[State, PlayCard, Effects], dict[str, object]]
    targets: Callable[[State, str], Iterator[tuple[str, ...]]]


def spec_of(state: State, card: str) -> CardSpec:
    for spec in state.kit.cards:
        if spec.id == card:
            return spec
    raise RuleViolation(None, f"kit {state.kit.name} has no event card {card!r}")


def check_play(state: State, play: PlayCard) -> None:
    spec = spec_of(state, play.card)
    if play.card not in state.seats[play.player].hand:
        raise RuleViolation(
            "E1-23", f"{play.player} does not hold {play.card}", public=f"{play.player} cannot play that card now"
        )
    if state.turn <= 2:
        raise RuleViolation("E1-23", f"no event card may be played in turns 1 and 2; this is turn {state.turn}")
    if not state.cards:
        raise RuleViolation("E1-23", "version 1 of the evo1 ruleset, which recorded this game, checks no card play")
    if play.card in state.fresh:
        raise RuleViolation("E1-28", f"{play.player} recovered {play.card} this turn: it may be played from the next")
    if state.embargo:
        raise RuleViolation("E1-29", "a card embargo stands: no card may be played until the next turn")
    check_window(state, play, spec)
    if spec.climate and state.climate_card:
        raise RuleViolation("E1-25", f"{state.climate_card} was this turn's climate card: one a turn")
    CARDS[play.card].check(state, play)


def check_end_under_embargo(state: State) -> None:
    """A card embargo played in the turn the meteor strikes still stands after the impact: the end window falls
    under it, so the game ends at once and no fossil_2mp may be played before the result [E1-29]."""
    if state.embargo:
        raise RuleViolation(
            "E1-29", f"the meteor struck under a card embargo: the end window falls under it, and no {FOSSIL} is played"
        )


def check_window(state: State, play: PlayCard, spec: CardSpec) -> None:
    """Whether the card's window is open now [E1-24], and the order of plays in a start window [E1-25]."""
    window = spec.window
    if state.phase == Phase.END and window != "end":
        raise RuleViolation("E1-24", f"the meteor has struck: only {FOSSIL} may be played now, not {play.card}")
    if state.cards_due:
        raise RuleViolation("E1-19", f"{state.cards_due[0]} draws an event card first")
    if state.paying and play.card != auction.MP_VOUCHER:
        raise RuleViolation("E1-19", f"{state.paying[0]}'s payment waits for the vouchers that cover it")
    if window == "response":
        if state.last_play is None:
            raise RuleViolation("E1-24", f"{play.card} answers a card play, as the very next action after it")
        return
    awaited = flow.awaited_roll(state)
    if awaited in ROLLS_FIRST:
        raise RuleViolation("E1-24", f"the {awaited} die is rolled first")
    if window == "end":
        if state.phase != Phase.END:
            raise RuleViolation("E1-24", f"{play.card} is played after the meteor strikes, before the result")
        check_order(state, play.player)
        return
    number = PHASE_NUMBERS.get(state.phase)
    if number is None:
        raise RuleViolation("E1-24", f"no card may be played in the {state.phase} phase")
    if window == "any":
        return
    kind, _, phase = window.partition("(")
    wanted = phase.rstrip(")")
    if wanted != "any" and int(wanted) != number:
        raise RuleViolation("E1-24", f"{play.card} is played {window_words(window)}; this is phase {number}")
    if kind == "start":
        if not state.window_open:
            raise RuleViolation(
                "E1-24", f"{play.card} is played {window_words(window)}, and phase {number} has already begun"
            )
        check_order(state, play.player)


def window_words(window: str) -> str:
    kind, _, phase = window.partition("(")
    phase = phase.rstrip(")")
    where = "any phase" if phase == "any" else f"phase {phase}"
    return f"at the start of {where}" if kind == "start" else f"during {where}"


def check_order(state: State, player: str) -> None:
    """Plays by different seats in a start window (and in the end window) follow the order in force [E1-25]."""
    if not state.window_plays:
        return
    order = tuple(state.seats) if state.phase == Phase.INITIATIVE else state.order
    last = state.window_plays[-1]
    if order.index(player) < order.index(last):
        raise RuleViolation(
            "E1-25", f"{last} has played in this window and {player} comes before {last} in the order: too late"
        )


def apply_play(state: State, play: PlayCard, effects: Effects) -> None:
    spec = spec_of(state, play.card)
    own = state.own_seat(play.player)
    hand = list(own.hand)
    hand.remove(play.card)
    own.hand = tuple(hand)
    if spec.climate:
        state.climate_card = play.card
    if spec.window.startswith("start") or spec.window == "end":
        state.window_plays = (*state.window_plays, play.player)
    played = {"turn": state.turn, "player": play.player, "card": play.card}
    effects.add("card_played", **played, **CARDS[play.card].apply(state, play, effects))
    state.discards = (*state.discards, play.card)
    state.last_play = (play.player, play.card)


def legal_plays(state: State) -> Iterator[PlayCard]:
    """Every play the rules allow now, by every seat."""
    if not state.cards or state.turn <= 2 or state.embargo or state.phase == Phase.OVER:
        return
    for player, seat in state.seats.items():
        for card in dict.fromkeys(seat.hand):
            rule = CARDS.get(card)
            if rule is None:
                continue
            for targets in rule.targets(state, player):
                play = PlayCard(player, card, targets)
                try:
                    check_play(state, play)
                except RuleViolation:
                    continue
                yield play


def add_modifier(state: State, play: PlayCard, value: str = "") -> None:
    state.modifiers = (*state.modifiers, Modifier(play.card, play.player, value))


def no_targets(state: State, play: PlayCard) -> None:
    if play.targets:
        raise RuleViolation("E1-26", f"{play.card} names no target: {' '.join(play.targets)} is not needed")


def one_target(play: PlayCard, what: str) -> str:
    if len(play.targets) != 1:
        raise RuleViolation("E1-26", f"{play.card} names {what}")
    return play.targets[0]


def nothing(state: State, player: str) -> Iterator[tuple[str, ...]]:
    yield ()


def in_phase_check(*more: Callable[[State, PlayCard], None]) -> Callable[[State, PlayCard], None]:
    """A card with no target and the extra conditions `more`."""

    def check(state: State, play: PlayCard) -> None:
        no_targets(state, play)
        for condition in more:
            condition(state, play)

    return check


def modifier_card(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    add_modifier(state, play)
    return {}


# Phase 2: heat stroke, culling, and the climate cards.


def apply_heat_stroke(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """A die for each dinosaur on the board, in the order in force, each seat's by space [E1-26]."""
    rank = {player: index for index, player in enumerate(state.order)}
    state.heat_rolls = tuple(sorted(state.board, key=lambda space: (rank[state.board[space]], space)))
    return {"dinosaurs": len(state.heat_rolls)}


def resolve_heat_roll(state: State, face: int, effects: Effects) -> None:
    """The dinosaur dies when its die and its species' parasols come to 4 or less [E1-26]."""
    space, state.heat_rolls = state.heat_rolls[0], state.heat_rolls[1:]
    player = state.board[space]
    parasols = modifiers.parasols(state, player)
    died = face + parasols <= HEAT_STROKE_SURVIVES_ABOVE
    if died:
        del state.own_board()[space]
    effects.add(
        "heat_stroke_rolled", turn=state.turn, space=space, player=player, face=face, parasols=parasols, died=died
    )


def check_cull(state: State, play: PlayCard) -> None:
    space = one_target(play, "the space of another seat's dinosaur")
    board.check_space(state, space)
    owner = state.board.get(space)
    if owner is None or owner == play.player:
        held = "is empty" if owner is None else f"holds {owner}'s own"
        raise RuleViolation("E1-26", f"{play.card} takes another seat's dinosaur, and {space} {held}")
    count = state.count_of(owner)
    if count < CULL_AT_LEAST:
        raise RuleViolation("E1-27", f"{owner} has {count} dinosaurs on the board: {play.card} needs 5 or more")


def apply_cull(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    space = play.targets[0]
    owner = state.own_board().pop(space)
    return {"space": space, "owner": owner}


def enemy_spaces(state: State, player: str) -> Iterator[tuple[str, ...]]:
    for space, owner in sorted(state.board.items()):
        if owner != player:
            yield (space,)


def apply_double_shift(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """No roll this turn: the marker moves two positions clockwise [E1-26]."""
    flow.move_climate(state, 2, effects, card=play.card)
    flow.start_movement(state, effects)
    return {}


def check_choose_climate(state: State, play: PlayCard) -> None:
    face = one_target(play, "a die face, 1 to 6")
    if not face.isdigit() or int(face) not in DIE_FACES:
        raise RuleViolation("E1-26", f"{play.card} names a die face, 1 to 6, not {face!r}")


def apply_choose_climate(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    face = int(play.targets[0])
    flow.apply_climate_roll(state, face, effects, card=play.card)
    return {"face": face}


def faces(state: State, player: str) -> Iterator[tuple[str, ...]]:
    yield from ((str(face),) for face in DIE_FACES)


def apply_mirror(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """On green or brown, the marker goes to the chart's other position of that colour; the roll still comes
    [E1-26]."""
    chart, here = state.kit.chart, state.climate_position
    others = [index for index, colour in enumerate(chart) if colour == chart[here] and index != here]
    if len(others) != 1:
        return {"moved": False}
    flow.move_climate(state, others[0] - here, effects, card=play.card)
    return {"moved": True}


# Phase 3: fighting and movement.


def check_treaty(state: State, play: PlayCard) -> None:
    other = one_target(play, "the other seat of the treaty")
    if other not in state.seats or other == play.player:
        raise RuleViolation("E1-26", f"{play.card} names another seat at the table, not {other!r}")


def apply_treaty(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    add_modifier(state, play, play.targets[0])
    return {"with": play.targets[0]}


def other_seats(state: State, player: str) -> Iterator[tuple[str, ...]]:
    yield from ((other,) for other in state.seats if other != player)


def apply_stampede(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """Movement points = the seat's dinosaurs on the board now, feet or not [E1-26]."""
    points = state.count_of(play.player)
    add_modifier(state, play, str(points))
    if state.current_player == play.player and state.phase == Phase.MOVEMENT:
        state.movement_left = points
    return {"points": points}


# Phase 4: births.


def before_own_births_end(state: State, play: PlayCard) -> None:
    if state.phase == Phase.BIRTHS and state.order.index(play.player) < state.acting:
        raise RuleViolation("E1-26", f"{play.player}'s births are over: {play.card} comes before they end")


def check_swap(state: State, play: PlayCard) -> None:
    space = one_target(play, "a baby placed in this phase")
    owner = state.board.get(space)
    if space not in state.born or owner is None:
        raise RuleViolation("E1-30", f"{space} holds no baby placed in this phase")
    if owner == play.player:
        raise RuleViolation("E1-30", f"the baby on {space} is {play.player}'s own: {play.card} takes another seat's")
    count = state.count_of(owner)
    if count <= SWAP_MORE_THAN:
        raise RuleViolation("E1-27", f"{owner} has {count} dinosaurs on the board: {play.card} needs more than 5")
    if state.reserve_of(play.player) < 1:
        raise RuleViolation("E1-30", f"{play.player} has no dinosaur in reserve to take the space")


def apply_swap(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """The baby goes to its reserve and one of the player's takes its space, a baby too [E1-30]."""
    space = play.targets[0]
    owner = state.board[space]
    state.own_board()[space] = play.player
    current = state.current_player
    if current is not None:
        state.births_left = min(state.births_left, state.reserve_of(current))
        if state.combat is None and not board.has_birth_space(state, current):
            flow.next_birther(state, effects)
    return {"space": space, "owner": owner}


def babies(state: State, player: str) -> Iterator[tuple[str, ...]]:
    yield from ((space,) for space in state.born if state.board.get(space) not in (None, player))


def apply_no_births(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    add_modifier(state, play)
    flow.end_births(state, effects)
    return {}


# Phase 5: survival.


def before_removals(state: State, play: PlayCard) -> None:
    if state.due != SURVIVAL_STEP:
        raise RuleViolation("E1-27", f"{play.card} comes before the first removal of the survival phase")


# Phase 6: the auction.


def with_own_bid(state: State, play: PlayCard) -> None:
    bidder = auction.bidder(state)
    if bidder != play.player:
        now = f"{bidder} bids now" if bidder else "no seat bids now"
        raise RuleViolation("E1-26", f"{play.card} goes with one of {play.player}'s own bids, and {now}")


def before_the_draw(state: State, play: PlayCard) -> None:
    if state.due == METEOR_STEP or state.awaiting_meteor_roll or not state.rows_due or state.rows:
        raise RuleViolation("E1-26", f"{play.card} is played after the meteor, before the genes are drawn")


def apply_missing_link(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    auction.draw_one_fewer(state)
    return {"genes": state.rows_due, "passes": state.passes_open}


def at_payment(state: State, play: PlayCard) -> None:
    if state.paying:
        if play.player not in state.paying:
            raise RuleViolation("E1-19", f"{state.paying[0]}'s payment waits, not {play.player}'s")
        return
    if not state.rows_due or len(state.rows) < state.rows_due:
        raise RuleViolation("E1-19", f"{play.card} pays for a gene: the bidding has not begun")
    if play.player in state.passed:
        raise RuleViolation("E1-19", f"{play.player} passed in this auction and pays nothing")


def apply_voucher(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    state.vouchers = {**state.vouchers, play.player: state.vouchers.get(play.player, 0) + 1}
    if state.paying:
        flow.after_auction(state, effects)
    return {"vouchers": state.vouchers.get(play.player, 0)}


# The end window, and any time.


def apply_fossil(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    state.fossils = {**state.fossils, play.player: state.fossils.get(play.player, 0) + 1}
    return {"points": flow.FOSSIL_POINTS}


def check_embargo(state: State, play: PlayCard) -> None:
    """An embargo may not strand a standing bid that only vouchers can pay for [E1-19, E1-29]."""
    no_targets(state, play)
    for seat, amount in state.bids.values():
        if auction.payment(state, seat, amount) > state.seats[seat].mp:
            raise RuleViolation("E1-29", f"{seat}'s standing bid of {amount} needs its vouchers: no embargo now")


def apply_embargo(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    state.embargo = True
    return {}


def apply_seize(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """First in the order for the rest of the turn, the others keeping theirs [E1-26]."""
    if not state.order or state.phase == Phase.INITIATIVE:
        state.seized = play.player
        return {}
    state.order = (play.player, *(player for player in state.order if player != play.player))
    if state.phase == Phase.MOVEMENT:
        state.acting = -1
        flow.next_mover(state, effects)
    elif state.phase == Phase.BIRTHS:
        state.acting = -1
        flow.next_birther(state, effects)
    return {"order": list(state.order)}


def check_recover(state: State, play: PlayCard) -> None:
    no_targets(state, play)
    assert state.last_play is not None
    if state.last_play[1] == EMBARGO:
        raise RuleViolation("E1-29", "a card embargo cannot be recovered: it forbids every play after it")


def apply_recover(state: State, play: PlayCard, effects: Effects) -> dict[str, object]:
    """The card just played goes to the recovering seat's hand, or back to its player's under
    `recover_returns_to_owner`, to be played from the next turn; its effect stands [E1-28]."""
    assert state.last_play is not None
    played_by, card = state.last_play
    holder = played_by if state.options.get("recover_returns_to_owner") else play.player
    discards = list(state.discards)
    discards.remove(card)
    state.discards = tuple(discards)
    seat = state.own_seat(holder)
    seat.hand = (*seat.hand, card)
    state.fresh = (*state.fresh, card)
    return {"recovered": card, "from": played_by, "to": holder}


CARDS: dict[str, Card] = {
    HEAT_STROKE: Card(no_targets, apply_heat_stroke, nothing),
    "cull_enemy": Card(check_cull, apply_cull, enemy_spaces),
    "climate_double_shift": Card(no_targets, apply_double_shift, nothing),
    "choose_climate": Card(check_choose_climate, apply_choose_climate, faces),
    "mirror_climate": Card(no_targets, apply_mirror, nothing),
    modifiers.NO_FIGHTING: Card(no_targets, modifier_card, nothing),
    modifiers.PEACE_TREATY: Card(check_treaty, apply_treaty, other_seats),
    modifiers.DEFENCE_HORNS: Card(no_targets, modifier_card, nothing),
    modifiers.ATTACK_HORNS: Card(no_targets, modifier_card, nothing),
    modifiers.STAMPEDE: Card(no_targets, apply_stampede, nothing),
    modifiers.DISTANT_BIRTHS: Card(in_phase_check(before_own_births_end), modifier_card, nothing),
    modifiers.BIRTH_ATTACK: Card(in_phase_check(before_own_births_end), modifier_card, nothing),
    "baby_swap": Card(check_swap, apply_swap, babies),
    modifiers.LESS_PARASOL: Card(in_phase_check(before_removals), modifier_card, nothing),
    modifiers.COLD_SURVIVAL: Card(in_phase_check(before_removals), modifier_card, nothing),
    modifiers.LESS_FUR: Card(in_phase_check(before_removals), modifier_card, nothing),
    modifiers.LOSS_PENALTY: Card(no_targets, modifier_card, nothing),
    modifiers.HEAT_SURVIVAL: Card(in_phase_check(before_removals), modifier_card, nothing),
    modifiers.OUTBID_PLUS3: Card(in_phase_check(with_own_bid), modifier_card, nothing),
    "missing_link": Card(in_phase_check(before_the_draw), apply_missing_link, nothing),
    auction.MP_VOUCHER: Card(in_phase_check(at_payment), apply_voucher, nothing),
    FOSSIL: Card(no_targets, apply_fossil, nothing),
    EMBARGO: Card(check_embargo, apply_embargo, nothing),
    "seize_initiative": Card(no_targets, apply_seize, nothing),
    RECOVER: Card(check_recover, apply_recover, nothing),
    modifiers.NO_BIRTHS: Card(no_targets, apply_no_births, nothing),
}
