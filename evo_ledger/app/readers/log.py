"""A game's log as a reader may see it: which hidden actions it is shown, which hashes it may not have, and each
event as it is given to it (its fields, its sentence)."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from evo_ledger.app.readers.sight import Perspective, reads_hidden
from evo_ledger.game.aggregate import Game
from evo_ledger.game.sentences import event_sentence
from evo_ledger.rules import AnyRuleset

if TYPE_CHECKING:
    from evo_ledger.app.ledger import Ledger

# What a reader who may not see a hidden action is shown in its place, after whose action it is.
HIDDEN = "hidden until revealed"
# What an event carries of its place in the log rather than of the game: left out of the fields a reader is given.
PLACE_IN_LOG = ("originator_id", "originator_version", "timestamp")


def hidden_in_place(player: str) -> str:
    return f"{player}: {HIDDEN}"


@dataclass(frozen=True)
class Visibility:
    """What of a game's log a reader may see. `shown`: the hidden actions it sees (None: all of them); `hidden`:
    the others, by event, with their player and notation; `withheld_from`: the first event whose hash it may not
    have (an action hidden from it that the chain covers directly, stored before hidden actions carried a salted
    commitment: every later hash could be used to try the few actions it could be), and those hashes."""

    shown: Container[int] | None
    hidden: dict[int, tuple[str, str]]
    withheld_from: int | None = None
    withheld_hashes: frozenset[str] = frozenset()

    @property
    def left_out(self) -> list[int]:
        """The events that are hidden actions to the reader, in order: an answer that leaves them out names them."""
        return sorted(self.hidden)


def visibility(reader: Perspective, ledger: Ledger, game: Game) -> Visibility:
    if reads_hidden(reader, game):
        return Visibility(None, {})
    shown = set(game.revealed_versions())
    hidden: dict[int, tuple[str, str]] = {}
    withheld_from, withheld = None, set()
    for event in ledger.queries.game_events(game.id, up_to=game.version):
        version, owner = event.originator_version, getattr(event, "visible_only_to", None)
        if owner is not None and version not in shown:
            if owner == reader.seat:
                shown.add(version)
            else:
                hidden[version] = (owner, event.notation)
                if withheld_from is None and getattr(event, "action_commitment", None) is None:
                    withheld_from = version
        if withheld_from is not None:
            withheld.add(event.hash)
    return Visibility(shown, hidden, withheld_from, frozenset(withheld))


def withheld_from(reader: Perspective, ledger: Ledger, game: Game) -> int | None:
    """The first event whose hash the reader may not have (`Visibility.withheld_from`), found among the hidden
    actions the game keeps that the chain covers directly (`Game.uncommitted_hidden`, none for a game stored since
    hidden actions carry a commitment): the log is read only for a game made from a snapshot that does not keep
    them."""
    if reads_hidden(reader, game):
        return None
    uncommitted = game.uncommitted_hidden
    if uncommitted is None:
        return visibility(reader, ledger, game).withheld_from
    if not uncommitted:
        return None
    shown = game.revealed_versions()
    return next((version for version, owner in uncommitted if owner != reader.seat and version not in shown), None)


def head_hash_for(reader: Perspective, ledger: Ledger, game: Game) -> str | None:
    """The game's head hash, left out where the reader may not have it (`withheld_from`): a hidden action could be
    tried from it."""
    return game.head_hash if withheld_from(reader, ledger, game) is None else None


def hidden_among(shown: Container[int] | None, event: Any) -> bool:
    """Whether the event is an action hidden from a reader shown the hidden actions `shown` (None: all)."""
    owner = getattr(event, "visible_only_to", None)
    return owner is not None and shown is not None and event.originator_version not in shown


def hidden_from(seen: Visibility, event: Any) -> bool:
    """Whether the event is an action hidden from the reader."""
    return hidden_among(seen.shown, event)


def sentence_for(seen: Visibility, event: Any, rules: AnyRuleset) -> str:
    """What the log says of the event to the reader: a hidden action shows only whose it is."""
    if hidden_from(seen, event):
        return f"an action of {event.visible_only_to}, hidden from this reader"
    return event_sentence(event, rules)


def leave_out(fields: dict[str, Any], version: int, hidden: bool, withheld_from: int | None) -> dict[str, Any]:
    """An event's fields as a reader who may not see everything gets them: a `hidden` action shows only whose it
    is (its salt left out too), and from event `withheld_from` on the hashes are left out."""
    if hidden:
        fields.update(notation=hidden_in_place(fields["visible_only_to"]), action_salt=None)
    if withheld_from is not None and version >= withheld_from:
        fields["hash"] = None
        if version > withheld_from:
            fields["prev_hash"] = None
    return fields


@dataclass(frozen=True)
class ShownEvent:
    """An event as its reader is given it: the stored event (for its number, kind and time), its fields as the
    reader gets them (`leave_out`), the sentence the log gives it, and whether it is an action hidden from it."""

    event: Any
    fields: dict[str, Any]
    text: str
    hidden: bool


def shown_event(seen: Visibility, event: Any, rules: AnyRuleset) -> ShownEvent:
    fields = {key: value for key, value in vars(event).items() if key not in PLACE_IN_LOG}
    hidden = hidden_from(seen, event)
    fields = leave_out(fields, event.originator_version, hidden, seen.withheld_from)
    return ShownEvent(event, fields, sentence_for(seen, event, rules), hidden)


def events_for(reader: Perspective, ledger: Ledger, game: Game, after: int, limit: int) -> list[ShownEvent]:
    """The events of `game` (as the reader may see it: `latest_for`) after `after`, at most `limit`, each as it is
    given to the reader."""
    seen = visibility(reader, ledger, game)
    stored = ledger.queries.game_events(game.id, up_to=game.version, after=after, limit=limit)
    return [shown_event(seen, event, game.rules) for event in stored]
