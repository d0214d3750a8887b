"""Evo 2nd edition as a ruleset: which action each phase accepts [E2-01], checked and applied."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache, partial
from itertools import permutations
from typing import Any

from evo_ledger.rules.base import (
    Explanation,
    NextWords,
    OptionSpec,
    OptionValue,
    Outcome,
    RuleViolation,
    SetupError,
    Step,
    Transition,
    Vocabulary,
    passing,
    resolve_options,
)
from evo_ledger.rules.contract import (
    Board,
    Bots,
    Chance,
    Composing,
    Explanations,
    FastReplay,
    HiddenInformation,
    Reading,
    ReadModels,
    Ruleset,
    SelfPlay,
    TextBoard,
)
from evo_ledger.rules.effects import Effects, PhaseWatcher
from evo_ledger.rules.evo2 import auction, birth, cards, climate, compose, flow, movement, survival
from evo_ledger.rules.evo2.actions import (
    CLIMATE_TOKENS,
    DIE_FACES,
    KEYWORDS,
    PLAYER,
    Action,
    Attack,
    Bid,
    Birth,
    DrawGene,
    Drew,
    Escape,
    Fly,
    Move,
    Overridden,
    Pass,
    Peek,
    PlayCard,
    Remove,
    RevealClimate,
    Roll,
    SetOrder,
    Slot,
    Swim,
    format_action,
    parse_action,
)
from evo_ledger.rules.evo2.explain import explain
from evo_ledger.rules.evo2.reading import Evo2Reading
from evo_ledger.rules.evo2.selfplay import Evo2SelfPlay
from evo_ledger.rules.evo2.state import (
    ATTACK_ROLL,
    ESCAPE,
    KILLER_BABY_ROLL,
    Phase,
    PlayerState,
    State,
    state_from_data,
    state_to_data,
)
from evo_ledger.rules.evo2.view import layout, view
from evo_ledger.rules.evo2.words import describe
from evo_ledger.rules.hexisland.kit import Kit, parse_kit
from evo_ledger.rules.hexisland.kitmap import render_map
from evo_ledger.rules.structured import ActionForm

PHASE_OF: dict[type, tuple[str, ...]] = {
    SetOrder: (Phase.ORDER,),
    RevealClimate: (Phase.CLIMATE,),
    DrawGene: (Phase.MUTATIONS,),
    Bid: (Phase.AUCTION,),
    Slot: (Phase.INITIATIVE,),
    Move: (Phase.MOVEMENT,),
    Attack: (Phase.MOVEMENT,),
    Fly: (Phase.MOVEMENT,),
    Swim: (Phase.MOVEMENT,),
    Pass: (Phase.MOVEMENT, Phase.BIRTH),
    Birth: (Phase.BIRTH,),
    Remove: (Phase.SURVIVAL,),
}
FACTS: dict[type, str] = {
    SetOrder: "InitiativeDrawn",
    RevealClimate: "ClimateTokenRevealed",
    DrawGene: "GeneDrawn",
    Bid: "BidPlaced",
    Slot: "InitiativePlaceChosen",
    Move: "DinosaurMoved",
    Attack: "AttackDeclared",
    Fly: "DinosaurFlew",
    Swim: "DinosaurSwam",
    Escape: "EscapeChosen",
    Roll: "DieRolled",
    Birth: "DinosaurBorn",
    Pass: "TurnPassed",
    Remove: "SurvivalChosen",
    Peek: "ClimateTokenPeeked",
    Drew: "EventCardDrawn",
    PlayCard: "EventCardPlayed",
}
# What the rules derive from an action, by the consequence kind the rules report.
CONSEQUENCES = {
    "initiative_set": "InitiativeSet",
    "climate_changed": "ClimateChanged",
    "lab_left_unfilled": "LabLeftUnfilled",
    "gene_set_aside": "GeneSetAside",
    "gene_placed": "GenePlaced",
    "genes_returned_to_bag": "GenesReturnedToBag",
    "bid_outbid": "BidOutbid",
    "auction_settled": "AuctionSettled",
    "combat_resolved": "CombatResolved",
    "chameleon_escaped": "ChameleonEscaped",
    "killer_baby_resolved": "KillerBabyResolved",
    "dinosaurs_perished": "DinosaursPerished",
    "mp_awarded": "MPAwarded",
    "game_ended": "GameEnded",
    "card_played": "CardPlayed",
    "dinosaur_removed": "DinosaurRemoved",
    "rule_overridden": "RuleOverridden",
}
# evo2's events were stored under the game's own topics before there were other rulesets; they keep them.
VOCABULARY = Vocabulary("evo-ledger:Game", tuple(FACTS.values()), CONSEQUENCES)
# Rolls and escapes answer a pending choice; peeks and cards may come in any phase.
PENDING_ANSWERS = {ATTACK_ROLL: Roll, KILLER_BABY_ROLL: Roll, ESCAPE: Escape}
PENDING_ANSWER_TYPES = frozenset({Roll, Escape})
PENDING_RULING = {ATTACK_ROLL: "E2-09", KILLER_BABY_ROLL: "E2-11", ESCAPE: "E2-10"}
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "affordable_bids",
        True,
        "E2-07",
        "refuse a bid whose price (the bid less the bidder's vials) is more than the bidder's MP",
    ),
)


@lru_cache(maxsize=4096)
def parse_cached(text: str) -> Action:
    """Actions are immutable values, and games repeat their lines ('roll horn', 'ann pass') all the time."""
    return parse_action(text)


@lru_cache(maxsize=4096)
def format_cached(action: Action) -> str:
    """An action's canonical notation, recorded with every action: as often repeated as the lines themselves."""
    return format_action(action)


