"""A game exported for its reader: as a game file, its actions and revisions a line each, an action hidden from the
reader a comment naming only its player (`game_file_for`); as a bundle, its stored events with their hashes, its
hidden actions and the hashes withheld from the reader left out (`bundle_for`); as its effective actions, for the
recording page of one who records it (`recorded_actions_for`). The recorder is given the game whole, as
`transfer` exports it and reads it back in."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from eventsourcing.persistence import Transcoder

from evo_ledger.app.readers.log import HIDDEN, Visibility, hidden_among, leave_out, visibility
from evo_ledger.app.readers.reader import Reader, check_records_game
from evo_ledger.app.readers.sight import Perspective
from evo_ledger.game.aggregate import Game
from evo_ledger.game.codec import pack
from evo_ledger.game.notation import Header, format_correction, format_game, format_hidden, format_note, format_undo
from evo_ledger.game.seal import unsealed_bytes

if TYPE_CHECKING:
    from evo_ledger.app.ledger import Ledger

BUNDLE_FORMAT = "evo-ledger-bundle"
BUNDLE_VERSION = 1
Content = TypeVar("Content", str, bytes)


@dataclass(frozen=True)
class Export(Generic[Content]):
    """A game exported for its reader: the game file's text or the bundle's bytes, and the events it leaves out
    (the hidden actions it shows only whose they are)."""

    content: Content
    left_out: list[int]


def game_file_for(reader: Perspective, ledger: Ledger, game: Game) -> Export[str]:
    """`game` (as it stands) as a game file for the reader: an action hidden from it is a comment naming only its
    player (`hidden_line`)."""
    seen = visibility(reader, ledger, game)
    return Export(game_file_text(ledger, game, seen.shown), seen.left_out)


def bundle_for(reader: Perspective, ledger: Ledger, game: Game) -> Export[bytes]:
    """`game` (as it stands) as a bundle for the reader: its stored events narrowed as `narrowed_rows` narrows
    them. A bundle that leaves hidden actions out names them, and is not imported until they are revealed."""
    seen = visibility(reader, ledger, game)
    return Export(bundle_bytes(ledger, game, seen), seen.left_out)


def recorded_actions_for(reader: Reader, game: Game) -> list[str]:
    """`game`'s effective actions in notation, hidden ones included, for the recording page to judge entries on
    the device when the server cannot be reached: given only to a reader whose token records the game (the
    recorder, a co-recorder, the admin), whatever it reads as; refused (RecordersOnly) to any other."""
    check_records_game(reader, "a game's setup and actions are given to those who record the game")
    return [notation for _, notation, _ in game.history]


def game_file_text(ledger: Ledger, game: Game, shown: Container[int] | None) -> str:
    """The game as a game file: its actions in the order recorded, and its undos, corrections, notes and whether
    its hidden facts are kept hidden at its end as revision lines, so that importing it gives the same events; an
    action hidden from a reader shown the hidden actions `shown` (None: all) is the line `hidden_line` gives it.
    The header names the game's kit and pins its hash; a bundle carries the kit's whole content."""
    header = Header(
        game.ruleset_name, game.ruleset_version, game.kit_name, game.kit_hash, tuple(game.player_names), game.options
    )
    events = ledger.queries.game_events(game.id, up_to=game.version)
    lines = [line for event in events if (line := hidden_line(event, shown) or line_of(event)) is not None]
    ids = ", ".join(f"{p['name']}={p['id']}" for p in game.players)
    outcome = game.rules.outcome(game.state)
    return format_game(header, lines, outcome, comments=[f"game {game.id}", f"players: {ids}"])


def line_of(event: Any) -> str | None:
    """The event's line in a game file, None for what the rules derive."""
    if isinstance(event, Game.ActionCorrected):
        return format_correction(event.notation, event.reason)
    if isinstance(event, Game.ActionRecorded):
        return str(event.notation)
    if isinstance(event, Game.ActionsUndone):
        return format_undo(len(event.versions), event.reason)
    if isinstance(event, Game.AnnotationAdded):
        return format_note(event.about, event.text)
    if isinstance(event, Game.EndRevealSet):
        return format_hidden(event.reveal_at_end)
    return None


def bundle_bytes(ledger: Ledger, game: Game, seen: Visibility) -> bytes:
    """The game's stored events up to its version (those the reader's sight `seen` was taken of: any stored since
    are left out), with their hashes, without their seals, narrowed for the reader as `narrowed_rows` narrows
    them: such a bundle names the hidden actions it leaves out."""
    events = ledger.queries.stored_events(game.id, up_to=game.version)
    rows: list[list[Any]] = [[event.topic, event.originator_version, unsealed_bytes(event.state)] for event in events]
    packed: dict[str, Any] = {"format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "game": str(game.id), "events": rows}
    left_out = narrowed_rows(rows, seen, ledger.store.mapper.transcoder)
    if left_out is not None:
        packed["left_out"] = left_out
    return pack(packed)


def hidden_line(event: Any, shown: Container[int] | None) -> str | None:
    """A game file's line for the event where it is an action hidden from a reader shown the hidden actions
    `shown` (None: all): a comment naming only its player; None for any other event."""
    if not hidden_among(shown, event):
        return None
    return f"# {HIDDEN}: an action of {event.visible_only_to}"


def narrowed_rows(rows: list[list[Any]], seen: Visibility, transcoder: Transcoder) -> list[int] | None:
    """A bundle's rows (topic, version, the state's bytes) narrowed in place for the reader (`seen`): its hidden
    actions show whose they are only, and the hashes from `seen.withheld_from` on are left out. The events left
    out, or None where the reader may be given every row as it is."""
    left_out, withheld_from = seen.hidden, seen.withheld_from
    if not left_out and withheld_from is None:
        return None
    for row in rows:
        _, version, state = row
        if version in left_out or (withheld_from is not None and version >= withheld_from):
            row[2] = transcoder.encode(leave_out(transcoder.decode(state), version, version in left_out, withheld_from))
    return [row[1] for row in rows if row[1] in left_out]
