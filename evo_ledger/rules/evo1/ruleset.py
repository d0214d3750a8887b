"""Evo 1st edition as a ruleset: which action each phase accepts [E1-04], checked and applied."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache, partial
from itertools import permutations
from typing import Any

from evo_ledger.rules.base import (
    DEVIATION,
    OPEN_TIE,
    Advice,
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
    resolve_options,
)
from evo_ledger.rules.contract import (
    Advising,
    Board,
    Bots,
    Chance,
    Composing,
    EarlierVersions,
    Explanations,
    FastReplay,
    HiddenInformation,
    Reading,
    ReadModels,
    Ruleset,
    SelfPlay,
    TextBoard,
)
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import auction, autosaur, board, cards, compose, flow
from evo_ledger.rules.evo1.actions import (
    DIE_FACES,
    KEYWORDS,
    PLAYER,
    Action,
    Attack,
    Bid,
    Birth,
    DrawGene,
    Drew,
    Move,
    Pass,
    PlayCard,
    Proceed,
    Remove,
    Roll,
    Start,
    format_action,
    parse_action,
)
from evo_ledger.rules.evo1.explain import explain
from evo_ledger.rules.evo1.flow import awaited_roll
from evo_ledger.rules.evo1.kit import PLAYER_COUNTS, Kit, parse_kit
from evo_ledger.rules.evo1.reading import Evo1Reading
from evo_ledger.rules.evo1.selfplay import Evo1SelfPlay
from evo_ledger.rules.evo1.state import (
    AUTOSAUR_ROLL,
    CLIMATE_ROLL,
    COMBAT_ROLL,
    HEAT_ROLL,
    INITIATIVE_ROLL,
    METEOR_ROLL,
    Phase,
    Seat,
    State,
    state_from_data,
    state_to_data,
)
from evo_ledger.rules.evo1.view import draw_board, layout, view
from evo_ledger.rules.evo1.words import describe
from evo_ledger.rules.structured import ActionForm

FACTS: dict[type, str] = {
    Start: "StartingBeachesAssigned",
    Drew: "EventCardDrawn",
    Roll: "DieRolled",
    Move: "DinosaurMoved",
    Attack: "AttackDeclared",
    Pass: "TurnPassed",
    Birth: "DinosaurBorn",
    Remove: "SurvivalChosen",
    DrawGene: "GeneDrawn",
    Bid: "BidPlaced",
    PlayCard: "EventCardPlayed",
    Proceed: "TableProceeded",
}
CONSEQUENCES = {
    "initiative_set": "InitiativeSet",
    "climate_changed": "ClimateChanged",
    "combat_resolved": "CombatResolved",
    "dinosaurs_perished": "DinosaursPerished",
    "mp_awarded": "MPAwarded",
    "meteor_advanced": "MeteorAdvanced",
    "meteor_rolled": "MeteorRolled",
    "auction_skipped": "AuctionSkipped",
    "bid_outbid": "BidOutbid",
    "auction_settled": "AuctionSettled",
    "game_ended": "GameEnded",
    "card_played": "CardEffect",
    "heat_stroke_rolled": "HeatStrokeRolled",
    "mp_lost": "MPLost",
    "autosaur_rolled": "AutosaurRolled",
    "autosaur_survived": "AutosaurSurvived",
}
VOCABULARY = Vocabulary("evo-ledger:evo1", tuple(FACTS.values()), CONSEQUENCES)
PHASE_OF: dict[type, tuple[str, ...]] = {
    Start: (Phase.SETUP,),
    Move: (Phase.MOVEMENT,),
    Attack: (Phase.MOVEMENT,),
    Birth: (Phase.BIRTHS, Phase.SETUP),
    Pass: (Phase.MOVEMENT, Phase.BIRTHS, Phase.EVOLUTION),
    Remove: (Phase.SURVIVAL,),
    DrawGene: (Phase.EVOLUTION,),
    Bid: (Phase.EVOLUTION,),
}
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "experienced",
        False,
        "E1-21",
        "the experienced players' variant: one gene fewer than players, one pass an auction, no meteor in turns 1-2",
    ),
    OptionSpec(
        "rebirth_without_adults",
        False,
        "E1-22",
        "a species with no dinosaur on the board as the births begin places its babies anywhere, each next to the last",
    ),
    OptionSpec(
        "autosaurs",
        "",
        "AS-01",
        "the seats run by the Autosaur algorithm, named and separated by spaces (game files: 'autosaurs NAME...')",
        seat_mark="autosaur",
    ),
    OptionSpec(
        "costly_rebid",
        False,
        "AS-14",
        "an outbid Autosaur adds 1 to its roll when increasing would cost 3 or more (a modifier the source doubts)",
    ),
    OptionSpec(
        "recover_returns_to_owner",
        False,
        "E1-28",
        "a card taken back with recover_card returns to the seat that played it, not to the one that recovers it",
    ),
)
READING = Evo1Reading()
make_transition = partial(tuple.__new__, Transition)  # without Transition(...)'s argument handling: every action's cost
ACTION_WORDS: dict[type, str] = {Start: "start", DrawGene: "draw", PlayCard: "play", Proceed: "step"}
ACTION_FORM = ActionForm(Action, parse_action, format_action, ACTION_WORDS)


@lru_cache(maxsize=4096)
def parse_cached(text: str) -> Action:
    return parse_action(text)


@lru_cache(maxsize=4096)
def format_cached(action: Action) -> str:
    return format_action(action)


def check_setup(kit: Kit, players: Sequence[str]) -> None:
    if len(players) not in PLAYER_COUNTS:
        raise SetupError(f"[E1-01] Evo 1st edition is for 3 to 5 players, not {len(players)}")
    if len(players) != kit.players:
        raise SetupError(f"[E1-01] kit {kit.name!r} is the board for {kit.players} players, not {len(players)}")
    for name in players:
        if not PLAYER.fullmatch(name) or name in KEYWORDS:
            raise SetupError(f"{name!r} cannot be a player's name: use lower-case letters, digits and _, not a keyword")
    if len(set(players)) != len(players):
        raise SetupError("each player must have a different name")
    if len(kit.cards) < kit.hand * len(players):
        raise SetupError(f"kit {kit.name!r} has too few event cards to deal {kit.hand} to each player")


def check_phase(state: State, action: Action) -> None:
    phase, kind = state.phase, type(action)
    if phase in ENDED:
        check_ended(state, kind)
    player = getattr(action, "player", None)
    if player is not None and player not in state.seats:
        raise RuleViolation(None, f"no player named {player!r} sits at this table ({', '.join(state.seats)})")
    if kind is Birth:
        board.check_births_allowed(state)
    if kind in ANY_TIME:
        return
    if state.due or state.paying or (state.cards_due and phase != Phase.SETUP):
        check_waiting(state)
    awaited = awaited_roll(state)
    if kind is Roll:
        if awaited is None:
            if state.climate_card in REPLACING_ROLL and phase == Phase.MOVEMENT and state.combat is None:
                raise RuleViolation("E1-06", f"{state.climate_card} set this turn's climate: there is no climate roll")
            raise RuleViolation("E1-04", f"no die roll is awaited in turn {state.turn}'s {phase} phase")
        return
    if awaited is not None:
        raise RuleViolation(ROLL_RULINGS[awaited], f"the {awaited} die must be rolled first ({awaiting(state)})")
    if phase not in PHASE_OF[kind]:
        expected = " or ".join(PHASE_OF[kind])
        raise RuleViolation(
            "E1-04", f"'{format_action(action)}' belongs to the {expected} phase; turn {state.turn} is in {phase}"
        )
    if not state.rows_due and phase == Phase.EVOLUTION and kind in (Bid, Pass):
        raise RuleViolation("E1-14", "there is no auction to bid in now")


def check_ended(state: State, kind: type) -> None:
    """After the impact only a card or the table's step may come, and only in the end window [E1-20]; an embargo
    that stood at the impact leaves no end window, so no card at all [E1-29]."""
    if state.phase == Phase.END and kind in (PlayCard, Proceed):
        return
    if kind is PlayCard:
        cards.check_end_under_embargo(state)
    if kind in (DrawGene, Bid, Pass):
        raise RuleViolation("E1-14", f"the meteor struck in turn {state.turn}: that turn has no auction")
    if state.phase == Phase.END:
        raise RuleViolation("E1-20", "the meteor has struck: only fossils may be played before the result ('end')")
    raise RuleViolation("E1-20", "the meteor has struck and ended the game: no action follows it")


def check_waiting(state: State) -> None:
    """What the game waits for before any other action: the table's step, a payment's vouchers, a card drawn."""
    if state.due:
        raise RuleViolation(
            "E1-24", f"the table takes its '{state.due}' step first: until then, a card may still be played"
        )
    if state.paying:
        raise RuleViolation("E1-19", f"{state.paying[0]}'s payment waits for the vouchers that cover it")
    raise RuleViolation("E1-19", f"{state.cards_due[0]} draws the event card of a card gene first")


ENDED = (Phase.OVER, Phase.END)
# A card drawn or played, and the table's steps, may come in any phase: their own checks say when.
ANY_TIME = frozenset({Drew, PlayCard, Proceed})
ROLL_RULINGS = {
    INITIATIVE_ROLL: "E1-05",
    CLIMATE_ROLL: "E1-06",
    COMBAT_ROLL: "E1-09",
    METEOR_ROLL: "E1-13",
    HEAT_ROLL: "E1-26",
    AUTOSAUR_ROLL: "AS-13",
}
REPLACING_ROLL = frozenset({"climate_double_shift", "choose_climate"})
# What closes the start window of a phase: any action but a card drawn or played and a die roll [E1-24].
KEEPS_WINDOW = frozenset({Drew, PlayCard, Roll})


def close_window(state: State, action: Action) -> None:
    """Before the action applies (a phase it begins opens its own window): any action but a card play ends the
    moment a response answers, and any but a card or a roll closes the start window [E1-24]."""
    kind = type(action)
    if kind is not PlayCard and state.last_play is not None:
        state.last_play = None
    if kind not in KEEPS_WINDOW and state.window_open:
        state.window_open, state.window_plays = False, ()


def awaiting(state: State) -> str:
    awaited = awaited_roll(state)
    if awaited == INITIATIVE_ROLL:
        return f"{state.to_roll[0]} rolls for initiative"
    if awaited == CLIMATE_ROLL:
        return f"{state.first_player} rolls the climate die"
    if awaited == COMBAT_ROLL and state.combat is not None:
        combat = state.combat
        source = "with a birth" if combat.birth else f"from {combat.source}"
        return f"{combat.attacker} rolls for the attack {source} on {combat.target}"
    if awaited == HEAT_ROLL:
        space = state.heat_rolls[0]
        return f"the heat stroke die for {state.board[space]}'s dinosaur on {space}"
    if awaited == AUTOSAUR_ROLL:
        return f"{auction.bidder(state)}, an Autosaur, rolls to decide its bid"
    if awaited == METEOR_ROLL:
        number = state.kit.meteor_track[state.meteor]
        return f"{state.first_player} rolls for the meteor on space {state.meteor}: {number} or less strikes"
    return ""


def check_roll(state: State, action: Roll) -> None:
    """Any face may come up; what is awaited was checked with the phase. An Autosaur's roll must leave it a move:
    a kit that leaves it neither an affordable row nor a pass is an error [AS-16]."""
    if state.autosaurs and awaited_roll(state) == AUTOSAUR_ROLL:
        player = auction.bidder(state)
        assert player is not None
        autosaur.bid_decision(state, player, action.face)


def check_birth(state: State, action: Birth) -> None:
    """A setup birth is an Autosaur's second dinosaur [AS-03]; an Autosaur's birth is one of its step's
    candidates [AS-06]; any other is E1's [E1-10]."""
    if state.phase == Phase.SETUP:
        autosaur.check_setup_birth(state, action.player, action.space)
    elif action.player in state.autosaurs:
        board.check_turn(state, action.player, "place a baby")
        board.check_space(state, action.space)
        if modifiers_ban_births(state):
            raise RuleViolation("E1-10", "no_births was played: no baby is placed this turn")
        autosaur.check_birth(state, action.player, action.space)
    else:
        board.check_birth(state, action)


