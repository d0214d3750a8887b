"""The initiative draw before round 1, the climate phase and the mutation draws [E2-01, E2-03 to E2-06]."""

from __future__ import annotations

from collections.abc import Iterator

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo2.actions import DrawGene, Peek, RevealClimate, SetOrder
from evo_ledger.rules.evo2.state import Phase, State

METEORITE = "meteorite"
TOKEN_STEPS = {"cw": 1, "cw2": 2, "zero": 0, "acw": -1}


def check_order(state: State, action: SetOrder) -> None:
    if sorted(action.players) != sorted(state.players) or len(set(action.players)) != len(action.players):
        raise RuleViolation("E2-01", f"the initiative order must name each player once: {', '.join(state.players)}")


def apply_order(state: State, action: SetOrder, effects: Effects) -> None:
    state.order = action.players
    state.phase = Phase.CLIMATE
    effects.add("initiative_set", round=0, order=list(action.players))


def tokens_in_play(state: State) -> int:
    climate = state.kit.climate
    return sum(climate.tokens.values()) - climate.removed_unseen


def meteorite_rounds(state: State) -> range:
    """The rounds in which the meteorite can come up: it lies among the last tokens of the pile [E2-04]."""
    last = tokens_in_play(state)
    return range(last - state.kit.climate.meteorite_among_last + 1, last + 1)


def check_climate(state: State, action: RevealClimate) -> None:
    if state.peeked is not None and action.token != state.peeked:
        raise RuleViolation(
            "E2-16",
            f"sixth sense saw {state.peeked!r} as the next climate token, not {action.token!r}",
            public="the climate token revealed is the one sixth sense saw",
        )
    check_token(state, action.token, state.round)


def check_token(state: State, token: str, round_number: int) -> None:
    """Whether `token` can come up in `round_number`, by the tokens' composition and the meteorite's place [E2-04]."""
    held = state.kit.climate.tokens.get(token, 0)
    revealed = state.revealed.get(token, 0)
    if revealed >= held:
        raise RuleViolation("E2-04", f"the climate tokens hold {held} {token!r}, and {revealed} were revealed already")
    window = meteorite_rounds(state)
    if token == METEORITE and round_number < window.start:
        raise RuleViolation(
            "E2-04",
            f"the meteorite lies among the last {state.kit.climate.meteorite_among_last} tokens: it cannot come up "
            f"before round {window.start} (this is round {round_number})",
        )
    if token != METEORITE and round_number >= window.stop - 1:
        raise RuleViolation(
            "E2-04",
            f"round {round_number} reveals the last of the {tokens_in_play(state)} tokens in play, "
            "which must be the meteorite",
        )


def next_reveal_round(state: State) -> int:
    before_climate = state.phase in (Phase.ORDER, Phase.CLIMATE)
    return state.round if before_climate else state.round + 1


def check_peek(state: State, action: Peek) -> None:
    """Sixth sense sees the next climate token; it must be one that can come up then [E2-16, E2-04]."""
    if not state.players[action.player].has("sixth_sense"):
        raise RuleViolation("E2-16", f"{action.player} does not have sixth sense")
    if state.peeked is not None and state.peeked != action.token:
        raise RuleViolation(
            "E2-16",
            f"the next climate token was already seen: {state.peeked!r}",
            public="the next climate token was already seen, as another",
        )
    check_token(state, action.token, next_reveal_round(state))


def apply_peek(state: State, action: Peek) -> None:
    state.peeked = action.token


def apply_climate(state: State, action: RevealClimate, effects: Effects) -> None:
    state.revealed = {**state.revealed, action.token: state.revealed.get(action.token, 0) + 1}
    state.peeked = None
    if action.token == METEORITE:
        return
    state.climate_position = (state.climate_position + TOKEN_STEPS[action.token]) % len(state.kit.climate.positions)
    zones = state.kit.climate.positions[state.climate_position]
    effects.add(
        "climate_changed", round=state.round, token=action.token, position=state.climate_position, zones=dict(zones)
    )
    state.phase = Phase.MUTATIONS
    state.lab = ()
    state.set_aside = ()


def lab_size(state: State) -> int:
    """Gene columns of the lab: one fewer than the players; column 1 holds the event card [E2-06]."""
    return len(state.players) - 1


def kit_count(state: State, gene: str) -> int:
    return state.kit.genes.normal.get(gene, 1 if gene in state.kit.genes.unique else 0)


def left_in_bag(state: State, gene: str) -> int:
    """What the kit says the bag still holds of `gene`, besides the tokens out on the lab or set aside."""
    out = state.genes_taken.get(gene, 0) + state.lab.count(gene) + state.set_aside.count(gene)
    return kit_count(state, gene) - out


def uniques_seen(state: State) -> set[str]:
    """The unique genes known to be among the 8 in the bag: won, on the lab, or set aside."""
    taken = {gene for gene, count in state.genes_taken.items() if count > 0}
    out = taken | {gene for gene in state.lab if gene} | set(state.set_aside)
    return out & set(state.kit.genes.unique)


def check_draw(state: State, action: DrawGene) -> None:
    gene = action.gene
    if gene is not None and gene not in state.kit.genes.normal and gene not in state.kit.genes.unique:
        known = ", ".join([*state.kit.genes.normal, *state.kit.genes.unique])
        raise RuleViolation("E2-03", f"the kit has no gene {gene!r}; its genes are {known}")


def draw_warnings(state: State, gene: str) -> Iterator[str]:
    """Draws the kit makes impossible are accepted, and said [E2-03]."""
    if left_in_bag(state, gene) <= 0:
        yield f"the kit's bag holds no more {gene!r} tokens, yet one was drawn"
    if gene in state.kit.genes.unique:
        unique, seen = state.kit.genes.unique_in_bag, uniques_seen(state)
        if gene not in seen and len(seen) >= unique:
            yield f"{gene!r} would be unique gene number {len(seen) + 1}, but the bag holds only {unique}"


def drawable_genes(state: State) -> list[str]:
    """Genes the kit says are still in the bag and not yet on the lab."""
    seen = uniques_seen(state)
    unique_room = len(seen) < state.kit.genes.unique_in_bag
    normal = [g for g in state.kit.genes.normal if g not in state.lab and left_in_bag(state, g) > 0]
    unique = [g for g in state.kit.genes.unique if g not in state.lab and left_in_bag(state, g) > 0]
    return normal + [g for g in unique if unique_room or g in seen]


def apply_draw(state: State, action: DrawGene, effects: Effects) -> bool:
    """Returns True once the lab is full and the auction can start."""
    gene = action.gene
    if gene is None:
        left = drawable_genes(state)
        if left:
            effects.warn(
                "E2-03", f"the bag was recorded as unable to fill the lab, but the kit says it holds {', '.join(left)}"
            )
        empty = lab_size(state) - len(state.lab)
        state.lab = (*state.lab, *([None] * empty))
        effects.add("lab_left_unfilled", round=state.round, empty_columns=empty)
    else:
        for message in draw_warnings(state, gene):
            effects.warn("E2-03", message)
        if gene in state.lab:
            state.set_aside = (*state.set_aside, gene)
            effects.add("gene_set_aside", round=state.round, gene=gene)
        else:
            state.lab = (*state.lab, gene)
            effects.add("gene_placed", round=state.round, gene=gene, column=len(state.lab) + 1)
    if len(state.lab) < lab_size(state):
        return False
    if state.set_aside:
        effects.add("genes_returned_to_bag", round=state.round, genes=list(state.set_aside))
        state.set_aside = ()
    return True
