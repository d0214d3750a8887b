"""Audits, explanations and branches as a reader may be given them: what it may not see left out of them and said
to be, an event hidden from it neither explained nor branched from, and a branch whose question rests on facts
hidden from it refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from evo_ledger.app.readers.log import Visibility, hidden_in_place, visibility
from evo_ledger.app.readers.positions import refusal_for
from evo_ledger.app.readers.sight import Perspective, reads_hidden
from evo_ledger.game.aggregate import Game
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.contract import hidden_information
from evo_ledger.rules.text import NotationError

if TYPE_CHECKING:
    from evo_ledger.app.audit import CanonicalReport
    from evo_ledger.app.disputes import ExplanationReport, WhatIfReport
    from evo_ledger.app.ledger import Ledger

Report = TypeVar("Report", bound="CanonicalReport")
NO_HASH = "0" * 64
"""A head no event carries."""


class HiddenEvent(LookupError):
    """An event that is an action hidden from the reader: neither explained nor branched from for it."""

    code = "hidden_event"


def check_shown(seen: Visibility, event: int) -> None:
    if event in seen.hidden:
        raise HiddenEvent(f"event {event} is an action hidden from this reader until it is revealed")


class HiddenFacts(PermissionError):
    """A question whose answer would rest on facts hidden from the reader."""

    code = "hidden_facts"


def report_for(report: Report, seen: Visibility) -> Report:
    """A report (an audit, an explanation, a branch) for a reader who may not see the hidden actions `seen.hidden`
    nor the hashes withheld from it: each left out wherever it stands, and said to be left out."""
    if not seen.hidden and not seen.withheld_hashes:
        return report
    shown = {notation: hidden_in_place(player) for player, notation in seen.hidden.values()}

    def redact(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: redact(item) for key, item in value.items()}
        if isinstance(value, list):
            return [redact(item) for item in value]
        if isinstance(value, str):
            if value in seen.withheld_hashes:
                return None
            for notation, replacement in shown.items():
                value = value.replace(notation, replacement)
        return value

    left = {"hidden_actions": sorted(seen.hidden), "hashes_withheld": bool(seen.withheld_hashes)}
    return type(report)({**redact(report.data), "left_out": left})


def audit_for(
    reader: Perspective, ledger: Ledger, game: Game, up_to: int | None, expect_head: str | None
) -> CanonicalReport:
    """The audit of the log as `game` stood (`Queries.audit`'s `as_of`: what is stored after it was read is not
    read) as the reader may be given it (`visibility`); a receipt's head it may not have is answered as any wrong
    guess of it would be."""
    seen = visibility(reader, ledger, game)
    if expect_head in seen.withheld_hashes:
        expect_head = NO_HASH
    return report_for(ledger.queries.audit(game.id, up_to, expect_head, as_of=game.version), seen)


def explanation_for(reader: Perspective, ledger: Ledger, game: Game, event: int) -> ExplanationReport:
    """The explanation of `event` of `game` (as it was read, its sight taken) as the reader may be given it:
    refused (HiddenEvent) where the event is an action hidden from it."""
    seen = visibility(reader, ledger, game)
    check_shown(seen, event)
    return report_for(ledger.queries.explain(game, event), seen)


def branch_for(reader: Perspective, ledger: Ledger, game: Game, event: int, replacement: str | None) -> WhatIfReport:
    """A what-if of `game` (as it was read, its sight taken) as the reader may be answered: refused where the event
    is an action hidden from it (HiddenEvent), or (HiddenFacts) where the replacement is a hidden action or its
    legality rests on facts hidden from it (another seat's hand, a peek); the branch stopped before the first action
    hidden from it, whose fate rests on what it hides; a refusal in the branch told by its public part; the hidden
    actions and hashes it may not see left out."""
    seen = visibility(reader, ledger, game)
    check_shown(seen, event)
    if replacement is not None and not reads_hidden(reader, game):
        check_public_replacement(reader, ledger, game, event, replacement)
    hidden = {version: owner for version, (owner, _) in seen.hidden.items()}

    def told(violation: RuleViolation) -> str:
        return str(refusal_for(reader, game, violation))

    return report_for(ledger.queries.what_if(game, event, replacement, told, hidden), seen)


def check_public_replacement(reader: Perspective, ledger: Ledger, game: Game, event: int, replacement: str) -> None:
    rules, hidden = game.rules, hidden_information(game.rules)
    try:
        action = rules.parse_action(replacement)
    except NotationError:
        return  # refused as unreadable, whoever asks
    # A draw or a peek rests on every hand and pile the reader may not see.
    if hidden.visible_only_to(action) is not None:
        raise HiddenFacts(f"a what-if with the hidden action {replacement!r} is for the recorder")
    # Read no further than `game`: an event past it is refused by the branch whoever asks.
    state = ledger.queries.game(game.id, version=event - 1).state if 1 < event <= game.version else None
    owner = hidden.rests_on(state, action) if state is not None else None
    if owner not in (None, reader.seat):
        raise HiddenFacts(
            f"a what-if with {replacement!r} rests on {owner}'s hidden facts: it is for readers who see them"
        )
