"""A game exported for a reader who may not see everything: a game file's line for an action hidden from it, and a
bundle's stored events with its hidden actions and withheld hashes left out. The exports themselves are written
by `transfer`, which asks these for every line and every event."""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from eventsourcing.persistence import Transcoder

from evo_ledger.app.readers.log import HIDDEN, Visibility, hidden_among, leave_out


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
