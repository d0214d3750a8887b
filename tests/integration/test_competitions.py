"""Competitions in the ledger and the read tables: a competition's record holds its games, changed only by its
organiser or the admin, each at a placement the ledger checks; its name and season label are kept normalised; a new
game entered in one is stored with its entry, or neither is; its games are listed with whether each is withdrawn,
their accesses read at once; the read tables follow the record, and a rebuild from zero gives the same rows and
standings; the standings count places, shared places, scores and people (a person seated twice at their better
seat, no one else's place moved) as docs/guide.md says, and each tie-break decides in its turn."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import Connection, insert, select

from evo_ledger.app.access import HiddenGame
from evo_ledger.app.competitions import (
    Competition,
    GameEntry,
    GameInCompetition,
    GameNotInCompetition,
    InvalidCompetition,
    Organiser,
    OrganiserTokenRefused,
    OrganiserTokenRequired,
    Placement,
    Scoring,
    UnknownCompetition,
    UnknownSeason,
)
from evo_ledger.app.ledger import Ledger, UnknownGame
from evo_ledger.app.readers import Caller
from evo_ledger.app.writer import NewGame, carried_out
from evo_ledger.game.aggregate import Game
from projections import competitions
from projections.runner import Projector, rebuild
from projections.schema import COMPETITION_GAMES, COMPETITIONS, GAMES, PEOPLE, PERSON_SEATS, RESULTS
from projections.store import ReadStore
from tests.helpers.shown import shown
from tests.helpers.toy_game import WHOLE_GAME

ANYONE = Organiser(None)
ADMIN = Organiser(None, admin=True)
PLACES = Scoring("places", (3, 2, 1, 0))


@pytest.fixture
def store(ledger: Ledger) -> Iterator[ReadStore]:
    read_store = ReadStore(ledger.settings)
    yield read_store
    read_store.close()


def log_length(ledger: Ledger) -> int:
    return ledger.store.recorder.max_notification_id() or 0


def toy_game(ledger: Ledger, over: bool = True) -> UUID:
    """A toy game between ann and ben; played to its end (ann wins, 14 to 0) where `over`."""
    game_id = ledger.commands.create_game(None, "toy-2p", ["ann", "ben"]).game_id
    if over:
        ledger.commands.record(game_id, WHOLE_GAME)
    return game_id


# The ledger's record.


def test_a_competition_holds_its_games_changed_by_its_organiser_alone(ledger: Ledger) -> None:
    opened = ledger.competitions.open("tournament", "Spring cup", "2026 spring", "places", [5, 3, 1])
    competition_id, token = opened.competition.id, opened.token
    assert token.startswith(f"{competition_id}.") and ledger.competitions.organised_by(token) == opened.competition
    game = toy_game(ledger)
    organiser = Organiser(token)
    ledger.competitions.add_game(competition_id, game, Placement(2, "B"), organiser)
    stored = ledger.competitions.competition(competition_id)
    assert stored.games == {str(game): Placement(2, "B")} and stored.scoring == Scoring("places", (5, 3, 1))
    assert (stored.kind, stored.name, stored.season) == ("tournament", "Spring cup", "2026 spring")
    before = log_length(ledger)
    refusals: list[tuple[type[Exception], Any]] = [
        (GameInCompetition, lambda: ledger.competitions.add_game(competition_id, game, Placement(), organiser)),
        (OrganiserTokenRequired, lambda: ledger.competitions.add_game(competition_id, game, Placement(), ANYONE)),
        (
            OrganiserTokenRefused,
            lambda: ledger.competitions.take_out(competition_id, game, Organiser(f"{competition_id}.guess")),
        ),
        (UnknownGame, lambda: ledger.competitions.add_game(competition_id, UUID(int=7), Placement(), organiser)),
        (UnknownGame, lambda: ledger.competitions.add_game(competition_id, competition_id, Placement(), organiser)),
        (UnknownCompetition, lambda: ledger.competitions.add_game(game, game, Placement(), ADMIN)),
    ]
    for refusal, change in refusals:
        with pytest.raises(refusal):
            change()
    assert log_length(ledger) == before, "a refused change stores nothing"
    ledger.competitions.take_out(competition_id, game, ADMIN)
    assert ledger.competitions.competition(competition_id).games == {}
    with pytest.raises(GameNotInCompetition):
        ledger.competitions.take_out(competition_id, game, organiser)
    ledger.competitions.add_game(competition_id, game, Placement(3), organiser)  # taken out, it may come back
    assert ledger.competitions.competition(competition_id).games == {str(game): Placement(3)}


def test_a_private_game_is_added_by_the_admin_alone(ledger: Ledger) -> None:
    opened = ledger.competitions.open("night", "Tuesday")
    game = toy_game(ledger)
    ledger.commands.change_access(game, lambda access: access.set_private(True))
    with pytest.raises(HiddenGame):
        ledger.competitions.add_game(opened.competition.id, game, Placement(), Organiser(opened.token))
    ledger.competitions.add_game(opened.competition.id, game, Placement(), ADMIN)
    assert str(game) in ledger.competitions.competition(opened.competition.id).games


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"kind": "league"}, "kind"),
        ({"name": ""}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "   "}, "name"),
        ({"season": "a\u0000b"}, "season"),
        ({"scoring": "goals"}, "scoring"),
        ({"points": []}, "points"),
        ({"points": [3, 1.5]}, "points.1"),
        ({"points": [3, True]}, "points.1"),
        ({"points": [10_000]}, "points.0"),
        ({"scoring": "scores", "points": [1]}, "points"),
    ],
)
def test_a_field_no_competition_holds_is_refused_naming_it_and_nothing_is_stored(
    ledger: Ledger, fields: dict[str, Any], named: str
) -> None:
    given = {"kind": "night", "name": "Tuesday", **fields}
    with pytest.raises(InvalidCompetition, match=rf"^{named}: "):
        ledger.competitions.open(**given)
    assert log_length(ledger) == 0


def test_a_name_and_a_season_label_are_kept_normalised_and_a_label_asked_is_read_alike(ledger: Ledger) -> None:
    # "Cafe" with its accent as a combining mark; runs of spaces, an ideographic space and a no-break space.
    opened = ledger.competitions.open("night", " Cafe\u0301 \u3000night", "2026  autumn\u00a0").competition
    stored = ledger.competitions.competition(opened.id)
    assert (stored.name, stored.season) == ("Caf\u00e9 night", "2026 autumn")
    for asked in ("2026 autumn", " 2026   autumn "):
        assert [c.id for c in ledger.competitions.listed(season=asked)] == [opened.id]
        assert ledger.competitions.season(asked) == "2026 autumn"
    before = log_length(ledger)
    with pytest.raises(InvalidCompetition, match=r"^season: it is blank"):
        ledger.competitions.open("night", "Tuesday", "\u3000 \u00a0")
    with pytest.raises(UnknownSeason):
        ledger.competitions.season("2026 autumn 2")
    assert log_length(ledger) == before


@pytest.mark.parametrize(
    ("placement", "named"),
    [
        (Placement(True), "round"),
        (Placement("2"), "round"),  # type: ignore[arg-type]
        (Placement(0), "round"),
        (Placement(1001), "round"),
        (Placement(1, "\u0007"), "table"),
        (Placement(1, "x" * 41), "table"),
    ],
)
def test_a_placement_no_competition_holds_is_refused_by_the_ledger_whichever_way_the_game_comes(
    ledger: Ledger, placement: Placement, named: str
) -> None:
    opened = ledger.competitions.open("night", "Tuesday")
    organiser = Organiser(opened.token)
    game = toy_game(ledger)
    before = log_length(ledger)
    with pytest.raises(InvalidCompetition, match=rf"^{named}: "):
        ledger.competitions.add_game(opened.competition.id, game, placement, organiser)
    entry = GameEntry(opened.competition.id, placement, organiser)
    new = NewGame(None, "toy-2p", [("ann", None), ("ben", None)], {}, "token", None, True, entry)
    [outcome] = carried_out(ledger, [new])
    assert isinstance(outcome, InvalidCompetition) and str(outcome).startswith(f"{named}: ")
    assert log_length(ledger) == before, "a refused placement stores nothing, a new game neither"
    assert ledger.competitions.competition(opened.competition.id).games == {}


def test_a_competitions_games_are_listed_with_whether_each_is_withdrawn_their_accesses_read_at_once(
    ledger: Ledger,
) -> None:
    opened = ledger.competitions.open("night", "Tuesday")
    played, withdrawn, hidden = toy_game(ledger), toy_game(ledger), toy_game(ledger)
    for game in (played, withdrawn, hidden):
        ledger.competitions.add_game(opened.competition.id, game, Placement(1), ADMIN)
    ledger.commands.change_access(withdrawn, lambda access: access.set_withdrawn(True, "a test game"))
    ledger.commands.change_access(hidden, lambda access: access.set_private(True))
    competition = ledger.competitions.competition(opened.competition.id)
    read = ledger.queries.vouched.accesses
    asked: list[list[UUID]] = []

    def counted(game_ids: Any) -> Any:
        asked.append(list(game_ids))
        return read(asked[-1])

    ledger.queries.vouched.accesses = counted  # type: ignore[method-assign]
    to_public = ledger.competitions.games_shown(competition, Caller())
    assert asked == [[played, withdrawn, hidden]], "the accesses are read at once"
    to_admin = ledger.competitions.games_shown(competition, Caller(admin=True))
    assert [(shown.game_id, shown.withdrawn) for shown in to_public] == [(str(played), False), (str(withdrawn), True)]
    assert [(shown.game_id, shown.withdrawn) for shown in to_admin] == [
        (str(played), False),
        (str(withdrawn), True),
        (str(hidden), False),
    ]


def test_competitions_are_listed_by_kind_and_season(ledger: Ledger) -> None:
    night = ledger.competitions.open("night", "Tuesday", "2026 autumn").competition
    season = ledger.competitions.open("season", "League", "2026 autumn", "scores").competition
    other = ledger.competitions.open("night", "Friday").competition
    assert [c.id for c in ledger.competitions.listed()] == [night.id, season.id, other.id]
    assert [c.id for c in ledger.competitions.listed(kind="night")] == [night.id, other.id]
    assert [c.id for c in ledger.competitions.listed(season="2026 autumn")] == [night.id, season.id]
    assert ledger.competitions.listed(kind="tournament", season="2026 autumn") == []
    with pytest.raises(UnknownSeason):
        ledger.competitions.listed(season="2025 autumn")


def test_a_game_entered_as_it_is_created_is_stored_with_its_entry_or_not_at_all(ledger: Ledger) -> None:
    opened = ledger.competitions.open("night", "Tuesday")
    competition_id = opened.competition.id

    def new_game(by: Organiser, competition: UUID = competition_id) -> Any:
        entry = GameEntry(competition, Placement(1, "A"), by)
        players = [("ann", None), ("ben", None)]
        [outcome] = carried_out(ledger, [NewGame(None, "toy-2p", players, {}, "token", None, True, entry)])
        return outcome

    before = log_length(ledger)
    for refused, by, competition in [
        (OrganiserTokenRequired, ANYONE, competition_id),
        (OrganiserTokenRefused, Organiser("another"), competition_id),
        (UnknownCompetition, ADMIN, UUID(int=1)),
    ]:
        assert isinstance(new_game(by, competition), refused)
    assert log_length(ledger) == before, "a refused entry stores no game"
    receipt = new_game(Organiser(opened.token))
    assert ledger.competitions.competition(competition_id).games == {str(receipt.game_id): Placement(1, "A")}
    assert ledger.queries.game(receipt.game_id).version == 1
    topics = [n.topic for n in ledger.queries.notifications_after(before)]
    assert topics[0] == Game.Started.TOPIC and topics[-1] == Competition.GameAdded.TOPIC
    assert len({n.id for n in ledger.queries.notifications_after(before)}) == len(topics)


def test_two_servers_adding_games_at_once_both_add_theirs(ledger: Ledger) -> None:
    opened = ledger.competitions.open("night", "Tuesday")
    competition_id, organiser = opened.competition.id, Organiser(opened.token)
    mine, theirs = toy_game(ledger, over=False), toy_game(ledger, over=False)
    with Ledger(ledger.settings) as other:
        read = ledger.competitions.competition
        calls = [0]

        def stale_once(record_id: UUID) -> Competition:
            """The first read gives the record as it stood before the other server added its game."""
            calls[0] += 1
            before = read(record_id)
            if calls[0] == 1:
                other.competitions.add_game(competition_id, theirs, Placement(1, "B"), organiser)
            return before

        ledger.competitions.competition = stale_once  # type: ignore[method-assign,assignment]
        ledger.competitions.add_game(competition_id, mine, Placement(1, "A"), organiser)
    assert calls[0] == 2, "made again on the record as the other server left it"
    games = read(competition_id).games
    assert games == {str(theirs): Placement(1, "B"), str(mine): Placement(1, "A")}


# The read tables.


def table_rows(store: ReadStore) -> list[list[tuple[Any, ...]]]:
    with store.engine.connect() as connection:
        return [
            [tuple(row) for row in connection.execute(select(table).order_by(*table.primary_key.columns))]
            for table in (COMPETITIONS, COMPETITION_GAMES)
        ]


def test_the_read_tables_follow_the_records_and_a_rebuild_from_zero_gives_the_same(
    ledger: Ledger, store: ReadStore
) -> None:
    cup = ledger.competitions.open("tournament", "Cup", "2026", "places", [2, 1]).competition
    league = ledger.competitions.open("season", "League", None, "scores").competition
    first, second, ongoing = toy_game(ledger), toy_game(ledger), toy_game(ledger, over=False)
    for game, placement in ((first, Placement(1, "A")), (second, Placement(1, "B")), (ongoing, Placement(2))):
        ledger.competitions.add_game(cup.id, game, placement, ADMIN)
    ledger.competitions.add_game(league.id, first, Placement(), ADMIN)
    ledger.competitions.take_out(cup.id, second, ADMIN)
    Projector(ledger, store).catch_up()
    built = table_rows(store)
    [cup_row, league_row] = sorted(built[0], key=lambda row: row[2])
    assert cup_row[1:6] == ("tournament", "Cup", "2026", "places", json.dumps([2, 1]))
    assert league_row[1:6] == ("season", "League", None, "scores", "[]")
    assert sorted(built[1]) == sorted(
        [
            (str(cup.id), str(first), 1, "A"),
            (str(cup.id), str(ongoing), 2, None),
            (str(league.id), str(first), None, None),
        ]
    )
    with store.engine.connect() as connection:
        cup_standings = competitions.standings(connection, str(cup.id), cup.scoring)
        league_standings = competitions.standings(connection, str(league.id), league.scoring)
    cup_rows = [(shown(ledger, row["name"]), row["points"], row["games"]) for row in cup_standings]
    assert cup_rows == [("ann", 2, 1), ("ben", 1, 1)]
    assert [(shown(ledger, row["name"]), row["points"]) for row in league_standings] == [("ann", 14), ("ben", 0)]
    rebuild(ledger, store)
    assert table_rows(store) == built
    with store.engine.connect() as connection:
        assert competitions.standings(connection, str(cup.id), cup.scoring) == cup_standings
        assert competitions.standings(connection, str(league.id), league.scoring) == league_standings


# The standings, from the read tables' rows.


@dataclass(frozen=True)
class Played:
    """A game of the competition as the read tables hold it: its players' places and scores, by stable id."""

    places: Sequence[tuple[str, int, int]]
    status: str = "over"
    private: bool = False
    withdrawn: bool = False
    undone: bool = False


