"""The trait-card game "Evo" (rules document 003) as a ruleset: species as trait decks, four millennia of
generations, and the steps between them [TR-01 to TR-25]."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache, partial
from typing import Any

from evo_ledger.rules.base import (
    NextWords,
    OptionSpec,
    OptionValue,
    Outcome,
    RuleViolation,
    SetupError,
    Transition,
    Vocabulary,
    Warning,
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
)
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.structured import ActionForm
from evo_ledger.rules.traits import composing, flow, generation
from evo_ledger.rules.traits.actions import (
    PLAYER,
    Action,
    Activate,
    AddPopulation,
    ChooseSpecies,
    Cull,
    Deal,
    Draw,
    DrawLocation,
    Drop,
    EndGeneration,
    Forage,
    Hunt,
    HuntSpecies,
    Journey,
    Migrate,
    MovePopulation,
    Select,
    StartPlayer,
    TopUp,
    format_action,
    parse_action,
)
from evo_ledger.rules.traits.explain import explain
from evo_ledger.rules.traits.kit import Kit, parse_kit
from evo_ledger.rules.traits.layout import layout
from evo_ledger.rules.traits.reading import TraitsReading
from evo_ledger.rules.traits.selfplay import TraitsSelfPlay
from evo_ledger.rules.traits.state import Phase, State, state_from_data, state_to_data
from evo_ledger.rules.traits.view import view
from evo_ledger.rules.traits.words import describe

FACTS: dict[type, str] = {
    ChooseSpecies: "SpeciesChosen",
    DrawLocation: "LocationDrawn",
    Deal: "CardDealt",
    Draw: "TraitsDrawn",
    StartPlayer: "StartPlayerChosen",
    Activate: "PopulationActivated",
    Hunt: "FaunaHunted",
    Forage: "FloraForaged",
    Migrate: "MigrationChosen",
    Journey: "JourneyMade",
    HuntSpecies: "SpeciesHunted",
    EndGeneration: "GenerationEnded",
    TopUp: "GenomeToppedUp",
    Cull: "GenomeCulled",
    Drop: "AdaptationDropped",
    Select: "SpeciesSelected",
    AddPopulation: "PopulationAdded",
    MovePopulation: "PopulationMoved",
}
CONSEQUENCES = {
    "millennium_begun": "MillenniumBegun",
    "hunted": "HuntResolved",
    "foraged": "ForageResolved",
    "migrated": "MigrationResolved",
    "generation_ended": "GenerationClosed",
    "extinct": "CardExtinct",
    "thriving": "CompetitorsThrived",
    "scored": "MillenniumScored",
    "genome_target": "GenomeTargetMet",
    "adaptation_dropped": "AdaptationSelectedOut",
    "deck_rebuilt": "DeckRebuilt",
    "game_ended": "GameEnded",
}
VOCABULARY = Vocabulary("evo-ledger:traits", tuple(FACTS.values()), CONSEQUENCES)
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "finite_trait_supply", False, "TR-22", "the trait piles hold 20 cards each: an empty pile gives nothing"
    ),
    OptionSpec("token_cap", False, "TR-22", "each species has its 24 survival tokens and no more"),
)
RECORDS = (
    ChooseSpecies,
    DrawLocation,
    Deal,
    Draw,
    StartPlayer,
    TopUp,
    Cull,
    Drop,
    Select,
    AddPopulation,
    MovePopulation,
)
HIDDEN = (Draw, Migrate)
ACTION_FORM = ActionForm(Action, parse_action, format_action)
READING = TraitsReading()
make_transition = partial(tuple.__new__, Transition)  # without Transition(...)'s argument handling: every action's cost
GenerationCheck = Callable[[State, Any], list[Warning] | None]
CHECKS: dict[type, GenerationCheck] = {
    Activate: generation.check_activate,
    Hunt: generation.check_hunt,
    Forage: generation.check_forage,
    Migrate: generation.check_migrate,
    Journey: generation.check_journey,
    HuntSpecies: generation.check_hunt_species,
    EndGeneration: generation.check_end,
}
APPLIES: dict[type, Callable[[State, Any, Effects], None]] = {
    Activate: generation.apply_activate,
    Hunt: generation.apply_hunt,
    Forage: generation.apply_forage,
    Migrate: generation.apply_migrate,
    Journey: generation.apply_journey,
}


@lru_cache(maxsize=4096)
def parse_cached(text: str) -> Action:
    return parse_action(text)


def hide(entry: dict[str, Any]) -> None:
    for key in ("hand", "lost", "deck"):
        entry[key] = sum(entry[key].values())
    entry["journey"] = len(entry["journey"])


def check_setup(kit: Kit, players: Sequence[str]) -> None:
    if not kit.min_players <= len(players) <= kit.max_players:
        raise SetupError(
            f"[TR-03] the trait-card Evo is for {kit.min_players} to {kit.max_players} players, not {len(players)}"
        )
    for name in players:
        if not PLAYER.fullmatch(name) or name in kit.species or name in ("deal", "start", "drop"):
            raise SetupError(f"{name!r} cannot be a player's name: use lower-case letters, digits and _, not a species")
    if len(set(players)) != len(players):
        raise SetupError("each player must have a different name")


def check(state: State, action: Action) -> list[Warning] | None:
    if state.phase == Phase.OVER:
        raise RuleViolation("TR-21", "the fourth millennium is over and so is the game: no action follows")
    try:
        return CHECKS[type(action)](state, action)
    except RuleViolation:
        refuse_stranger(state, action)
        raise


def refuse_stranger(state: State, action: Action) -> None:
    """A refusal names an unknown player as such rather than by the rule it broke."""
    player = getattr(action, "player", None)
    if player is not None and player not in state.players:
        raise RuleViolation(None, f"no player named {player!r} sits at this table ({', '.join(state.players)})")


def apply_end(state: State, action: EndGeneration, effects: Effects) -> None:
    generation.apply_end(state, action, effects)
    if not state.needs:
        flow.pass_turn(state, effects)


def check_record(state: State, action: Action) -> None:
    flow.check_record(state, action)


CHECKS.update(dict.fromkeys(RECORDS, check_record))
APPLIES.update(dict.fromkeys(RECORDS, flow.apply_record))
APPLIES[EndGeneration] = apply_end


def legal_actions(state: State) -> Iterator[Action]:
    if state.phase == Phase.OVER:
        return
    if state.needs:
        yield from listed_records(state)
        return
    player = state.current
    species = state.species_of(player)
    if state.active is None:
        standing = dict.fromkeys(p.location for p in species.populations if p.standing)
        yield from (Activate(player, place) for place in standing)
    elif species.journey:
        here = generation.active_location(state).id
        for card in dict.fromkeys(species.journey):
            yield from (Journey(player, card, place) for place in state.locations if place != here)
    else:
        yield from generation.legal_food(state, player)
        yield EndGeneration(player)


def listed_records(state: State) -> Iterator[Action]:
    need = state.needs[0]
    kit = state.kit
    taken = set(state.plays.values())
    match need.kind:
        case "species":
            yield from (ChooseSpecies(need.who, s) for s in kit.species if s not in taken)
        case "location":
            drawn = set(state.drawn_locations.values())
            yield from (DrawLocation(need.who, place) for place in kit.locations if place not in drawn)
        case "fauna" | "flora" | "adaptation":
            yield from (Deal(need.kind, need.who, card) for card in flow.deck_of(state, need.kind))
        case "start":
            yield from (StartPlayer(player) for player in need.candidates)
        case "drop":
            yield from (Drop(need.who, adaptation) for adaptation in need.candidates)
        case "select":
            free = [s for s in state.species if s not in state.selected]
            yield from (Select(player, s) for player in need.candidates for s in free)
        case "add":
            places = dict.fromkeys(p.location for p in state.species_of(need.who).populations)
            yield from (AddPopulation(need.who, place) for place in places)
        case "move":
            yield MovePopulation(need.who)
            sources = dict.fromkeys(p.location for p in state.species_of(need.who).populations)
            for source in sources:
                yield from (MovePopulation(need.who, source, t) for t in state.locations if t != source)


class TraitsRuleset(
    Ruleset[State, Action, Kit],
    HiddenInformation[State, Action],
    Chance[Action],
    Board[State],
    Explanations,
    ReadModels,
    Bots,
    FastReplay[State, Action],
    Composing[State],
):
    name = "traits"
    version = "1"
    options = OPTIONS
    vocabulary = VOCABULARY
    parse_kit = staticmethod(parse_kit)
    legal_actions = staticmethod(legal_actions)
    """What can be listed: the records awaited that are choices or faces (not a hand's draws, nor the supply's
    random cards), the active populations, the hunts, forages and journeys the hand pays for, and the end."""
    standings = staticmethod(flow.standings)
    parse_action = staticmethod(parse_cached)
    format_action = staticmethod(format_action)
    action_from_data = staticmethod(ACTION_FORM.read)
    action_data = staticmethod(ACTION_FORM.write)
    snapshot_state = staticmethod(state_to_data)
    restore_state = staticmethod(state_from_data)
    view = staticmethod(view)
    describe = staticmethod(describe)
    explain = staticmethod(explain)
    layout = staticmethod(layout)

    def reading(self) -> Reading:
        return READING

    def self_play(self) -> SelfPlay[State, Action, Kit]:
        return TraitsSelfPlay(self)

    def setup(self, kit: Kit, players: Sequence[str], options: Mapping[str, OptionValue]) -> State:
        check_setup(kit, players)
        return State(
            kit=kit,
            options=resolve_options(self.options, options),
            players=tuple(players),
            stage="species",
            points=dict.fromkeys(players, 0),
            needs=flow.setup_needs(tuple(players)),
        )

    def legal(self, state: State, action: Action) -> None:
        check(state, action)

    def apply(self, state: State, action: Action) -> Transition[State]:
        if state.phase == Phase.OVER:
            raise RuleViolation("TR-21", "the fourth millennium is over and so is the game: no action follows")
        try:
            warnings = CHECKS[type(action)](state, action)
        except RuleViolation:
            refuse_stranger(state, action)
            raise
        after = state.copy()
        effects = Effects()
        APPLIES[type(action)](after, action, effects)
        return make_transition((after, tuple(effects.consequences), tuple(warnings) if warnings else ()))

    def replay(self, state: State, action: Action) -> State:
        after = state.copy()
        APPLIES[type(action)](after, action, Effects())
        return after

    def outcome(self, state: State) -> Outcome | None:
        return flow.standings(state) if state.phase == Phase.OVER else None

    def next_words(self, state: State, words: Sequence[str]) -> NextWords:
        """Every action the rules allow, a word at a time: the listed ones, and the cards drawn, topped up, culled,
        dealt with a face, migrated, hunted and foraged with (in any order, adaptations named) that the list leaves
        out; for the recorder, who sees every hidden fact [TR-24]."""
        return composing.next_words(state, words, legal_actions)

    def fact_of(self, action: Action) -> str:
        return FACTS[type(action)]

    def is_chance(self, action: Action) -> bool:
        """The boards, cards and picks chance decides [TR-23]."""
        return isinstance(action, DrawLocation | Deal | Draw | StartPlayer | Journey | TopUp | Cull | Drop)

    def visible_only_to(self, action: Action) -> str | None:
        """Trait cards drawn, and the two cards chosen for a journey, are their player's alone [TR-24]."""
        return action.player if isinstance(action, HIDDEN) else None

    def reveals(self, hidden: Action, later: Action) -> bool:
        """No later action shows a hand's draws to the table: only the game's end does [TR-24]."""
        return False

    def rests_on(self, state: State, action: Action) -> str | None:
        """A hunt, forage, migration or journey, listed as legal or refused, shows its player's hand [TR-24]."""
        return action.player if isinstance(action, Hunt | Forage | Migrate | Journey) else None

    def public_state(self, state: State) -> dict[str, Any]:
        """Hands, Lost Genomes, the cards of a journey and the face-down decks as counts [TR-24]."""
        data = state_to_data(state)
        for entry in data["species"].values():
            hide(entry)
        return data

    def seat_state(self, state: State, seat: str) -> dict[str, Any]:
        """The player's own species shown whole: its hand, its Lost Genome, its journey and its deck."""
        data = state_to_data(state)
        own = state.plays.get(seat)
        for name, entry in data["species"].items():
            if name != own:
                hide(entry)
        return data