# Each kind of action as data is named by its notation's word.
ACTION_WORDS: dict[type, str] = {
    SetOrder: "order",
    RevealClimate: "climate",
    DrawGene: "draw",
    PlayCard: "play",
    Overridden: "override",
}
ACTION_FORM = ActionForm(Action, parse_action, format_action, ACTION_WORDS)


READING = Evo2Reading()
make_transition = partial(tuple.__new__, Transition)  # without Transition(...)'s argument handling: every action's cost


def draw_island(kit: Kit, labels: Mapping[str, str] | None = None) -> str:
    """The island as text: the seats' starts (without labels), the legend, the map."""
    starts = [f"seat {seat} starts on {' '.join(marks)}" for seat, marks in sorted(kit.start_marks.items())]
    terrains = ", ".join(f"{terrain[0]} {terrain}" for terrain in kit.terrains)
    legend = f"island: space, terrain ({terrains}), * on the coast" + (", then its occupant" if labels else "")
    return "\n".join([*([] if labels else starts), f"\n{legend}\n", render_map(kit, labels)])


def check_setup(kit: Kit, players: Sequence[str]) -> None:
    if kit.edition != "evo2":
        raise SetupError(f"kit {kit.name!r} is for {kit.edition!r}, not evo2")
    if len(players) != kit.players:
        raise SetupError(f"kit {kit.name!r} is the island for {kit.players} players, not {len(players)}")
    if not 2 <= len(players) <= 5:
        raise SetupError(f"Evo 2nd edition is for 2 to 5 players, not {len(players)}")
    for name in players:
        if not PLAYER.fullmatch(name) or name in KEYWORDS:
            raise SetupError(f"{name!r} cannot be a player's name: use lower-case letters, digits and _, not a keyword")
    if len(set(players)) != len(players):
        raise SetupError("each player must have a different name")
    unknown = set(kit.climate.tokens) - set(CLIMATE_TOKENS)
    if unknown:
        raise SetupError(f"kit {kit.name!r} has climate tokens evo2 does not know: {sorted(unknown)}")


def check_phase(state: State, action: Action) -> None:
    if state.phase == Phase.OVER:
        raise RuleViolation("E2-14", "the meteorite has ended the game: no action follows it")
    player = getattr(action, "player", None)
    if player is not None and player not in state.players:
        raise RuleViolation(None, f"no player named {player!r} sits at this table ({', '.join(state.players)})")
    if state.pending is not None:
        check_pending_answer(state, action)
        return
    expected = PHASE_OF.get(type(action))
    if expected is not None and state.phase not in expected:
        raise wrong_phase(state, action, expected)
    if type(action) in PENDING_ANSWER_TYPES:
        ruling = "E2-09" if isinstance(action, Roll) else "E2-10"
        what = "an attack or a killer baby" if isinstance(action, Roll) else "a chameleon that lost a fight"
        raise RuleViolation(ruling, f"'{format_action(action)}' answers {what}, and none is waiting")


def check_pending_answer(state: State, action: Action) -> None:
    pending = state.pending
    assert pending is not None
    if not isinstance(action, PENDING_ANSWERS[pending.kind]):
        waiting = {
            ATTACK_ROLL: f"the combat die must be rolled first for {pending.player}'s attack from {pending.source} "
            f"on {pending.target}",
            KILLER_BABY_ROLL: f"the die must be rolled first for {pending.player}'s killer baby on {pending.target}",
            ESCAPE: f"{pending.player}'s chameleon on {pending.target} must escape first",
        }[pending.kind]
        raise RuleViolation(PENDING_RULING[pending.kind], waiting)


