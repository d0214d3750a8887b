"""Self-play for every ruleset that has bots (the `Bots` capability): whole games as game files, the same bytes
for the same seed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evo_ledger.game.notation import Header, format_game
from evo_ledger.rules import AnyRuleset, get_ruleset, rulesets
from evo_ledger.rules.base import OptionValue, Outcome, resolve_options
from evo_ledger.rules.contract import SelfPlay, self_play
from evo_ledger.rules.kits import load_kit

PLAYER_NAMES = ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal")


class NoSelfPlay(ValueError):
    """A ruleset without bots, a player count or a bot it does not have."""


def self_play_of(ruleset: AnyRuleset, players: int | None = None, bot: str | None = None) -> SelfPlay[Any, Any, Any]:
    """The ruleset's self-play, checked to have so many players and such a bot."""
    found = self_play(ruleset)
    if found is None:
        raise NoSelfPlay(f"ruleset {ruleset.name!r} has no bots to play a game")
    if players is not None and players not in found.player_counts:
        counts = found.player_counts
        raise NoSelfPlay(f"players: {ruleset.name} self-play has {counts.start} to {counts.stop - 1}, not {players}")
    if bot is not None and bot not in found.bots:
        raise NoSelfPlay(f"bot: {ruleset.name} has no bot {bot!r}; it has {', '.join(sorted(found.bots))}")
    return found


def player_names(players: int) -> tuple[str, ...]:
    return PLAYER_NAMES[:players]


@dataclass(frozen=True)
class SelfPlayGame:
    header: Header
    lines: tuple[str, ...]
    outcome: Outcome

    def text(self) -> str:
        return format_game(self.header, self.lines, self.outcome, comments=self.comments())

    def comments(self) -> list[str]:
        return ["A game played by evo-ledger's self-play bots; the standings follow as it goes."]


def play_game(
    players: int,
    seed: int,
    bot: str,
    ruleset: str,
    options: Mapping[str, OptionValue] | None = None,
    seat_bots: Sequence[str] = (),
    marked: Mapping[str, int] | None = None,
) -> SelfPlayGame:
    """A whole game of `players` seats played by seeded bots of one kind, as a game file; with `seat_bots`, a seat
    a bot, each seat named after its bot (`sensible`, `random`, `random_2`); `marked` gives, for an option naming
    seats, how many of the last seats it names (seats the rules run play their rules' own decisions)."""
    rules = get_ruleset(ruleset)
    bots = self_play_of(rules, players, bot)
    for name in seat_bots:
        self_play_of(rules, None, name)
    kit = load_kit(bots.default_kit(players))
    names = tuple(bot_seat_names(seat_bots)) if seat_bots else tuple(player_names(players))
    given = {**(options or {}), **marked_options(names, marked or {})}
    chosen = resolve_options(rules.options, given)
    header = Header(rules.name, rules.version, kit.name, kit.content_hash, names, given)
    lines: list[str] = [f"# seed {seed}, " + (", ".join(seat_bots) if seat_bots else f"{bot} bots")]
    state = None
    by_seat = dict(zip(names, seat_bots, strict=True)) if seat_bots else None
    for action, transition in bots.play(kit, names, seed, bot, chosen, by_seat):
        lines.append(rules.format_action(action))
        lines.extend(bots.comments(transition))
        state = transition.state
    outcome = rules.outcome(state)
    assert outcome is not None
    return SelfPlayGame(header, tuple(lines), outcome)


def marked_options(names: Sequence[str], marked: Mapping[str, int]) -> dict[str, OptionValue]:
    """Each option naming seats that names the last `count` of them."""
    for name, count in marked.items():
        if not 0 <= count <= len(names):
            raise ValueError(f"--{name} {count}: the game has {len(names)} seats")
    return {name: " ".join(names[len(names) - count :]) for name, count in marked.items() if count}


def bot_seat_names(bots: Sequence[str]) -> list[str]:
    """Seats named after their bots, a number after the second of a kind: `sensible`, `random`, `random_2`."""
    names, seen = [], Counter[str]()
    for bot in bots:
        seen[bot] += 1
        names.append(bot if seen[bot] == 1 else f"{bot}_{seen[bot]}")
    return names


def bot_names() -> list[str]:
    """Every bot any installed ruleset has."""
    return sorted({name for ruleset in rulesets().values() if (found := self_play(ruleset)) for name in found.bots})
