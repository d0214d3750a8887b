"""What the sensible bot thinks an event card play is worth now: well above any move when the card helps its
player, below doing nothing (0) when it does not."""

from __future__ import annotations

from collections.abc import Callable

from evo_ledger.rules.evo1 import auction, board, flow, modifiers
from evo_ledger.rules.evo1.actions import PlayCard
from evo_ledger.rules.evo1.state import Modifier, Phase, State

USEFUL = 5.0
HANDY = 3.0
USELESS = -1.0
ZONE_WORTH = {"ideal": 3, "hot": 1, "cold": 1, "deadly": -2}


def card_worth(state: State, play: PlayCard) -> float:
    judge = JUDGES.get(play.card)
    return judge(state, play) if judge is not None else USELESS


def useful_if(condition: bool, worth: float = USEFUL) -> float:
    return worth if condition else USELESS


def others(state: State, player: str) -> list[str]:
    return [other for other in state.seats if other != player]


def climate_worth(state: State, player: str, position: int) -> float:
    """How the marker on `position` suits `player` against the others: each dinosaur by its zone."""
    zones = state.kit.zones[position]
    worth = {seat: 0.0 for seat in state.seats}
    for space, owner in state.board.items():
        worth[owner] += ZONE_WORTH[zones[space]]
    rivals = others(state, player)
    return worth[player] - sum(worth[seat] for seat in rivals) / max(1, len(rivals))


def rolled_worth(state: State, player: str) -> float:
    """The climate a roll would give, on average over the die's faces."""
    size = len(state.kit.chart)
    positions = [(state.climate_position + step) % size for step in flow.CLIMATE_STEPS.values()]
    return sum(climate_worth(state, player, position) for position in positions) / len(positions)


def climate_card(state: State, play: PlayCard) -> float:
    size, here = len(state.kit.chart), state.climate_position
    if play.card == "choose_climate":
        position = (here + flow.CLIMATE_STEPS[int(play.targets[0])]) % size
    elif play.card == "climate_double_shift":
        position = (here + 2) % size
    else:
        return USELESS
    gain = climate_worth(state, play.player, position) - rolled_worth(state, play.player)
    return USEFUL + gain if gain > 1 else USELESS


def enemies_next_to(state: State, player: str) -> list[tuple[str, str]]:
    """Each pair of a dinosaur of `player` and an enemy next to it: (own space, enemy space)."""
    neighbours, board_ = state.kit.neighbours, state.board
    return [
        (space, there)
        for space, owner in board_.items()
        if owner == player
        for there in neighbours[space]
        if board_.get(there) not in (None, player)
    ]


def horns(state: State, player: str) -> int:
    return state.gene(player, "horn")


def threatened(state: State, player: str) -> bool:
    return any(horns(state, state.board[there]) >= horns(state, player) for _, there in enemies_next_to(state, player))


def with_modifier(state: State, card: str, player: str) -> State:
    trial = state.copy()
    trial.modifiers = (*state.modifiers, Modifier(card, player))
    return trial


def losses(state: State) -> dict[str, int]:
    """What each seat would lose to the climate now."""
    found = board.losing_survivals(state, list(state.seats))
    return {seat: len(found[seat].forced) + sum(found[seat].excess(z) for z in found[seat].choices) for seat in found}


def survival_card(state: State, play: PlayCard) -> float:
    before = losses(state)
    after = losses(with_modifier(state, play.card, play.player))
    own = before.get(play.player, 0) - after.get(play.player, 0)
    rivals = sum(after.get(seat, 0) - before.get(seat, 0) for seat in others(state, play.player))
    return useful_if(own + rivals > 0, USEFUL + own + rivals)


def births_wanted(state: State, player: str) -> int:
    return min(state.gene(player, "egg"), state.reserve_of(player))


def room_for_births(state: State, player: str) -> int:
    adults = [space for space in state.adults.get(player, ()) if state.board.get(space) == player]
    return len({space for adult in adults for space in state.kit.neighbours[adult] if space not in state.board})


def voucher(state: State, play: PlayCard) -> float:
    if play.player in state.paying:
        return 2 * USEFUL
    held = [amount for seat, amount in state.bids.values() if seat == play.player]
    return useful_if(bool(held) and auction.payment(state, play.player, max(held)) >= auction.VOUCHER_MP, HANDY)


def recover(state: State, play: PlayCard) -> float:
    last = state.last_play[1] if state.last_play else ""
    return useful_if(last not in ("", "recover_card", "card_embargo") and last in JUDGES, HANDY)


JUDGES: dict[str, Callable[[State, PlayCard], float]] = {
    "heat_stroke": lambda s, p: useful_if(
        all(modifiers.parasols(s, p.player) > modifiers.parasols(s, o) for o in others(s, p.player))
    ),
    "cull_enemy": lambda s, p: USEFUL + 0.1 * s.count_of(s.board[p.targets[0]]),
    "climate_double_shift": climate_card,
    "choose_climate": climate_card,
    "mirror_climate": lambda s, p: useful_if(s.kit.chart.count(s.kit.chart[s.climate_position]) > 1, HANDY),
    "no_fighting": lambda s, p: useful_if(threatened(s, p.player), HANDY),
    "peace_treaty": lambda s, p: useful_if(
        any(s.board[there] == p.targets[0] for _, there in enemies_next_to(s, p.player))
        and horns(s, p.targets[0]) >= horns(s, p.player)
    ),
    "defence_horns": lambda s, p: useful_if(threatened(s, p.player), HANDY),
    "attack_horns": lambda s, p: useful_if(bool(enemies_next_to(s, p.player)) and s.gene(p.player, "foot") > 0),
    "stampede": lambda s, p: useful_if(s.count_of(p.player) - s.gene(p.player, "foot") >= 2),
    "distant_births": lambda s, p: useful_if(room_for_births(s, p.player) < births_wanted(s, p.player)),
    "birth_attack": lambda s, p: useful_if(
        any(board.may_fight(s, p.player, s.board[there], birth=True) for _, there in enemies_next_to(s, p.player)),
        HANDY,
    ),
    "baby_swap": lambda s, p: USEFUL,
    "less_parasol": survival_card,
    "less_fur": survival_card,
    "cold_survival": survival_card,
    "heat_survival": survival_card,
    "loss_penalty": lambda s, p: useful_if(sum(n for o, n in losses(s).items() if o != p.player) > 0),
    "outbid_plus3": lambda s, p: HANDY if s.bids else USELESS,
    "missing_link": lambda s, p: useful_if(s.seats[p.player].mp < min(o.mp for o in s.seats.values()) + 3, HANDY),
    "mp_voucher_3": voucher,
    "fossil_2mp": lambda s, p: 2 * USEFUL,
    "card_embargo": lambda s, p: useful_if(
        sum(len(s.seats[o].hand) for o in others(s, p.player)) > 3 * len(s.seats[p.player].hand) + 3, 1.0
    ),
    "seize_initiative": lambda s, p: useful_if(s.phase == Phase.EVOLUTION and s.order[0] != p.player, HANDY),
    "recover_card": recover,
    "no_births": lambda s, p: useful_if(
        sum(births_wanted(s, o) for o in others(s, p.player)) > 2 * births_wanted(s, p.player) + 1, HANDY
    ),
}
