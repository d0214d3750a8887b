"""Games as text for people: a position (what is awaited, the players, the island) and the log, an event a line."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from rich.text import Text

from evo_ledger.cli import terminal
from evo_ledger.game.aggregate import Game
from evo_ledger.game.notation import format_result
from evo_ledger.game.sentences import event_sentence
from evo_ledger.rules import AnyRuleset
from evo_ledger.rules.contract import draw

# How far a wrapped event line's following lines are indented: under the text after the event's number.
CONTINUATION = 9


def headline(game: Game) -> str:
    outcome = game.rules.outcome(game.state)
    text = game.rules.view(game.state).headline
    return f"{text}: {format_result(outcome)}" if outcome is not None else text


def position(game: Game, shown: Callable[[str], str] = str) -> str:
    """The game after its latest event: headline, a line a player, what lies on the table, and the board (if the
    game has one) with each occupant's initial (of the player's name as it is `shown`)."""
    return "".join(text for text, _ in position_parts(game, shown))


def print_position(game: Game, out: TextIO, shown: Callable[[str], str] = str) -> None:
    """The position, coloured at a terminal: the headline in bold, what lies on the table in cyan."""
    console = terminal.console_for(out)
    for text, style in position_parts(game, shown):
        console.print(Text(text, style=style or ""), end="")
    out.flush()


def position_parts(game: Game, shown: Callable[[str], str] = str) -> list[tuple[str, str | None]]:
    view = game.rules.view(game.state)
    marks = occupant_marks(game.player_names, shown)
    parts: list[tuple[str, str | None]] = [(f"event {game.version} · {headline(game)}\n", terminal.HEADLINE)]
    parts += [(f"{line}\n", None) for line in view.players]
    parts += [(f"{line}\n", terminal.TABLE) for line in view.table]
    labels = {space: marks[owner] for space, owner in view.occupants.items()}
    board = draw(game.rules, game.kit, labels)
    if board:
        key = ", ".join(f"{mark} {name}" for name, mark in marks.items())
        parts.append((f"\noccupants: {key}\n{board}", None))
    return parts


def occupant_marks(players: Iterable[str], shown: Callable[[str], str] = str) -> dict[str, str]:
    """Each player's initial (of the name as it is `shown`: a seat's handle, not its label), or seat number when two
    share an initial."""
    names = list(players)
    initials = [name[0].lower() for name in (shown("\n".join(names)).split("\n") if names else [])]
    if len(set(initials)) == len(names):
        return dict(zip(names, initials, strict=True))
    return {name: str(seat) for seat, name in enumerate(names, start=1)}


def event_line(
    event: Any,
    rules: AnyRuleset,
    width: int | None = None,
    sentence: str | None = None,
    shown: Callable[[str], str] = str,
) -> str:
    """One event of a game's log (its `sentence`, the log's own by default), after its number, as it is `shown`
    (the personal data it quotes as it stands); wrapped at spaces to `width` when one is given."""
    arrow = "  → " if isinstance(event, Game.ConsequenceDerived) else ""
    line = shown(f"{event.originator_version:>5}  {arrow}{sentence or event_sentence(event, rules)}")
    if width is None:
        return line
    return textwrap.fill(line, width, subsequent_indent=" " * CONTINUATION, break_long_words=False)


def terminal_width(out: TextIO) -> int | None:
    """The width to wrap lines at: the terminal's, when `out` is one; None (no wrapping) otherwise."""
    return shutil.get_terminal_size().columns if out.isatty() else None