def modifiers_ban_births(state: State) -> bool:
    return bool(state.modifiers) and state.in_force("no_births") is not None


def check_pass(state: State, action: Pass) -> None:
    if state.phase == Phase.MOVEMENT:
        board.check_turn(state, action.player, "end a movement")
    elif state.phase == Phase.BIRTHS:
        board.check_turn(state, action.player, "end the births")
        if action.player in state.autosaurs:
            tried = ", ".join(autosaur.next_births(state, action.player))
            raise RuleViolation("AS-06", f"{action.player}, an Autosaur, ends its births by itself: it tries {tried}")
        left = sorted(board.birth_spaces(state, action.player))
        if left:
            raise RuleViolation(
                "E1-10", f"births are compulsory: {action.player} still has an egg and room on {', '.join(left)}"
            )
    else:
        auction.check_pass(state, action)


def check_proceed(state: State, action: Proceed) -> None:
    if state.due != action.step:
        awaited = f"its '{state.due}' step" if state.due else "no step"
        raise RuleViolation("E1-24", f"the table takes {awaited} now, not '{action.step}'")


CHECKS: dict[type, Callable[[State, Any], None]] = {
    Start: flow.check_start,
    Drew: flow.check_drew,
    Roll: check_roll,
    Move: board.check_move,
    Attack: board.check_attack,
    Pass: check_pass,
    Birth: check_birth,
    Remove: board.check_remove,
    DrawGene: auction.check_draw,
    Bid: auction.check_bid,
    PlayCard: cards.check_play,
    Proceed: check_proceed,
}