def stored_games(connection: Connection, competition: str, games: Sequence[Played]) -> None:
    """The games' rows, each ended after the one before, entered in the competition."""
    for number, game in enumerate(games, start=1):
        game_id = f"{competition}-{number}"
        connection.execute(insert(GAMES), [game_row(game_id, number, game)])
        results = [
            {
                "game_id": game_id,
                "event": 9,
                "player_id": player,
                "action": 9,
                "round": 1,
                "name": player,
                "rank": rank,
                "score": score,
                "scores": json.dumps([score]),
                "undone": game.undone,
            }
            for player, rank, score in game.places
        ]
        connection.execute(insert(RESULTS), results)
        connection.execute(insert(COMPETITION_GAMES), [{"competition_id": competition, "game_id": game_id}])


def game_row(game_id: str, number: int, game: Played) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "ruleset": "toy",
        "ruleset_version": "1",
        "kit": "toy",
        "kit_hash": "h",
        "started_at": "2026-01-01T00:00:00+00:00",
        "ended_position": number,
        "players": len(game.places),
        "generated": False,
        "private": game.private,
        "withdrawn": game.withdrawn,
        "status": game.status,
        "rounds": 1,
        "events": 9,
        "actions": 9,
        "actions_undone": 0,
        "memory": "{}",
    }