def wrong_phase(state: State, action: Action, expected: tuple[str, ...]) -> RuleViolation:
    """A draw once the lab is full, or a bid before it is, breaks the filling of the lab [E2-06]; any other
    action out of its phase breaks the order of the round [E2-01]."""
    genes = climate.lab_size(state)
    if isinstance(action, DrawGene) and state.phase == Phase.AUCTION:
        return RuleViolation("E2-06", f"the lab already holds its {genes} genes, one fewer than the players")
    if isinstance(action, Bid) and state.phase == Phase.MUTATIONS:
        return RuleViolation(
            "E2-06", f"the lab holds {len(state.lab)} of its {genes} genes: bidding starts once it is full"
        )
    return RuleViolation(
        "E2-01",
        f"'{format_action(action)}' belongs to the {' or '.join(expected)} phase; "
        f"round {state.round} is in the {state.phase} phase",
    )


def check_pass(state: State, action: Pass) -> None:
    if state.phase == Phase.MOVEMENT:
        movement.check_turn(state, action.player)
    else:
        birth.check_birth_turn(state, action.player)


CHECKS: dict[type, Callable[[State, Any], None]] = {
    SetOrder: climate.check_order,
    RevealClimate: climate.check_climate,
    DrawGene: climate.check_draw,
    Bid: auction.check_bid,
    Slot: auction.check_slot,
    Move: movement.check_move,
    Attack: movement.check_attack,
    Fly: movement.check_fly,
    Swim: movement.check_swim,
    Escape: movement.check_escape,
    Birth: birth.check_birth,
    Pass: check_pass,
    Remove: survival.check_remove,
    Peek: climate.check_peek,
    Drew: cards.check_drew,
    PlayCard: cards.check_play,
}


def check_action(state: State, action: Action) -> None:
    """The rules of the action itself; a roll is checked by its pending attack or birth alone."""
    check = CHECKS.get(type(action))
    if check is not None:
        check(state, action)


def check(state: State, action: Action) -> None:
    """Refuses the action unless the rules allow it now: its phase and turn, then its own rules."""
    if isinstance(action, Overridden):
        check_override(state, action)
        return
    check_phase(state, action)
    rules_of_action = CHECKS.get(type(action))
    if rules_of_action is not None:
        rules_of_action(state, action)


def check_override(state: State, action: Overridden) -> None:
    """An action the rules refuse stands when its player has played the named card this round and the rule is
    one a card may bend [E2-15]. Turn order, phases and the board itself are never overridden."""
    check_phase(state, action.action)
    player = action.action.player
    if not cards.played_this_round(state, player, action.card):
        raise RuleViolation("E2-15", f"{player} has not played {action.card} this round: it cannot override a rule")
    try:
        check_action(state, action.action)
    except RuleViolation as violation:
        if not violation.waivable:
            raise
        return
    raise RuleViolation("E2-15", f"'{format_action(action.action)}' is legal without {action.card}: drop the override")


def apply_overridden(state: State, action: Overridden, effects: Effects) -> None:
    inner = action.action
    effects.add(
        "rule_overridden", round=state.round, player=inner.player, card=action.card, action=format_action(inner)
    )
    apply_action(state, inner, effects)


def apply_reveal(state: State, action: RevealClimate, effects: Effects) -> None:
    climate.apply_climate(state, action, effects)
    if state.revealed.get(climate.METEORITE):
        flow.end_game(state, effects)


def apply_draw(state: State, action: DrawGene, effects: Effects) -> None:
    if climate.apply_draw(state, action, effects):
        flow.start_auction(state)


def apply_bid(state: State, action: Bid, effects: Effects) -> None:
    if auction.apply_bid(state, action, effects):
        flow.after_settlement(state, effects)


def apply_slot(state: State, action: Slot, effects: Effects) -> None:
    auction.apply_slot(state, action, effects)
    flow.start_movement(state, effects)


def apply_move(state: State, action: Move, effects: Effects) -> None:
    movement.apply_move(state, action)
    flow.end_movement_turn_if_spent(state, effects)


def apply_fly(state: State, action: Fly, effects: Effects) -> None:
    movement.apply_special(state, "wings", action.source, action.target)
    flow.end_movement_turn_if_spent(state, effects)


def apply_swim(state: State, action: Swim, effects: Effects) -> None:
    movement.apply_special(state, "flippers", action.source, action.target)
    flow.end_movement_turn_if_spent(state, effects)