def apply_roll(state: State, action: Roll, effects: Effects) -> None:
    awaited = awaited_roll(state)
    if awaited == INITIATIVE_ROLL:
        flow.apply_initiative_roll(state, action.face, effects)
    elif awaited == CLIMATE_ROLL:
        flow.apply_climate_roll(state, action.face, effects)
    elif awaited == HEAT_ROLL:
        cards.resolve_heat_roll(state, action.face, effects)
    elif awaited == COMBAT_ROLL:
        birth = state.combat is not None and state.combat.birth
        board.resolve_combat(state, action.face, effects)
        if birth:
            flow.after_birth(state, effects)
        else:
            flow.after_movement_action(state, effects)
    elif awaited == AUTOSAUR_ROLL:
        flow.apply_autosaur_roll(state, action.face, effects)
    else:
        flow.apply_meteor_roll(state, action.face, effects)


def apply_move(state: State, action: Move, effects: Effects) -> None:
    board.apply_move(state, action)
    flow.after_movement_action(state, effects)


def apply_birth(state: State, action: Birth, effects: Effects) -> None:
    if state.phase == Phase.SETUP:
        flow.apply_setup_birth(state, action, effects)
        return
    board.apply_birth(state, action)
    flow.after_birth(state, effects)


def apply_remove(state: State, action: Remove, effects: Effects) -> None:
    board.remove_survivors_choice(state, board.survival_of(state, action.player), action.spaces, effects)
    flow.next_survivor(state, effects)


