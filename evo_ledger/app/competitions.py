"""Competitions: a club night, a league season or a tournament, each a record of its own beside the games, event-
sourced as they are, grouping games into rounds and tables.

A competition is opened (over HTTP by the admin alone, who hands its organiser token to whoever runs it) with its
kind, name and season label (the name and the label normalised: `normalised_text`), its scoring (`places`: the
points each place in a game gives; or `scores`: the games' own scores summed), and an organiser token, kept only as
its SHA-256. The token names its competition (`<competition id>.<secret>`), so that the token alone says which
record to check it against. Its holder (or the admin) adds games, each in a round and at a table if it says so, and
takes them out again: each an event of the competition's record. A game is in a competition once; it may be in
several competitions (a club night's game counts towards the season too).
"""

from __future__ import annotations

import hmac
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate

from evo_ledger.app.access import new_token, token_digest

KINDS = ("night", "season", "tournament")
SCORINGS = ("places", "scores")
DEFAULT_POINTS = (3, 2, 1, 0)
MAX_NAME = 80
MAX_SEASON = 40
MAX_TABLE = 40
MAX_PLACES = 20
MAX_POINTS = 1000
MAX_ROUND = 1000
TOKEN_SEPARATOR = "."


class InvalidCompetition(ValueError):
    """A competition's field, or a game's round or table, that no competition holds (its message names the field)."""


class UnknownCompetition(LookupError):
    """An id no competition's record has."""


class UnknownSeason(LookupError):
    """A season label no competition carries."""


class GameInCompetition(Exception):
    """A game added to a competition it is in already."""


class GameNotInCompetition(LookupError):
    """A game taken out of a competition it is not in."""


class OrganiserTokenRequired(PermissionError):
    """A change to a competition without a token: the organiser's or the admin's."""


class OrganiserTokenRefused(PermissionError):
    """A change to a competition with a token that is neither its organiser's nor the admin's."""


@dataclass(frozen=True)
class Scoring:
    """How a competition's standings count its games: `places` gives each place in a game the points listed for it
    (0 beyond the list; players sharing places share those places' points equally), `scores` sums the games' own
    scores (`points` is then empty)."""

    method: str = "places"
    points: tuple[int, ...] = DEFAULT_POINTS


@dataclass(frozen=True)
class Placement:
    """Where a game sits in its competition: its round (from 1) and its table, where the organiser gives them."""

    round: int | None = None
    table: str | None = None


@dataclass(frozen=True)
class ShownGame:
    """A game of a competition as its list shows it: its id, its placement, and whether it is withdrawn (left out
    of the standings, kept in the competition)."""

    game_id: str
    placement: Placement
    withdrawn: bool


@dataclass(frozen=True)
class Organiser:
    """Who changes a competition: the holder of `token` (None: no token), which must be the competition's organiser
    token, or the `admin`."""

    token: str | None
    admin: bool = False


@dataclass(frozen=True)
class GameEntry:
    """A new game's entry in a competition, stored in the game's own transaction: the competition, where the game
    sits in it, and who enters it."""

    competition_id: UUID
    placement: Placement
    by: Organiser


class Competition(Aggregate):
    """A competition: its kind, name, season label, scoring and organiser token's digest, and its games (by id, in
    the order they were added), each with its placement."""

    TOPIC = "evo-ledger:Competition"

    class Created(Aggregate.Created):
        TOPIC = "evo-ledger:Competition.Created"

    class Opened(Created):
        TOPIC = "evo-ledger:Competition.Opened"
        kind: str
        name: str
        season: str | None
        scoring: str
        points: list[int]
        organiser_digest: str

    class GameAdded(Aggregate.Event):
        TOPIC = "evo-ledger:Competition.GameAdded"
        game_id: str
        round: int | None
        table: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.games = {**aggregate.games, self.game_id: Placement(self.round, self.table)}

    class GameTakenOut(Aggregate.Event):
        TOPIC = "evo-ledger:Competition.GameTakenOut"
        game_id: str

        def apply(self, aggregate: Any) -> None:
            aggregate.games = {game: placed for game, placed in aggregate.games.items() if game != self.game_id}

    def __init__(
        self, kind: str, name: str, season: str | None, scoring: str, points: list[int], organiser_digest: str
    ) -> None:
        self.kind = kind
        self.name = name
        self.season = season
        self.scoring = Scoring(scoring, tuple(points))
        self.organiser_digest = organiser_digest
        self.games: dict[str, Placement] = {}

    @classmethod
    def open(
        cls, competition_id: UUID, kind: str, name: str, season: str | None, scoring: Scoring, organiser_digest: str
    ) -> Competition:
        return cls._create(
            cls.Opened,
            id=competition_id,
            kind=kind,
            name=name,
            season=season,
            scoring=scoring.method,
            points=list(scoring.points),
            organiser_digest=organiser_digest,
        )

    def organised_with(self, token: str) -> bool:
        """Whether `token` is this competition's organiser token."""
        return hmac.compare_digest(token_digest(token).encode(), self.organiser_digest.encode())

    def add_game(self, game_id: UUID, placement: Placement) -> None:
        if str(game_id) in self.games:
            raise GameInCompetition(f"game_id: game {game_id} is in competition {self.id} already")
        self.trigger_event(self.GameAdded, game_id=str(game_id), round=placement.round, table=placement.table)

    def take_out(self, game_id: UUID) -> None:
        if str(game_id) not in self.games:
            raise GameNotInCompetition(f"game_id: game {game_id} is not in competition {self.id}")
        self.trigger_event(self.GameTakenOut, game_id=str(game_id))