def standings_of(
    store: ReadStore, games: Sequence[Played], scoring: Scoring = PLACES, include_private: bool = False
) -> list[tuple[int, str, float]]:
    """The standings of a competition of those games, each row as its place, its name and its points."""
    with store.writing.begin() as connection:
        stored_games(connection, "c", games)
    with store.engine.connect() as connection:
        rows = competitions.standings(connection, "c", scoring, include_private)
    return [(row["place"], row["name"], row["points"]) for row in rows]


def test_each_place_gives_its_points_and_players_sharing_places_share_theirs(store: ReadStore) -> None:
    games = [
        Played([("ann", 1, 9), ("ben", 1, 9), ("cat", 3, 5), ("dan", 4, 1)]),  # ann and ben share 3 + 2
        Played([("eve", 1, 9), ("fay", 2, 5), ("gus", 2, 5), ("hal", 2, 5)]),  # fay, gus and hal share 2 + 1 + 0
    ]
    assert standings_of(store, games) == [
        (1, "eve", 3),
        (2, "ann", 2.5),
        (2, "ben", 2.5),
        (4, "cat", 1),
        (4, "fay", 1),
        (4, "gus", 1),
        (4, "hal", 1),
        (8, "dan", 0),
    ]


def test_places_beyond_the_list_give_nothing(store: ReadStore) -> None:
    game = Played([("ann", 1, 20), ("ben", 2, 30), ("cat", 3, 30)])
    assert standings_of(store, [game], Scoring("places", (5,))) == [(1, "ann", 5), (2, "ben", 0), (2, "cat", 0)]


