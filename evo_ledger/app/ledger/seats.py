"""The seats of the games as the ledger's changes and readers need them: the labels an action entered with handles
is recorded with, the stable id a handle sat under before seats had labels, and the games a stable id sat at
(evo_ledger.app.personal)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Notification

from evo_ledger.app.ledger.application import LedgerApplication
from evo_ledger.game.aggregate import Game, player_id
from evo_ledger.game.labels import is_label, readings, spoken_as_labels
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.text import NotationError


class Seats:
    """The seats of the games on one store, read from its log (`notifications_after`) and its personal data."""

    def __init__(
        self, store: LedgerApplication, notifications_after: Callable[[int, Sequence[str]], Iterator[Notification]]
    ) -> None:
        self.store = store
        self.notifications_after = notifications_after

    def in_labels(self, game: Game, action: str) -> str:
        """An action (or its first words, or a seat) as a reader entered it, each seated handle put as its seat's
        label: as the first reading of its handles the rules can read as an action (`readings`), else each one."""
        labels = self.store.personal.labels_by_handle(game.player_names)
        for reading in readings(action, labels):
            try:
                game.rules.parse_action(reading)
            except (NotationError, RuleViolation):
                continue
            return str(reading)
        labelled: str = spoken_as_labels(action, labels)
        return labelled

    def games_seating(self, stable_ids: Collection[str]) -> list[UUID]:
        """Every game a seat of which carries one of these stable ids, read from every game's first event."""
        wanted, found = set(stable_ids), []
        for notification in self.notifications_after(0, [Game.Started.TOPIC]):
            started: Any = self.store.mapper.to_domain_event(notification)
            if any(seat["id"] in wanted for seat in started.players):
                found.append(started.originator_id)
        return found

    def earlier_seat_id(self, handle: str) -> str | None:
        """The stable id a handle sat under at a game stored before seats had labels (None: it sat at none), so
        that its player's ratings carry on under its label."""
        return self._earlier_seat_ids.get(handle)

    @cached_property
    def _earlier_seat_ids(self) -> dict[str, str]:
        """Each handle seated at a game stored before seats had labels under the stable id derived from it (not one
        given for the seat, which another player may hold), read once from every game's first event."""
        found: dict[str, str] = {}
        for notification in self.notifications_after(0, [Game.Started.TOPIC]):
            started: Any = self.store.mapper.to_domain_event(notification)
            found.update(
                (seat["name"], seat["id"])
                for seat in started.players
                if not is_label(seat["name"]) and seat["id"] == player_id(seat["name"])
            )
        return found
