"""Every answer made for its reader: the recorder (who sees every hidden fact), a seat (who sees its own), or the
public; once a game is over, every reader sees every hidden fact, unless the recorder keeps them hidden at its
end. The rules mark what is hidden: an action only its player sees until it is revealed (`visible_only_to`,
`reveals`), an action whose legality rests on a player's hidden facts (`rests_on`), and a refusal that rests on
them (`RuleViolation.public`). This module turns what the ledger answers into what a reader may see: the log's
hidden actions and hashes (`visibility`, `withheld_from`; readers who see alike share a `Sight`), the legal
actions (`legal_for`) and the words that may come next in one (`choices_for`, `forced_choices_for`), refusals
(`refusal_for`), and branches (`branch_for`); and how much of a game broadcast with a delay a reader without a
token is shown, and from when (`broadcast_horizon`, `broadcast_starts`). The API and the command line both answer
through it."""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar
from uuid import UUID

from evo_ledger.app.audit import CanonicalReport
from evo_ledger.app.disputes import WhatIfReport
from evo_ledger.app.ledger import Ledger
from evo_ledger.game.aggregate import Game
from evo_ledger.game.sentences import event_sentence
from evo_ledger.rules import AnyRuleset
from evo_ledger.rules.base import NextWords, RuleViolation
from evo_ledger.rules.contract import (
    ALL_SEATS,
    forced_next_words,
    hidden_information,
    layout,
    listed_next_words,
    next_words,
)
from evo_ledger.rules.text import NotationError

Report = TypeVar("Report", bound=CanonicalReport)


class Perspective(Protocol):
    """Who reads: `sees_all` for the recorder (and the admin), `seat` for a player's own hidden facts."""

    @property
    def sees_all(self) -> bool: ...

    @property
    def seat(self) -> str | None: ...


@dataclass(frozen=True)
class Seen:
    """A reader as the command line names one: the recorder, a seat, or the public."""

    sees_all: bool = False
    seat: str | None = None


RECORDER = Seen(sees_all=True)
PUBLIC = Seen()


def reader_named(name: str | None, players: Container[str]) -> Seen:
    """`--as SEAT` (or `public`); none given: the recorder."""
    if name is None:
        return RECORDER
    if name == "public":
        return PUBLIC
    if name not in players:
        raise ValueError(f"--as {name!r}: not a seat of the game (a player's name, or 'public')")
    return Seen(seat=name)


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


def broadcast_horizon(ledger: Ledger, game: Game, minutes: float, now: datetime) -> int | None:
    """The last event a reader without a token may see of a game broadcast `minutes` behind the table, at `now`:
    the last one stored at least that long ago (0: none yet), asked of the store by time (`Ledger.last_stored_by`:
    a few of the game's events are read, however long it is). None where nothing is held back: no delay, or the
    game is over (the delay ends with it)."""
    if minutes <= 0 or game.rules.outcome(game.state) is not None:
        return None
    return ledger.last_stored_by(game, now - timedelta(minutes=minutes))


def broadcast_starts(game: Game, minutes: float) -> datetime:
    """When a reader without a token is first shown a game broadcast `minutes` behind the table: once its first
    event (its setup) is that old, as `broadcast_horizon` counts it."""
    return game.created_on + timedelta(minutes=minutes)


def undone_by(ledger: Ledger, game_id: UUID, version: int) -> frozenset[int]:
    """The actions undone or corrected by the game's events up to `version` (a read table's rows as they stood
    then: those undone later were not yet)."""
    undone: set[int] = set()
    for event in ledger.game_events(game_id, up_to=version):
        if isinstance(event, Game.ActionsUndone):
            undone.update(event.versions)
        elif isinstance(event, Game.ActionCorrected):
            undone.add(event.replaced)
    return frozenset(undone)


def reads_hidden(reader: Perspective, game: Game) -> bool:
    """What the rules keep hidden is shown to the recorder (and the admin), and to everyone once the game is over
    if the game, as it stands now, reveals it at its end (`Game.reveal_at_end`: on unless its recorder turned it
    off); otherwise a finished game is read as it was during play."""
    return reader.sees_all or (game.reveal_at_end and game.rules.outcome(game.state) is not None)


@dataclass(frozen=True)
class Sight:
    """What a reader may see of a game as it stands: every hidden fact (`everything`), or a seat's own (`seat`;
    None: the public's). Readers with the same sight of the same log are shown the same of it (`visibility`)."""

    everything: bool
    seat: str | None = None


def sight_of(reader: Perspective, game: Game) -> Sight:
    return Sight(everything=True) if reads_hidden(reader, game) else Sight(everything=False, seat=reader.seat)


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


def visibility(reader: Perspective, ledger: Ledger, game: Game) -> Visibility:
    if reads_hidden(reader, game):
        return Visibility(None, {})
    shown = set(game.revealed_versions())
    hidden: dict[int, tuple[str, str]] = {}
    withheld_from, withheld = None, set()
    for event in ledger.game_events(game.id, up_to=game.version):
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


