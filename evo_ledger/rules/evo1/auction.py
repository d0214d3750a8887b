"""Phase 6's evolution: the genes drawn into rows [E1-15], the bids [E1-16, E1-17], passes [E1-18] and the
payments [E1-19]."""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import modifiers
from evo_ledger.rules.evo1.actions import Bid, DrawGene, Pass, row_of
from evo_ledger.rules.evo1.kit import CARD_GENE
from evo_ledger.rules.evo1.state import State

MP_VOUCHER = "mp_voucher_3"
VOUCHER_MP = 3


def bag_left(state: State, gene: str | None = None) -> int:
    """How many genes the bag still holds: of `gene`, or of all."""
    if gene is not None:
        return state.kit.genes.get(gene, 0) - state.drawn.get(gene, 0)
    return sum(state.kit.genes.values()) - sum(state.drawn.values())


def open_auction(state: State, effects: Effects) -> bool:
    """Set out the rows to be drawn: one a player, one fewer under `experienced`, all that is left of a short bag,
    whose missing rows each open a pass [E1-15, E1-18, E1-21]. False when the bag is empty: no auction."""
    players = len(state.order)
    rows = min(players - 1 if state.options["experienced"] else players, bag_left(state))
    if rows == 0:
        effects.add("auction_skipped", turn=state.turn, reason="the gene bag is empty")
        return False
    state.rows, state.rows_due, state.bids = (), rows, {}
    state.to_bid, state.outbid = state.order, None
    state.passes_open, state.passed = players - rows, ()
    if state.vouchers:
        state.vouchers = {}
    return True


def draw_one_fewer(state: State) -> None:
    """`missing_link`: one gene fewer than there are players, and so one pass open [E1-18, E1-21]."""
    players = len(state.order)
    state.rows_due = min(players - 1, bag_left(state))
    state.passes_open = players - state.rows_due


def check_draw(state: State, action: DrawGene) -> None:
    if len(state.rows) >= state.rows_due:
        raise RuleViolation("E1-15", f"the {state.rows_due} rows of this auction are drawn: bidding goes on")
    if action.gene not in state.kit.genes:
        raise RuleViolation(None, f"no gene {action.gene!r}; the bag holds {', '.join(state.kit.genes)}")
    if bag_left(state, action.gene) < 1:
        drawn = state.drawn.get(action.gene, 0)
        raise RuleViolation("E1-03", f"the bag held {drawn} {action.gene} genes and all have been drawn")


def apply_draw(state: State, action: DrawGene) -> None:
    state.rows = (*state.rows, action.gene)
    state.drawn = {**state.drawn, action.gene: state.drawn.get(action.gene, 0) + 1}


def bidder(state: State) -> str | None:
    """The seat that bids now: the one just outbid, else the next in initiative order still to bid [E1-16]."""
    if len(state.rows) < state.rows_due:
        return None
    return state.outbid or (state.to_bid[0] if state.to_bid else None)


def check_bidder(state: State, player: str, doing: str) -> None:
    if len(state.rows) < state.rows_due:
        raise RuleViolation("E1-15", f"{len(state.rows)} of the {state.rows_due} genes are drawn: bids come after")
    current = bidder(state)
    if current != player:
        reason = "was just outbid and bids again" if current == state.outbid else "bids next"
        raise RuleViolation("E1-16", f"{current} {reason}, not {player}, who cannot {doing} now")


def target_row(state: State, target: str) -> int:
    row = row_of(target)
    if row is not None:
        if row > len(state.rows):
            raise RuleViolation("E1-16", f"this auction has rows 1 to {len(state.rows)}, not {row}")
        return row
    rows = [index for index, gene in enumerate(state.rows, start=1) if gene == target]
    if not rows:
        raise RuleViolation("E1-16", f"no row holds {target}; the rows hold {', '.join(state.rows)}")
    if len(rows) > 1:
        raise RuleViolation("E1-16", f"rows {' and '.join(map(str, rows))} both hold {target}: name one as rowN")
    return rows[0]


def price(state: State, player: str, amount: int) -> int:
    """What a winning bid costs: 1 less a mutant held before this auction, never below 0 [E1-19]."""
    return max(0, amount - state.gene(player, "mutant"))


def payment(state: State, player: str, amount: int) -> int:
    """The price, 3 less for each MP voucher the seat played in this auction, never below 0 [E1-19]."""
    return max(0, price(state, player, amount) - VOUCHER_MP * state.vouchers.get(player, 0))


def voucher_cover(state: State, player: str) -> int:
    """The MP the seat's vouchers cover: those it played in this auction and those it holds and may play [E1-17]."""
    seat = state.seats[player]
    held = 0
    if state.cards and state.turn > 2 and not state.embargo and MP_VOUCHER not in state.fresh:
        held = seat.hand.count(MP_VOUCHER)
    return VOUCHER_MP * (held + state.vouchers.get(player, 0))