def apply_pass(state: State, action: Pass, effects: Effects) -> None:
    if state.phase == Phase.MOVEMENT:
        flow.next_mover(state, effects)
    elif state.phase == Phase.BIRTHS:
        flow.next_birther(state, effects)
    else:
        state.bid_roll = 0
        if auction.apply_pass(state, action):
            flow.after_auction(state, effects)


def apply_bid(state: State, action: Bid, effects: Effects) -> None:
    state.bid_roll = 0
    if auction.apply_bid(state, action, effects):
        flow.after_auction(state, effects)


def apply_draw(state: State, action: DrawGene, effects: Effects) -> None:
    auction.apply_draw(state, action)


APPLIES: dict[type, Callable[[State, Any, Effects], None]] = {
    Start: flow.apply_start,
    Drew: flow.apply_drew,
    Roll: apply_roll,
    Move: apply_move,
    Attack: lambda state, action, _: board.apply_attack(state, action),
    Pass: apply_pass,
    Birth: apply_birth,
    Remove: apply_remove,
    DrawGene: apply_draw,
    Bid: apply_bid,
    PlayCard: cards.apply_play,
    Proceed: lambda state, action, effects: flow.take_step(state, action.step, effects),
}


def legal_actions(state: State) -> Iterator[Action]:
    return listed_actions(state, board.legal_moves)