def layout_for(reader: Perspective, latest: Game, game: Game) -> Any:
    """The picture of `game`'s position for the reader: a seat's own hidden facts for its seat, every one for a
    reader who may see them in the game as it stands now (`latest`)."""
    return layout(game.rules, game.state, ALL_SEATS if reads_hidden(reader, latest) else reader.seat)


def legal_for(reader: Perspective, game: Game) -> list[str]:
    """The legal actions now that follow from what the reader may see: not the hidden actions, nor those whose
    legality rests on another player's hidden facts (a held card, a peek)."""
    rules, state = game.rules, game.state
    everything, hidden = reads_hidden(reader, game), hidden_information(rules)
    return [
        rules.format_action(action)
        for action in rules.legal_actions(state)
        if everything
        or (hidden.visible_only_to(action) is None and hidden.rests_on(state, action) in (None, reader.seat))
    ]


def choices_for(reader: Perspective, game: Game, words: Sequence[str]) -> NextWords:
    """The words that may follow `words` in a legal action now, for the reader: every one the rules compose for a
    reader who sees every hidden fact; for another, those of the legal actions it is shown (`legal_for`)."""
    if reads_hidden(reader, game):
        return next_words(game.rules, game.state, words)
    return listed_next_words(legal_for(reader, game), words)


def forced_choices_for(reader: Perspective, game: Game, words: Sequence[str]) -> tuple[list[str], NextWords]:
    """The words that follow `words` as the only ones possible, one after another, until a choice is needed or the
    words are a legal action; and the choices after them (`choices_for`)."""
    return forced_next_words(lambda entered: choices_for(reader, game, entered), words)


def refusal_for(reader: Perspective, game: Game, violation: RuleViolation) -> RuleViolation:
    """The refusal as the reader may be told it: its public part where it rests on facts hidden from the reader."""
    if violation.public is None or reads_hidden(reader, game):
        return violation
    return RuleViolation(violation.ruling, violation.public, violation.waivable)


class HiddenEvent(LookupError):
    """An event that is an action hidden from the reader: neither explained nor branched from for it."""

    code = "hidden_event"


def check_shown(seen: Visibility, event: int) -> None:
    if event in seen.hidden:
        raise HiddenEvent(f"event {event} is an action hidden from this reader until it is revealed")


class HiddenFacts(PermissionError):
    """A question whose answer would rest on facts hidden from the reader."""

    code = "hidden_facts"


def branch_for(reader: Perspective, ledger: Ledger, game: Game, event: int, replacement: str | None) -> WhatIfReport:
    """A what-if as the reader may be answered: refused where the event is an action hidden from it (HiddenEvent),
    or (HiddenFacts) where the replacement is a hidden action or
    its legality rests on facts hidden from it (another seat's hand, a peek); the branch stopped before the first
    action hidden from it, whose fate rests on what it hides; a refusal in the branch told by its public part; the
    hidden actions and hashes it may not see left out."""
    seen = visibility(reader, ledger, game)
    check_shown(seen, event)
    if replacement is not None and not reads_hidden(reader, game):
        check_public_replacement(reader, ledger, game, event, replacement)
    hidden = {version: owner for version, (owner, _) in seen.hidden.items()}

    def told(violation: RuleViolation) -> str:
        return str(refusal_for(reader, game, violation))

    return report_for(ledger.what_if(game.id, event, replacement, told, hidden), seen)


def check_public_replacement(reader: Perspective, ledger: Ledger, game: Game, event: int, replacement: str) -> None:
    rules, hidden = game.rules, hidden_information(game.rules)
    try:
        action = rules.parse_action(replacement)
    except NotationError:
        return  # refused as unreadable, whoever asks
    # A draw or a peek rests on every hand and pile the reader may not see.
    if hidden.visible_only_to(action) is not None:
        raise HiddenFacts(f"a what-if with the hidden action {replacement!r} is for the recorder")
    state = ledger.game(game.id, version=event - 1).state if event > 1 else None
    owner = hidden.rests_on(state, action) if state is not None else None
    if owner not in (None, reader.seat):
        raise HiddenFacts(
            f"a what-if with {replacement!r} rests on {owner}'s hidden facts: it is for readers who see them"
        )


def report_for(report: Report, seen: Visibility) -> Report:
    """A report (an audit, an explanation, a branch) with what the reader may not see left out, and said to be."""
    return report.left_out(seen.hidden, seen.withheld_hashes)


def hidden_from(seen: Visibility, event: Any) -> bool:
    """Whether the event is an action hidden from the reader."""
    owner = getattr(event, "visible_only_to", None)
    return owner is not None and seen.shown is not None and event.originator_version not in seen.shown


def sentence_for(seen: Visibility, event: Any, rules: AnyRuleset) -> str:
    """What the log says of the event to the reader: a hidden action shows only whose it is."""
    if hidden_from(seen, event):
        return f"an action of {event.visible_only_to}, hidden from this reader"
    return event_sentence(event, rules)