# The topics of the events of competitions' records, by which the read tables follow them.
COMPETITION_TOPICS = (Competition.Opened.TOPIC, Competition.GameAdded.TOPIC, Competition.GameTakenOut.TOPIC)


def organiser_token(competition_id: UUID) -> str:
    """A new organiser token, naming its competition: `<competition id>.<secret>`."""
    return f"{competition_id}{TOKEN_SEPARATOR}{new_token()}"


def competition_named_by(token: str) -> UUID | None:
    """The competition an organiser token names (None: the token names none)."""
    named, separator, _ = token.partition(TOKEN_SEPARATOR)
    if not separator:
        return None
    try:
        return UUID(named)
    except ValueError:
        return None


def check_organiser(competition: Competition, by: Organiser) -> None:
    """Refuse a change to the competition unless it is made by the admin or with the competition's organiser token:
    no token (OrganiserTokenRequired), another token (OrganiserTokenRefused)."""
    if by.admin:
        return
    if by.token is None:
        raise OrganiserTokenRequired(f"a change to competition {competition.id} needs its organiser's token")
    if not competition.organised_with(by.token):
        raise OrganiserTokenRefused(f"the token is not competition {competition.id}'s organiser's, nor the admin's")


def new_competition_id() -> UUID:
    return uuid.uuid4()


def checked_kind(kind: str) -> str:
    if kind not in KINDS:
        raise InvalidCompetition(f"kind: {kind[:40]!r} is no kind of competition; the kinds are {', '.join(KINDS)}")
    return kind


def text_problem(value: str, most: int) -> str | None:
    """What is wrong with a name, a season label or a table (None: nothing): it is 1 to `most` characters, not
    all blank, with no control or invisible character."""
    if not 1 <= len(value) <= most:
        return f"from 1 to {most} characters, not {len(value)}"
    if not value.strip():
        return "it is blank"
    if any(unicodedata.category(character).startswith("C") for character in value):
        return "it holds a control or invisible character"
    return None


def checked_text(field: str, value: str, most: int) -> str:
    problem = text_problem(value, most)
    if problem is not None:
        raise InvalidCompetition(f"{field}: {problem}")
    return value


def normalised_text(value: str) -> str:
    """A name or a season label as a competition keeps it: composed (Unicode's NFC), each run of spaces (any space
    separator) one space, none at either end; so that labels that read alike are one label."""
    composed = unicodedata.normalize("NFC", value)
    spaced = "".join(" " if unicodedata.category(character).startswith("Z") else character for character in composed)
    return " ".join(word for word in spaced.split(" ") if word)


def checked_label(field: str, value: str, most: int) -> str:
    """A name or a season label, normalised (`normalised_text`) and then checked (`text_problem`)."""
    normalised = normalised_text(value)
    if value and not normalised:
        raise InvalidCompetition(f"{field}: it is blank")
    return checked_text(field, normalised, most)


def checked_scoring(method: str, points: Sequence[int] | None) -> Scoring:
    """The scoring as given: `places` with its points (DEFAULT_POINTS where none are given), each a whole number
    from -MAX_POINTS to MAX_POINTS, at most MAX_PLACES of them; `scores` with none."""
    if method not in SCORINGS:
        raise InvalidCompetition(f"scoring: {method[:40]!r} is no scoring; the scorings are {', '.join(SCORINGS)}")
    if method == "scores":
        if points:
            raise InvalidCompetition("points: a competition counting the games' own `scores` gives no points")
        return Scoring(method, ())
    given = DEFAULT_POINTS if points is None else tuple(points)
    if not 1 <= len(given) <= MAX_PLACES:
        raise InvalidCompetition(f"points: from 1 to {MAX_PLACES} places' points, not {len(given)}")
    for place, worth in enumerate(given, start=1):
        if isinstance(worth, bool) or not isinstance(worth, int) or abs(worth) > MAX_POINTS:
            raise InvalidCompetition(
                f"points.{place - 1}: place {place}'s points are a whole number from -{MAX_POINTS} to {MAX_POINTS}"
            )
    return Scoring(method, given)


def checked_placement(round: int | None, table: str | None) -> Placement:
    """A game's round (from 1 to MAX_ROUND) and table (a text of at most MAX_TABLE characters), each optional."""
    if round is not None and (isinstance(round, bool) or not isinstance(round, int) or not 1 <= round <= MAX_ROUND):
        raise InvalidCompetition(f"round: a whole number from 1 to {MAX_ROUND}")
    return Placement(round, None if table is None else checked_text("table", table, MAX_TABLE))