def apply_escape(state: State, action: Escape, effects: Effects) -> None:
    movement.apply_escape(state, action, effects)
    flow.end_movement_turn_if_spent(state, effects)


def apply_roll(state: State, action: Roll, effects: Effects) -> None:
    assert state.pending is not None
    if state.pending.kind == KILLER_BABY_ROLL:
        birth.apply_killer_baby_roll(state, action, effects)
        flow.next_birth_turn(state, effects)
        return
    movement.apply_attack_roll(state, action, effects)
    flow.end_movement_turn_if_spent(state, effects)


def apply_birth(state: State, action: Birth, effects: Effects) -> None:
    birth.apply_birth(state, action)
    if state.pending is None:
        flow.next_birth_turn(state, effects)


def apply_pass(state: State, action: Pass, effects: Effects) -> None:
    if state.phase == Phase.MOVEMENT:
        flow.next_movement_turn(state, effects)
    else:
        flow.next_birth_turn(state, effects)


def apply_remove(state: State, action: Remove, effects: Effects) -> None:
    survival.remove_all(state, action.spaces)
    effects.add("dinosaurs_perished", round=state.round, player=action.player, spaces=list(action.spaces), chosen=True)
    state.to_choose = state.to_choose[1:]
    flow.advance_survival(state, effects)


def apply_play(state: State, action: PlayCard, effects: Effects) -> None:
    cards.apply_play(state, action, effects)
    if state.phase == Phase.SURVIVAL:
        flow.advance_survival(state, effects)


APPLIES: dict[type, Callable[[State, Any, Effects], None]] = {
    Overridden: apply_overridden,
    SetOrder: climate.apply_order,
    RevealClimate: apply_reveal,
    DrawGene: apply_draw,
    Bid: apply_bid,
    Slot: apply_slot,
    Move: apply_move,
    Fly: apply_fly,
    Swim: apply_swim,
    Attack: lambda state, action, _: movement.apply_attack(state, action),
    Roll: apply_roll,
    Escape: apply_escape,
    Birth: apply_birth,
    Pass: apply_pass,
    Remove: apply_remove,
    Peek: lambda state, action, _: climate.apply_peek(state, action),
    Drew: lambda state, action, _: cards.apply_drew(state, action),
    PlayCard: apply_play,
}


def apply_action(state: State, action: Action, effects: Effects) -> None:
    APPLIES[type(action)](state, action, effects)


def legal_actions(state: State) -> Iterator[Action]:
    pending = state.pending
    if pending is not None:
        if pending.kind == ESCAPE:
            assert pending.source is not None
            yield from (
                Escape(pending.player, s) for s in movement.escape_spaces(state, pending.source, pending.target)
            )
        else:
            yield from (Roll(face) for face in DIE_FACES)
        return
    yield from phase_actions(state)


def phase_actions(state: State) -> Iterator[Action]:
    match state.phase:
        case Phase.ORDER:
            yield from (SetOrder(order) for order in permutations(state.players))
        case Phase.CLIMATE:
            yield from passing(check_action, state, (RevealClimate(token) for token in CLIMATE_TOKENS))
        case Phase.MUTATIONS:
            yield from (DrawGene(gene) for gene in (*state.kit.genes.normal, *state.kit.genes.unique, None))
        case Phase.AUCTION:
            yield from auction.legal_bids(state)
        case Phase.INITIATIVE:
            chooser = auction.slot_chooser(state)
            assert chooser is not None
            yield from (Slot(chooser, place) for place in range(1, len(state.order) + 1))
        case Phase.MOVEMENT:
            player = state.order[state.turn]
            yield from movement.legal_moves(state, player)
            yield Pass(player)
        case Phase.BIRTH:
            player = state.order[state.turn]
            yield from birth.legal_births(state, player)
            yield Pass(player)
        case Phase.SURVIVAL:
            yield from survival.legal_removals(state, state.to_choose[0])


def survival_start(step: Step[State, Action]) -> State | None:
    """The state as the survival phase began inside the step's action, or None if it did not begin there."""
    watcher = PhaseWatcher()
    apply_action(step.before.copy(), step.action, watcher)
    began: State | None = watcher.began.get(Phase.SURVIVAL)
    return began


