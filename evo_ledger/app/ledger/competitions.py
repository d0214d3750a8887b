"""The ledger's competitions: each opened, read and changed as a record of its own beside the games, every change
an event stored through the writer path (`WriterPath.make`), made again on the record as it then stands when another
writer stored first. A new game entered in a competition is stored with the competition's event in one transaction
(`entering`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from evo_ledger.app.access import GameAccess, token_digest
from evo_ledger.app.competitions import (
    MAX_NAME,
    MAX_SEASON,
    Competition,
    GameEntry,
    Organiser,
    Placement,
    ShownGame,
    UnknownCompetition,
    UnknownSeason,
    check_organiser,
    checked_kind,
    checked_label,
    checked_placement,
    checked_scoring,
    competition_named_by,
    new_competition_id,
    normalised_text,
    organiser_token,
)
from evo_ledger.app.ledger.application import LedgerApplication
from evo_ledger.app.ledger.queries import Queries, folded_record
from evo_ledger.app.ledger.values import UnknownGame
from evo_ledger.app.ledger.writer_path import Made, WriterPath
from evo_ledger.app.readers import Caller, check_seen, games_seen_by
from evo_ledger.game.aggregate import Game


@dataclass(frozen=True)
class OpenedCompetition:
    """A competition as opening it answers: its record, and its organiser token, shown only here."""

    competition: Competition
    token: str


class Competitions:
    """Competitions opened, listed and read, and their games added and taken out by their organiser (or the
    admin)."""

    def __init__(self, store: LedgerApplication, queries: Queries, writer: WriterPath) -> None:
        self.store = store
        self.queries = queries
        self.writer = writer

    def open(
        self,
        kind: str,
        name: str,
        season: str | None = None,
        scoring: str = "places",
        points: Sequence[int] | None = None,
    ) -> OpenedCompetition:
        """A new competition, its fields checked (InvalidCompetition naming the field), its name and season label
        normalised (`normalised_text`), stored; its organiser token is in the answer alone (its digest is
        stored)."""
        checked_kind(kind)
        label = checked_label("name", name, MAX_NAME)
        season_label = None if season is None else checked_label("season", season, MAX_SEASON)
        counted = checked_scoring(scoring, points)
        competition_id = new_competition_id()
        token = organiser_token(competition_id)

        def opened() -> Made[OpenedCompetition]:
            record = Competition.open(competition_id, kind, label, season_label, counted, token_digest(token))
            return Made(OpenedCompetition(record, token), [record])

        return self.writer.make(competition_id, opened)

    def competition(self, competition_id: UUID) -> Competition:
        """The competition as it stands, folded afresh from its record (UnknownCompetition where there is none)."""
        first = self.store.recorder.select_events(competition_id, limit=1)
        if not first or first[0].topic != Competition.Opened.TOPIC:
            raise UnknownCompetition(f"no competition {competition_id}")
        found: Competition = folded_record(self.store, competition_id)
        return found

    def every(self) -> Iterator[Competition]:
        """Every competition, in the order they were opened."""
        for notification in self.queries.notifications_after(0, [Competition.Opened.TOPIC]):
            yield self.competition(UUID(str(notification.originator_id)))

    def listed(self, kind: str | None = None, season: str | None = None) -> list[Competition]:
        """The competitions of that kind and season (each where given; the label read as `season_carried` reads
        it), in the order they were opened; a season no competition carries is refused (UnknownSeason)."""
        every = list(self.every())
        label = None if season is None else season_carried(every, season)
        return [c for c in every if kind in (None, c.kind) and label in (None, c.season)]

    def season(self, season: str) -> str:
        """The season label as the competitions carry it (`season_carried`): UnknownSeason where none does."""
        return season_carried(list(self.every()), season)

    def add_game(self, competition_id: UUID, game_id: UUID, placement: Placement, by: Organiser) -> Competition:
        """The game added to the competition by its organiser (or the admin), at its placement (checked:
        InvalidCompetition naming the field): a game the caller does not see is unknown to it."""
        checked_placement(placement.round, placement.table)

        def added() -> Made[Competition]:
            competition = self.competition(competition_id)
            check_organiser(competition, by)
            self._check_game_shown(game_id, by)
            competition.add_game(game_id, placement)
            return Made(competition, [competition])

        return self.writer.make(competition_id, added)

    def take_out(self, competition_id: UUID, game_id: UUID, by: Organiser) -> Competition:
        """The game taken out of the competition by its organiser (or the admin): a game the caller does not see is
        unknown to it, whether it is in the competition or not."""

        def taken() -> Made[Competition]:
            competition = self.competition(competition_id)
            check_organiser(competition, by)
            self._check_game_shown(game_id, by)
            competition.take_out(game_id)
            return Made(competition, [competition])

        return self.writer.make(competition_id, taken)

    def entering(self, entry: GameEntry, make: Callable[[], list[Any]]) -> list[Any]:
        """A new game as `make` makes it (the game first), entered in the competition: the competition's record,
        changed, is stored beside it in the game's transaction. The entry (its placement checked as `add_game`
        checks it) is refused before the game is made."""
        checked_placement(entry.placement.round, entry.placement.table)
        competition = self.competition(entry.competition_id)
        check_organiser(competition, entry.by)
        made = make()
        competition.add_game(made[0].id, entry.placement)
        return [*made, competition]

    def organised_by(self, token: str) -> Competition | None:
        """The competition whose organiser token `token` is (None: none's)."""
        competition_id = competition_named_by(token)
        if competition_id is None:
            return None
        try:
            competition = self.competition(competition_id)
        except UnknownCompetition:
            return None
        return competition if competition.organised_with(token) else None

    def games_shown(self, competition: Competition, caller: Caller) -> list[ShownGame]:
        """The competition's games that a caller across games sees exist (`games_seen_by`: the admin every one,
        another the games that are not private), each with its placement and whether it is withdrawn, in the order
        they were added. Their accesses are read at once."""
        accesses = self.queries.vouched.accesses(UUID(game_id) for game_id in competition.games)
        seen = games_seen_by(accesses, caller)
        return [
            ShownGame(game_id, placed, withdrawn(accesses[UUID(game_id)]))
            for game_id, placed in competition.games.items()
            if UUID(game_id) in seen
        ]

    def _check_game_shown(self, game_id: UUID, by: Organiser) -> None:
        """Refuse a game the log does not hold (UnknownGame), and, unless the admin adds it, a game the holder of
        the token does not see (a private game: told unknown by the readers)."""
        first = self.store.recorder.select_events(game_id, limit=1)
        if not first or first[0].topic != Game.Started.TOPIC:
            raise UnknownGame(game_id)
        if not by.admin:
            check_seen(game_id, self.queries.vouched.access(game_id), by.token)


def season_carried(competitions: Sequence[Competition], season: str) -> str:
    """The season label asked for, normalised as a competition's is when opened (`normalised_text`), so that a
    label asked with other spaces or another composition names the same season: UnknownSeason where no
    competition carries it."""
    label = normalised_text(season)
    if not any(competition.season == label for competition in competitions):
        raise UnknownSeason(f"season: no competition carries the season {season[:80]!r}")
    return label


def withdrawn(access: GameAccess | None) -> bool:
    """Whether a game with that access is withdrawn (a game no access was made for never was)."""
    return access is not None and access.withdrawn
