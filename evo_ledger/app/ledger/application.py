"""The eventsourcing application under the ledger: the store it opens, how it encodes and seals events, and how it
saves games with the snapshots they took."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.application import Application
from eventsourcing.persistence import InternalError, Mapper, Notification, PersistenceError, Transcoder

from evo_ledger.app.personal import Personal
from evo_ledger.game.aggregate import Game
from evo_ledger.game.codec import MsgpackTranscoder
from evo_ledger.game.seal import Sealer
from evo_ledger.settings import KEYED, PACKED, STORED_FORM_VARIABLE, Settings
from evo_ledger.store.game_logs import GameLogs
from evo_ledger.store.mapper import SealingMapper
from evo_ledger.store.personal import personal_tables
from evo_ledger.store.recorders import StoreUnusable, persistence_env, store_opening

CACHED_GAMES = 256
STARTUP_ATTEMPTS = 5
NOTIFICATION_PAGE = 1000


def fold_events(game: Any, events: Iterable[Any]) -> Any:
    """Each event applied in turn, without the library's own projector, which checks a typing protocol per event
    (pays for: bench.ledger_speed full fold)."""
    for event in events:
        game = event.mutate(game)
    return game


class LedgerApplication(Application[UUID]):
    """The library's application, opened on the store the settings name, with the games it reads last cached: what
    the ledger's queries read and its commands write through."""

    # The store's tables and the read tables' positions are named after it: part of what is stored.
    name = "Ledger"

    def __init__(self, settings: Settings | None = None, **env: str) -> None:
        settings = settings or Settings.from_environment()
        self.settings = settings
        self.game_logs = GameLogs(settings.log_cache_events) if settings.log_cache_events else None
        full_env = {
            **persistence_env(settings),
            "AGGREGATE_CACHE_MAXSIZE": str(CACHED_GAMES),
            "DEEPCOPY_FROM_AGGREGATE_CACHE": "n",
            "IS_SNAPSHOTTING_ENABLED": "y",
            **env,
        }
        with store_opening(settings):
            self._open(full_env)
            if settings.read_only:
                self._check_holds_a_ledger()
            self._check_reads_its_form()
            self.personal = Personal(personal_tables(self.recorder, create=not settings.read_only))

    def _open(self, env: dict[str, str]) -> None:
        for attempt in range(STARTUP_ATTEMPTS):
            try:
                super().__init__(env=env)
                return
            except InternalError as error:
                # PostgreSQL refuses one of two servers creating the same tables at the same moment.
                if "concurrently" not in str(error) or attempt == STARTUP_ATTEMPTS - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def _check_holds_a_ledger(self) -> None:
        """A store opened read only is read as a server that writes left it: one without the log's table is
        refused as it opens, not at its first read."""
        try:
            self.recorder.max_notification_id()
        except PersistenceError as error:
            raise StoreUnusable(
                f"{self.settings.described}: holds no ledger to read (read only, it makes no tables): "
                "serve it with a server that writes first, or a replica of a database such a server served"
            ) from error

    def _check_reads_its_form(self) -> None:
        """A store holding events in the packed form is refused by a recorder of one row an event, which would
        read it as if they were not there."""
        holds_runs = getattr(self.recorder, "holds_runs", None)
        if self.settings.stored_form != PACKED and holds_runs is not None and holds_runs():
            raise StoreUnusable(
                f"{self.settings.described}: holds events in the packed form, which {STORED_FORM_VARIABLE}="
                f"{self.settings.stored_form} does not read: leave {STORED_FORM_VARIABLE} unset"
            )

    def construct_transcoder(self) -> Transcoder:
        return MsgpackTranscoder()

    def construct_mapper(self) -> Mapper[UUID]:
        form = self.settings.stored_form
        return SealingMapper(
            transcoder=self.construct_transcoder(),
            sealer=self.sealer,
            compacts=form != KEYED,
            deflates_events=form != PACKED,
        )

    @cached_property
    def sealer(self) -> Sealer | None:
        key = self.settings.seal_key
        return None if key is None else Sealer(key)

    def save(self, *objs: Any, **kwargs: Any) -> list[Any]:
        """Store the games' new events in one transaction, then the snapshots they took on the way (the library
        takes none itself: it would fold each game again to take one)."""
        recordings = super().save(*objs, **kwargs)
        games = [game for game in objs if isinstance(game, Game)]
        self.store_snapshots([snapshot for game in games for snapshot in game.snapshots_due])
        for game in games:
            game.snapshots_due.clear()
        return recordings

    def store_snapshots(self, snapshots: Sequence[Any]) -> None:
        if self.snapshots is not None and snapshots:
            self.snapshots.put(list(snapshots))

    def notifications_after(self, after: int, topics: Sequence[str] = ()) -> Iterator[Notification]:
        """The log after position `after` (only the `topics` named, if any), read a page at a time."""
        start = after + 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=NOTIFICATION_PAGE, topics=topics)
            yield from page
            if len(page) < NOTIFICATION_PAGE:
                return
            start = page[-1].id + 1

    def cached_game(self, game_id: UUID) -> Game | None:
        """The game as the repository's cache holds it, if it does."""
        if self.repository.cache is None:
            return None
        try:
            game = self.repository.cache.get(game_id)
        except KeyError:
            return None
        return game if isinstance(game, Game) else None

    def cache_game(self, game: Game) -> None:
        """Hold the game, as just stored, in the repository's cache in place of the one it was copied from."""
        if self.repository.cache is not None:
            self.repository.cache.put(game.id, game)