def listed_actions(state: State, moves: Callable[[State, str], Iterator[Move | Attack]]) -> Iterator[Action]:
    """The legal actions, a mover's from `moves` (every path and attack, or the attacks alone)."""
    if state.phase == Phase.OVER:
        return
    yield from card_draws(state)
    yield from cards.legal_plays(state)
    if state.due:
        yield Proceed(state.due)
        return
    if state.paying:
        return
    if awaited_roll(state) is not None:
        yield from (Roll(face) for face in DIE_FACES)
        return
    if state.cards_due and state.phase != Phase.SETUP:
        return
    player = state.current_player
    if state.placing:
        yield from (Birth(state.placing[0], space) for space in autosaur.setup_spaces(state, state.placing[0]))
        return
    if player is not None and player in state.autosaurs and state.phase == Phase.BIRTHS:
        yield from (Birth(player, space) for space in autosaur.open_spaces(state))
        return
    match state.phase:
        case Phase.SETUP if not state.board:
            players = list(state.seats)
            yield from (
                Start(tuple(zip(players, beaches, strict=True))) for beaches in permutations(state.kit.start_beaches)
            )
        case Phase.MOVEMENT if player is not None:
            yield from moves(state, player)
            yield Pass(player)
        case Phase.BIRTHS if player is not None:
            spaces = sorted(board.birth_spaces(state, player))
            yield from (Birth(player, space) for space in (*spaces, *sorted(board.birth_attacks(state, player))))
            if not spaces:
                yield Pass(player)
        case Phase.SURVIVAL if player is not None:
            yield from board.legal_removals(state, player)
        case Phase.EVOLUTION:
            yield from auction.legal_auction_actions(state)


def autosaur_warnings(state: State, action: Action, effects: Effects) -> None:
    """A legal Autosaur decision that is not the algorithm's is accepted with a warning naming its AS id; within
    an open tie of AS-07, any tied space is the algorithm's [AS-18]."""
    player = getattr(action, "player", None)
    if player not in state.autosaurs:
        return
    if isinstance(action, Birth):
        if state.phase == Phase.SETUP:
            best, ruling = autosaur.ranked_tie(state, player, autosaur.setup_spaces(state, player)), "AS-03"
        else:
            best, ruling = autosaur.next_births(state, player), "AS-07"
        if action.space not in best:
            message = f"{player}'s algorithm places its dinosaur on {' or '.join(best)}, not on {action.space}"
            effects.warn(ruling, message, DEVIATION)
        elif len(best) > 1:
            effects.warn(ruling, f"an open tie between {' and '.join(best)}: {action.space} chosen", OPEN_TIE)
    elif isinstance(action, Bid | Pass) and state.phase == Phase.EVOLUTION:
        decision = autosaur.bid_decision(state, player, state.bid_roll)
        recorded = (auction.target_row(state, action.target), action.amount) if isinstance(action, Bid) else (0, 0)
        if recorded != (decision.row, decision.amount):
            wanted = f"bids {decision.amount} on row {decision.row}" if decision.row else "passes"
            made = f"a bid of {recorded[1]} on row {recorded[0]}" if recorded[0] else "a pass"
            effects.warn(decision.ruling, f"{player}'s algorithm {wanted} ({decision.reason}), not {made}", DEVIATION)


def card_draws(state: State) -> Iterator[Drew]:
    if not state.cards_due:
        return
    deck = [card for card in state.kit.card_ids if not state.holds(card) and card not in state.discards]
    for player in dict.fromkeys(state.cards_due):
        yield from (Drew(player, card) for card in deck)