def test_scores_scoring_sums_the_games_own_scores(store: ReadStore) -> None:
    games = [Played([("ann", 1, 20), ("ben", 2, 15)]), Played([("ben", 1, 12), ("ann", 2, 4)])]
    assert standings_of(store, games, Scoring("scores", ())) == [(1, "ben", 27), (2, "ann", 24)]


EVEN = Scoring("places", (1, 1))  # both places of a two-player game give a point: the points tie
WINNER_ONLY = Scoring("places", (1, 0))


@pytest.mark.parametrize(
    ("decides", "scoring", "games", "order"),
    [
        ("points", PLACES, [Played([("ben", 1, 0), ("ann", 2, 9)])], [(1, "ben"), (2, "ann")]),
        ("wins", EVEN, [Played([("ben", 1, 5), ("ann", 2, 5)])], [(1, "ben"), (2, "ann")]),
        (
            "the sum of the scores",
            EVEN,
            [Played([("ann", 1, 10), ("ben", 2, 9)]), Played([("ben", 1, 4), ("ann", 2, 2)])],
            [(1, "ben"), (2, "ann")],
        ),
        (
            "fewer games",
            WINNER_ONLY,
            [
                Played([("ann", 1, 10), ("cat", 2, 0)]),
                Played([("ben", 1, 10), ("dan", 2, 0)]),
                Played([("eve", 1, 0), ("ben", 2, 0)]),
            ],
            [(1, "ann"), (2, "ben"), (3, "eve"), (4, "cat"), (4, "dan")],
        ),
        ("nothing: a shared place", EVEN, [Played([("ben", 1, 3), ("ann", 1, 3)])], [(1, "ann"), (1, "ben")]),
    ],
)
def test_each_tie_break_decides_in_its_turn(
    store: ReadStore, decides: str, scoring: Scoring, games: list[Played], order: list[tuple[int, str]]
) -> None:
    assert [(place, name) for place, name, _ in standings_of(store, games, scoring)] == order, decides


