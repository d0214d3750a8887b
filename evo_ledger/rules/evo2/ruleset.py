"""Evo 2nd edition as a ruleset: which action each phase accepts, and how one phase leads to the next [E2-01]."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import permutations

from evo_ledger.rules.base import (
    OptionSpec,
    OptionValue,
    Outcome,
    RuleViolation,
    SetupError,
    Standing,
    Transition,
    resolve_options,
)
from evo_ledger.rules.evo2 import auction, birth, climate, movement, survival
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
    Move,
    Pass,
    Remove,
    RevealClimate,
    Roll,
    SetOrder,
    format_action,
    parse_action,
)
from evo_ledger.rules.evo2.effects import Effects
from evo_ledger.rules.evo2.state import Phase, PlayerState, State
from evo_ledger.rules.kit import Kit

PHASE_OF: dict[type, str] = {
    SetOrder: Phase.ORDER,
    RevealClimate: Phase.CLIMATE,
    DrawGene: Phase.MUTATIONS,
    Bid: Phase.AUCTION,
    Move: Phase.MOVEMENT,
    Attack: Phase.MOVEMENT,
    Roll: Phase.MOVEMENT,
    Birth: Phase.BIRTH,
    Remove: Phase.SURVIVAL,
}
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "affordable_bids",
        True,
        "E2-07",
        "refuse a bid whose price (the bid less the bidder's vials) is more than the bidder's MP",
    ),
)


class Evo2Ruleset:
    name = "evo2"
    version = "1"
    options = OPTIONS
    score_labels = ("mp", "dinosaurs")

    def setup(self, kit: Kit, players: Sequence[str], options: Mapping[str, OptionValue]) -> State:
        check_setup(kit, players)
        resolved = resolve_options(self.options, options)
        state = State(
            kit=kit,
            options=resolved,
            players={name: PlayerState(name, seat) for seat, name in enumerate(players, start=1)},
            board={space: name for seat, name in enumerate(players, start=1) for space in kit.start_marks[seat]},
            climate_position=kit.climate.start,
        )
        return state

    def legal(self, state: State, action: Action) -> None:
        check_phase(state, action)
        check_action(state, action)

    def apply(self, state: State, action: Action) -> Transition[State]:
        self.legal(state, action)
        after = state.copy()
        effects = Effects()
        apply_action(after, action, effects)
        return Transition(after, tuple(effects.consequences), tuple(effects.warnings))

    def legal_actions(self, state: State) -> Iterator[Action]:
        return legal_actions(state)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != Phase.OVER:
            return None
        return standings(state, self.score_labels)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def format_action(self, action: Action) -> str:
        return format_action(action)


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
    expected = PHASE_OF.get(type(action))
    if isinstance(action, Pass):
        if state.phase not in (Phase.MOVEMENT, Phase.BIRTH):
            raise RuleViolation("E2-01", f"a pass ends a movement or birth turn; this is the {state.phase} phase")
    elif expected != state.phase:
        raise wrong_phase(state, action, expected)
    if state.pending_attack is not None and not isinstance(action, Roll):
        attacker, source, target = state.pending_attack
        raise RuleViolation(
            "E2-09", f"the combat die must be rolled first for {attacker}'s attack from {source} on {target}"
        )


def wrong_phase(state: State, action: Action, expected: str | None) -> RuleViolation:
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
        f"'{format_action(action)}' belongs to the {expected} phase; round {state.round} is in the {state.phase} phase",
    )


def check_action(state: State, action: Action) -> None:
    match action:
        case SetOrder():
            climate.check_order(state, action)
        case RevealClimate():
            climate.check_climate(state, action)
        case DrawGene():
            climate.check_draw(state, action)
        case Bid():
            auction.check_bid(state, action)
        case Move():
            movement.check_move(state, action)
        case Attack():
            movement.check_attack(state, action)
        case Roll():
            movement.check_roll(state, action)
        case Birth():
            birth.check_birth(state, action)
        case Pass(player) if state.phase == Phase.MOVEMENT:
            movement.check_turn(state, player)
        case Pass(player):
            birth.check_birth_turn(state, player)
        case Remove():
            survival.check_remove(state, action)


def apply_action(state: State, action: Action, effects: Effects) -> None:
    match action:
        case SetOrder():
            climate.apply_order(state, action, effects)
        case RevealClimate():
            climate.apply_climate(state, action, effects)
            if state.revealed[climate.METEORITE]:
                end_game(state, effects)
        case DrawGene():
            if climate.apply_draw(state, action, effects):
                start_auction(state)
        case Bid():
            if auction.apply_bid(state, action, effects):
                start_movement(state, effects)
        case Move():
            movement.apply_move(state, action)
            end_movement_turn_if_spent(state, effects)
        case Attack():
            movement.apply_attack(state, action)
        case Roll():
            movement.apply_roll(state, action, effects)
            end_movement_turn_if_spent(state, effects)
        case Birth():
            birth.apply_birth(state, action)
            next_birth_turn(state, effects)
        case Pass() if state.phase == Phase.MOVEMENT:
            next_movement_turn(state, effects)
        case Pass():
            next_birth_turn(state, effects)
        case Remove(player, spaces):
            survival.remove_all(state, spaces)
            effects.add("dinosaurs_perished", round=state.round, player=player, spaces=list(spaces), chosen=True)
            state.to_choose.pop(0)
            advance_survival(state, effects)


def start_auction(state: State) -> None:
    state.phase = Phase.AUCTION
    state.to_bid = list(state.order)
    state.markers = {}
    state.outbid = None


def start_movement(state: State, effects: Effects) -> None:
    state.phase = Phase.MOVEMENT
    state.turn = -1
    next_movement_turn(state, effects)


def end_movement_turn_if_spent(state: State, effects: Effects) -> None:
    if state.movement_left == 0 and state.pending_attack is None:
        next_movement_turn(state, effects)


def next_movement_turn(state: State, effects: Effects) -> None:
    state.turn += 1
    if state.turn < len(state.order):
        state.movement_left = state.players[state.order[state.turn]].movement_points
        return
    state.movement_left = 0
    state.phase = Phase.BIRTH
    state.birth_pass = 1
    state.turn = -1
    next_birth_turn(state, effects)


def next_birth_turn(state: State, effects: Effects) -> None:
    """The next player in initiative order with an egg for this pass; a new pass once all have had theirs."""
    most_eggs = max(p.eggs for p in state.players.values())
    while state.birth_pass <= most_eggs:
        for index in range(state.turn + 1, len(state.order)):
            if state.players[state.order[index]].eggs >= state.birth_pass:
                state.turn = index
                return
        state.birth_pass += 1
        state.turn = -1
    state.phase = Phase.SURVIVAL
    state.to_choose = list(state.order)
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
        state.to_choose.pop(0)
    award_mutation_points(state, effects)


def award_mutation_points(state: State, effects: Effects) -> None:
    """One MP per dinosaur on the board [E2-13], then the next round begins with its climate."""
    awards = {name: state.count_of(name) for name in state.order}
    for name, amount in awards.items():
        state.players[name].mp += amount
    effects.add("mp_awarded", round=state.round, awards=awards, totals={n: state.players[n].mp for n in state.order})
    state.round += 1
    state.phase = Phase.CLIMATE


def end_game(state: State, effects: Effects) -> None:
    state.phase = Phase.OVER
    result = standings(state, Evo2Ruleset.score_labels)
    effects.add(
        "game_ended",
        round=state.round,
        standings=[
            {"rank": s.rank, "player": s.player, "mp": s.score[0], "dinosaurs": s.score[1]} for s in result.standings
        ],
    )


def standings(state: State, labels: tuple[str, ...]) -> Outcome:
    """Most MP wins; ties go to most dinosaurs on the board; further ties share the place [E2-14]."""
    scores = {name: (p.mp, state.count_of(name)) for name, p in state.players.items()}
    ordered = sorted(state.players, key=lambda name: (-scores[name][0], -scores[name][1], state.players[name].seat))
    rows = tuple(
        Standing(1 + sum(1 for other in scores.values() if other > scores[name]), name, scores[name])
        for name in ordered
    )
    return Outcome(rows, labels)


def legal_actions(state: State) -> Iterator[Action]:
    match state.phase:
        case Phase.ORDER:
            yield from (SetOrder(order) for order in permutations(state.players))
        case Phase.CLIMATE:
            yield from _passing(state, (RevealClimate(token) for token in CLIMATE_TOKENS))
        case Phase.MUTATIONS:
            yield from (DrawGene(gene) for gene in (*state.kit.genes.normal, *state.kit.genes.unique, None))
        case Phase.AUCTION:
            yield from auction.legal_bids(state)
        case Phase.MOVEMENT if state.pending_attack is not None:
            yield from (Roll(face) for face in DIE_FACES)
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


def _passing(state: State, actions: Iterator[Action]) -> Iterator[Action]:
    for action in actions:
        try:
            check_action(state, action)
        except RuleViolation:
            continue
        yield action