class Evo1Ruleset(
    Ruleset[State, Action, Kit],
    HiddenInformation[State, Action],
    Chance[Action],
    Board[State],
    TextBoard[Kit],
    Advising[State],
    Explanations,
    ReadModels,
    Bots,
    FastReplay[State, Action],
    EarlierVersions,
    Composing[State],
):
    """Version 2 checks the event cards [E1-23 to E1-31]; version 1, which refused every card play, still replays
    the games recorded with it (`at_version`)."""

    name = "evo1"
    version = "2"
    options = OPTIONS
    vocabulary = VOCABULARY
    parse_kit = staticmethod(parse_kit)
    legal_actions = staticmethod(legal_actions)
    """The legal actions, a card dealt or drawn listed from the cards not yet out of the deck; a move's path never
    comes back to a space, a bid names its row as rowN, the beaches and a removal's spaces come in one order
    (`next_words` composes the others)."""
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
    draw = staticmethod(draw_board)

    def __init__(self, cards: bool = True) -> None:
        self.cards = cards
        if not cards:
            self.version = "1"
            self.options = tuple(option for option in OPTIONS if option.ruling != "E1-28")

    def at_version(self, version: str) -> Evo1Ruleset | None:
        return WITHOUT_CARDS if version == "1" else None

    def reading(self) -> Reading:
        return READING

    def self_play(self) -> SelfPlay[State, Action, Kit]:
        return Evo1SelfPlay(self)

    def setup(self, kit: Kit, players: Sequence[str], options: Mapping[str, OptionValue]) -> State:
        check_setup(kit, players)
        resolved = resolve_options(self.options, options)
        autosaurs = autosaur.autosaurs_of(resolved.get("autosaurs"))
        unknown = [name for name in autosaurs if name not in players]
        if unknown:
            seats = ", ".join(players)
            raise SetupError(f"[AS-01] an Autosaur is one of the seats ({seats}), not {', '.join(unknown)}")
        return State(
            kit=kit,
            options=resolved,
            seats={name: Seat(name, seat, kit.start_mp) for seat, name in enumerate(players, start=1)},
            board={},
            climate_position=kit.chart_start,
            meteor=kit.meteor_start,
            cards_due=tuple(name for name in players if name not in autosaurs for _ in range(kit.hand)),
            cards=self.cards,
            autosaurs=frozenset(autosaurs),
        )

    def legal(self, state: State, action: Action) -> None:
        check_phase(state, action)
        CHECKS[type(action)](state, action)

    def apply(self, state: State, action: Action) -> Transition[State]:
        kind = type(action)
        check_phase(state, action)
        CHECKS[kind](state, action)
        after = state.copy()
        effects = Effects()
        if after.last_play is not None or after.window_open:
            close_window(after, action)
        if after.autosaurs:
            autosaur_warnings(state, action, effects)
        APPLIES[kind](after, action, effects)
        warnings = tuple(effects.warnings) if effects.warnings else ()
        return make_transition((after, tuple(effects.consequences), warnings))

    def replay(self, state: State, action: Action) -> State:
        after = state.copy()
        close_window(after, action)
        APPLIES[type(action)](after, action, Effects())
        return after

    def outcome(self, state: State) -> Outcome | None:
        return flow.standings(state) if state.phase == Phase.OVER else None

    def fact_of(self, action: Action) -> str:
        return FACTS[type(action)]

    def is_chance(self, action: Action) -> bool:
        """The starred beaches, a die face and a gene drawn."""
        return isinstance(action, Start | Roll | DrawGene)

    def visible_only_to(self, action: Action) -> str | None:
        """A card dealt or drawn is its player's alone until played [E1-02, E1-23]."""
        return action.player if isinstance(action, Drew) else None

    def advice(self, state: State) -> Advice | None:
        """An Autosaur's decision: its setup dinosaur, its next birth, its bid or pass once rolled [AS-18]."""
        return autosaur.advice(state) if state.autosaurs else None

    def rests_on(self, state: State, action: Action) -> str | None:
        """A card play, listed as legal or refused, shows whether its player holds the card [E1-23]."""
        return action.player if isinstance(action, PlayCard) else None

    def reveals(self, hidden: Action, later: Action) -> bool:
        return (
            isinstance(hidden, Drew)
            and isinstance(later, PlayCard)
            and (later.player, later.card) == (hidden.player, hidden.card)
        )

    def public_state(self, state: State) -> dict[str, Any]:
        """Without the cards in hand: their number stays [E1-23]."""
        data = state_to_data(state)
        for entry in data["seats"].values():
            entry[3] = len(entry[3])
        return data

    def seat_state(self, state: State, seat: str) -> dict[str, Any]:
        data = self.public_state(state)
        if seat in state.seats:
            data["seats"][seat][3] = list(state.seats[seat].hand)
        return data

    def explain(self, steps: Sequence[Step[State, Action]], at: int) -> Explanation | None:
        return explain(steps, at, self.replay)

    def next_words(self, state: State, words: Sequence[str]) -> NextWords:
        """Every legal action a word at a time: the listed ones, and those the list leaves out (a move that comes
        back to a space, a bid naming its row's gene, the beaches and removals in another order)."""
        return compose.next_words(state, words, listed_actions(state, board.legal_attacks), self.legal)


WITHOUT_CARDS = Evo1Ruleset(cards=False)