class Evo2Ruleset(
    Ruleset[State, Action, Kit],
    HiddenInformation[State, Action],
    Chance[Action],
    Board[State],
    TextBoard[Kit],
    Explanations,
    ReadModels,
    Bots,
    FastReplay[State, Action],
    Composing[State],
):
    name = "evo2"
    version = "1"
    options = OPTIONS
    vocabulary = VOCABULARY
    parse_kit = staticmethod(parse_kit)
    legal_actions = staticmethod(legal_actions)
    """The legal actions but peeks, card draws, card plays and overrides, whose content only the table knows; a
    move as single steps, a removal in one order, a bid naming its column's gene or card (`next_words` composes
    them all)."""
    standings = staticmethod(flow.standings)
    parse_action = staticmethod(parse_cached)
    format_action = staticmethod(format_cached)
    action_from_data = staticmethod(ACTION_FORM.read)
    action_data = staticmethod(ACTION_FORM.write)
    snapshot_state = staticmethod(state_to_data)
    restore_state = staticmethod(state_from_data)
    view = staticmethod(view)
    describe = staticmethod(describe)
    layout = staticmethod(layout)
    draw = staticmethod(draw_island)

    def reading(self) -> Reading:
        return READING

    def self_play(self) -> SelfPlay[State, Action, Kit]:
        return Evo2SelfPlay(self)

    def setup(self, kit: Kit, players: Sequence[str], options: Mapping[str, OptionValue]) -> State:
        check_setup(kit, players)
        return State(
            kit=kit,
            options=resolve_options(self.options, options),
            players={name: PlayerState(name, seat) for seat, name in enumerate(players, start=1)},
            board={space: name for seat, name in enumerate(players, start=1) for space in kit.start_marks[seat]},
            climate_position=kit.climate.start,
        )

    def legal(self, state: State, action: Action) -> None:
        check(state, action)

    def apply(self, state: State, action: Action) -> Transition[State]:
        check(state, action)
        after = state.copy()
        effects = Effects()
        APPLIES[type(action)](after, action, effects)
        warnings = tuple(effects.warnings) if effects.warnings else ()
        return make_transition((after, tuple(effects.consequences), warnings))

    def replay(self, state: State, action: Action) -> State:
        after = state.copy()
        apply_action(after, action, Effects())
        return after

    def outcome(self, state: State) -> Outcome | None:
        return flow.standings(state) if state.phase == Phase.OVER else None

    def fact_of(self, action: Action) -> str:
        return FACTS[type(action.action if isinstance(action, Overridden) else action)]

    def is_chance(self, action: Action) -> bool:
        """The initiative draw, a climate token, a gene drawn and a die face."""
        return isinstance(action, SetOrder | RevealClimate | DrawGene | Roll)

    def visible_only_to(self, action: Action) -> str | None:
        """The one player who may see `action` until it is revealed: a card drawn, a sixth-sense peek [E2-15, E2-16]."""
        return action.player if isinstance(action, Drew | Peek) else None

    def rests_on(self, state: State, action: Action) -> str | None:
        """A card play rests on its player's hand [E2-15]; after a sixth-sense peek, the climate token revealed
        rests on what its player saw [E2-16]."""
        if isinstance(action, PlayCard):
            return action.player
        if isinstance(action, RevealClimate) and state.peeked is not None:
            return next((name for name, player in state.players.items() if player.has("sixth_sense")), None)
        return None

    def reveals(self, hidden: Action, later: Action) -> bool:
        """A card drawn is shown when its player plays it [E2-15]; a peek, when the climate token is revealed
        [E2-16]."""
        if isinstance(hidden, Drew):
            return isinstance(later, PlayCard) and (later.player, later.card) == (hidden.player, hidden.card)
        return isinstance(hidden, Peek) and isinstance(later, RevealClimate)

    def explain(self, steps: Sequence[Step[State, Action]], at: int) -> Explanation | None:
        return explain(steps, at, survival_start)

    def next_words(self, state: State, words: Sequence[str]) -> NextWords:
        """Every legal action a word at a time: the listed ones, and those the list leaves out (a move of several
        steps, a removal in another order, a bid naming its column, a peek, a card drawn or played, an override)."""
        return compose.next_words(state, words, legal_actions, check, format_cached)

    def public_state(self, state: State) -> dict[str, Any]:
        """Without the names of the event cards in hand (their number stays) and the sixth sense's peek [E2-15,
        E2-16]."""
        data = state_to_data(state)
        for entry in data["players"].values():
            entry[4] = []
        data["peeked"] = None
        return data

    def seat_state(self, state: State, seat: str) -> dict[str, Any]:
        """The player's own event cards in hand, and the peek if the player has the sixth sense [E2-15, E2-16]."""
        data = self.public_state(state)
        own = state.players.get(seat)
        if own is not None:
            data["players"][seat][4] = list(own.named_cards)
            if own.genes.get("sixth_sense", 0):
                data["peeked"] = state.peeked
        return data