def lowest_bid(state: State, row: int) -> int:
    standing = state.bids.get(row)
    return 0 if standing is None else standing[1] + modifiers.outbid_step(state, standing[0])


def check_bid(state: State, action: Bid) -> None:
    check_bidder(state, action.player, "bid")
    row = target_row(state, action.target)
    standing = state.bids.get(row)
    if standing is not None and action.amount < lowest_bid(state, row):
        more = "more" if lowest_bid(state, row) == standing[1] + 1 else f"{lowest_bid(state, row)} or more"
        why = f" ({standing[0]} played outbid_plus3)" if more != "more" else ""
        raise RuleViolation(
            "E1-16",
            f"{standing[0]} holds row {row} ({state.rows[row - 1]}) at {standing[1]}: outbid it with {more}{why}",
        )
    cost, mp = price(state, action.player, action.amount), state.seats[action.player].mp
    if cost > mp and cost > mp + voucher_cover(state, action.player):
        covered = voucher_cover(state, action.player)
        vouchers = f" and vouchers for {covered}" if covered else ""
        raise RuleViolation(
            "E1-17",
            f"a bid of {action.amount} would cost {action.player} {cost} MP, and {action.player} has {mp}{vouchers}",
        )


def apply_bid(state: State, action: Bid, effects: Effects) -> bool:
    """Place the bid, the outbid seat to bid again at once; True when every seat holds its row."""
    row = row_of(action.target) or target_row(state, action.target)
    displaced = state.bids.get(row)
    state.bids = {**state.bids, row: (action.player, action.amount)}
    if state.outbid == action.player:
        state.outbid = None
    else:
        state.to_bid = state.to_bid[1:]
    if displaced is not None:
        state.outbid, state.lost_row = displaced[0], row
        effects.add(
            "bid_outbid",
            turn=state.turn,
            row=row,
            gene=state.rows[row - 1],
            player=displaced[0],
            amount=displaced[1],
            by=action.player,
            bid=action.amount,
        )
    return auction_over(state)


def check_pass(state: State, action: Pass) -> None:
    check_bidder(state, action.player, "pass")
    if state.passes_open < 1:
        raise RuleViolation(
            "E1-18",
            "every seat must bid: a pass is open only under 'experienced', after Missing Link, or with a short bag",
        )


def apply_pass(state: State, action: Pass) -> bool:
    state.passes_open -= 1
    state.passed = (*state.passed, action.player)
    if state.outbid == action.player:
        state.outbid = None
    else:
        state.to_bid = state.to_bid[1:]
    return auction_over(state)


def auction_over(state: State) -> bool:
    return not state.to_bid and state.outbid is None


def uncovered(state: State) -> tuple[str, ...]:
    """The winners whose payment is more than their MP: each must play vouchers first [E1-19]."""
    return tuple(seat for seat, amount in state.bids.values() if payment(state, seat, amount) > state.seats[seat].mp)


def settle(state: State, effects: Effects) -> bool:
    """Each winner pays, mutants bought in this auction not yet counting, vouchers played taking 3 each; a card
    gene owes its winner a card and leaves the game [E1-19]. False while a payment waits for its vouchers."""
    state.paying = uncovered(state)
    if state.paying:
        return False
    paid = {row: payment(state, seat, amount) for row, (seat, amount) in state.bids.items()}
    rows = []
    for row, (seat, amount) in sorted(state.bids.items()):
        gene = state.rows[row - 1]
        own = state.own_seat(seat)
        own.mp -= paid[row]
        if gene == CARD_GENE:
            if seat not in state.autosaurs:  # an Autosaur's card gene leaves the game without a card [AS-17]
                state.cards_due = (*state.cards_due, seat)
        else:
            own.genes = {**own.genes, gene: own.genes.get(gene, 0) + 1}
        vouchers = state.vouchers.get(seat, 0)
        rows.append(
            {"row": row, "gene": gene, "player": seat, "bid": amount, "paid": paid[row]}
            | ({"vouchers": vouchers} if vouchers else {})
        )
    effects.add("auction_settled", turn=state.turn, rows=rows, passed=list(state.passed))
    state.rows, state.rows_due, state.bids, state.passed = (), 0, {}, ()
    if state.vouchers:
        state.vouchers = {}
    return True


def legal_auction_actions(state: State) -> Iterator[DrawGene | Bid | Pass]:
    if len(state.rows) < state.rows_due:
        yield from (DrawGene(gene) for gene in state.kit.genes if bag_left(state, gene) > 0)
        return
    player = bidder(state)
    if player is None:
        return
    top = state.seats[player].mp + state.gene(player, "mutant") + voucher_cover(state, player)
    for row in range(1, len(state.rows) + 1):
        yield from (Bid(player, amount, f"row{row}") for amount in range(lowest_bid(state, row), top + 1))
    if state.passes_open > 0:
        yield Pass(player)