def test_only_games_over_not_withdrawn_and_counted_for_the_caller_count(store: ReadStore) -> None:
    games = [
        Played([("ann", 1, 9), ("ben", 2, 1)]),
        Played([("ben", 1, 9), ("ann", 2, 1)], private=True),
        Played([("ben", 1, 9), ("ann", 2, 1)], withdrawn=True),
        Played([("ben", 1, 9), ("ann", 2, 1)], status="ongoing"),
        Played([("ben", 1, 9), ("ann", 2, 1)], undone=True),
    ]
    assert standings_of(store, games) == [(1, "ann", 3), (2, "ben", 2)]
    with store.engine.connect() as connection:
        with_private = competitions.standings(connection, "c", PLACES, include_private=True)
    assert [(row["name"], row["points"], row["games"], row["wins"]) for row in with_private] == [
        ("ann", 5, 2, 1),
        ("ben", 5, 2, 1),
    ]


def test_a_person_is_counted_once_under_the_name_their_record_gives(store: ReadStore) -> None:
    with store.writing.begin() as connection:
        connection.execute(insert(PEOPLE), [{"person_id": "p-ann", "name": "Ann Smith", "merged_into": None}])
        connection.execute(insert(PERSON_SEATS), [{"player_id": "ann", "person_id": "p-ann"}])
        connection.execute(insert(PERSON_SEATS), [{"player_id": "ann2", "person_id": "p-ann"}])
    games = [Played([("ann", 1, 9), ("ben", 2, 1)]), Played([("ann2", 1, 9), ("ben", 2, 1)])]
    assert standings_of(store, games) == [(1, "Ann Smith", 6), (2, "ben", 4)]
    with store.engine.connect() as connection:
        [ann, _] = competitions.standings(connection, "c", PLACES)
    assert (ann["person_id"], ann["games"], ann["wins"], ann["score"]) == ("p-ann", 2, 2, 18)


def person_seated_twice(store: ReadStore) -> None:
    """Ann's record claiming two stable ids, `ann` and `ann2`."""
    with store.writing.begin() as connection:
        connection.execute(insert(PEOPLE), [{"person_id": "p-ann", "name": "Ann", "merged_into": None}])
        connection.execute(insert(PERSON_SEATS), [{"player_id": "ann", "person_id": "p-ann"}])
        connection.execute(insert(PERSON_SEATS), [{"player_id": "ann2", "person_id": "p-ann"}])


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        # Ann first and second, cat third, dan fourth: cat keeps third's point.
        (
            Played([("ann", 1, 9), ("ann2", 2, 7), ("cat", 3, 5), ("dan", 4, 1)]),
            [(1, "Ann", 3), (2, "cat", 1), (3, "dan", 0)],
        ),
        # Ann first, and second as ann2 beside ben: ben shares second's and third's points with ann2.
        (Played([("ann", 1, 9), ("ann2", 2, 5), ("ben", 2, 5)]), [(1, "Ann", 3), (2, "ben", 1.5)]),
        # Ann's better seat is the second: she takes its points, not those of the first seat she took.
        (Played([("ben", 1, 9), ("ann2", 2, 5), ("ann", 3, 1)]), [(1, "ben", 3), (2, "Ann", 2)]),
    ],
)
def test_a_person_seated_twice_counts_once_at_their_better_seat_and_moves_no_one_elses_place(
    store: ReadStore, game: Played, expected: list[tuple[int, str, float]]
) -> None:
    person_seated_twice(store)
    assert standings_of(store, [game]) == expected
    with store.engine.connect() as connection:
        ann = next(row for row in competitions.standings(connection, "c", PLACES) if row["name"] == "Ann")
    assert ann["games"] == 1 and ann["score"] == max(score for player, _, score in game.places if "ann" in player)


def test_a_competition_with_no_game_over_has_no_standings(ledger: Ledger, store: ReadStore) -> None:
    opened = ledger.competitions.open("night", "Quiet night")
    ledger.competitions.add_game(opened.competition.id, toy_game(ledger, over=False), Placement(), ADMIN)
    Projector(ledger, store).catch_up()
    with store.engine.connect() as connection:
        assert competitions.standings(connection, str(opened.competition.id), PLACES) == []
