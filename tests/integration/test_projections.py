"""The read tables on each database: exact rows from hand-made logs, undone facts apart, the die's fit, a runner
killed at random points, redelivered events, following the log, and an event they cannot apply set aside."""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg import sql
from sqlalchemy import func, select, update

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.cli.main import main
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.evo2 import selfplay
from evo_ledger.rules.evo2.actions import Roll
from evo_ledger.rules.evo2.reading import Evo2Reading
from evo_ledger.settings import LOCK_TIMEOUT_SECONDS, Settings
from evo_ledger.store.packed import PackedPostgresRecorder
from projections import queries
from projections.readmodel import ReadModel
from projections.runner import Projector, ServerGone, rebuild, wait_until
from projections.schema import GAMES, POSITIONS, TURN_ORDER, column_values, read_tables, tables
from projections.stats import FAIR, LOADED, NOT_ENOUGH_DATA, DieFit, die_fit
from projections.store import ReadStore, read_tables_file
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database
from tests.helpers.shown import shown
from tests.helpers.support import ROOT, child_env, game_whose_seats_share_a_player, log_position

BIDS, COMBATS = tables()["read_bids"], tables()["read_combats"]
EVO2_STATISTICS = Evo2Reading.statistics
# The event of a game whose seats share a player that the read tables cannot apply, and the errors it raises there.
UNAPPLIED_EVENT = 3
DUPLICATE_KEY = ("IntegrityError", "UniqueViolation")
HAND_GAME = ROOT / "replays" / "hand-3p-first-game.evo"
KILLED_PAGE = 5  # events a page of a runner killed at random points


@pytest.fixture
def store(ledger: Ledger) -> Iterator[ReadStore]:
    read_store = ReadStore(ledger.settings)
    yield read_store
    read_store.close()


def counts(store: ReadStore) -> dict[str, int]:
    with store.engine.connect() as connection:
        return {t.name: connection.execute(select(func.count()).select_from(t)).scalar_one() for t in read_tables()}


def dump(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every read table's rows in key order, and the position."""
    with store.engine.connect() as connection:
        tables = {
            t.name: [tuple(row) for row in connection.execute(select(t).order_by(*t.primary_key.columns))]
            for t in read_tables()
        }
    return {**tables, "position": [(store.position(),)]}


def import_hand_game(ledger: Ledger) -> str:
    return str(import_notation(ledger, HAND_GAME.read_text(), HAND_GAME.parent).game_id)


def lines_of(pattern: str) -> int:
    return sum(1 for line in parse_game(HAND_GAME.read_text()).actions if re.match(pattern, line.text))


def test_the_hand_made_game_fills_every_table_with_the_counts_its_comments_give(
    ledger: Ledger, store: ReadStore
) -> None:
    game_id = import_hand_game(ledger)
    Projector(ledger, store).catch_up()
    assert (lines_of(r"\w+ bid "), lines_of(r"roll "), lines_of(r"\w+ birth ")) == (44, 3, 44)
    assert counts(store) == {
        "read_games": 1,
        "read_game_players": 3,
        "read_round_standings": 9 * 3,  # rounds 1 to 9 end with MP awarded; the meteorite ends round 10 at once
        "read_final_standings": 3,
        "read_results": 3,
        "read_bids": lines_of(r"\w+ bid "),
        "read_genes_offered": 18,  # 19 drawn, the second thermoregulation of round 3 set aside
        "read_auction_results": 9 * 3,
        "read_combats": 3,  # rounds 6 (twice) and 8
        "read_die_rolls": lines_of(r"roll "),
        "read_births": lines_of(r"\w+ birth "),
        "read_survival_losses": 37,
        "read_climate": 9,  # the meteorite moves no wheel
        "read_ratings": 3,  # a rating for each of the three players
        "read_ratings_now": 3,
        "read_people": 0,  # no person has a record of their own: each stable id is its own person
        "read_person_seats": 0,
        "read_competitions": 0,
        "read_competition_games": 0,
        "read_turn_order": 10 * 3,  # the draw before round 1, then each of rounds 1 to 9's auctions
        **{
            table: 0
            for table in (
                "read_e1_final",
                "read_e1_turn_standings",
                "read_e1_bids",
                "read_e1_auction_results",
                "read_e1_combats",
                "read_e1_die_rolls",
                "read_e1_cards_played",
                "read_tr_millennia",
                "read_tr_actions",
                "read_tr_traits_played",
                "read_tr_extinctions",
            )
        },  # other rulesets' tables
    }
    with store.engine.connect() as connection:
        standings = queries.game_report(connection, game_id, "evo2", "standings")
        history = queries.game_report(connection, game_id, "evo2", "auctions")
        summary = queries.game_summaries(connection)
        losses = queries.ruleset_statistic(connection, EVO2_STATISTICS["survival"])
    assert [(s["rank"], s["name"], s["mp"], s["dinosaurs"]) for s in standings["final"]] == [
        (1, "ann", 19, 4),
        (2, "cat", 14, 3),
        (3, "ben", 13, 4),
    ]
    after_round_one = [(s["name"], s["mp"], s["dinosaurs"]) for s in standings["rounds"] if s["round"] == 1]
    assert sorted(after_round_one) == [("ann", 7, 2), ("ben", 5, 2), ("cat", 8, 2)]
    round_two = [
        (b["name"], b["amount"], b["target"], b["forced"], b["outbid_player"])
        for b in history["bids"]
        if b["round"] == 2
    ]
    assert round_two == [
        ("cat", 2, "horns", False, None),
        ("ann", 3, "horns", False, "cat"),
        ("cat", 1, "fur", True, None),  # cat rebids at once, in another column
        ("ben", 2, "fur", False, "cat"),
        ("cat", 4, "horns", True, "ann"),
        ("ann", 0, "card", True, None),
    ]
    vial = [r for r in history["results"] if r["round"] == 4 and r["name"] == "ann"]
    assert vial == [
        {
            "event": vial[0]["event"],
            "round": 4,
            "player_id": vial[0]["player_id"],
            "name": "ann",
            "lab_column": 2,
            "item": "eggs",
            "bid": 4,
            "paid": 3,
        }
    ]
    assert summary[0] | {"started_at": None, "ended_at": None} == {
        "game_id": game_id,
        "ruleset": "evo2",
        "players": 3,
        "status": "over",
        "started_at": None,
        "ended_at": None,
        "rounds": 10,
        "events": 286,
        "actions": 186,
    }
    hot_without_thermo = [row for row in losses if row["zone"] == "hot" and row["protecting_layers"] == 0]
    assert sum(row["losses"] for row in losses) == 37
    # Hot-zone losses of players holding no thermoregulation: rounds 1 (4), 3 (cat 2, ann 2), 4, 5, 8 (cat 2), 9.
    assert sum(row["losses"] for row in hot_without_thermo) == 13


def test_combats_are_counted_by_horn_difference_against_the_die_E2_09(ledger: Ledger, store: ReadStore) -> None:
    import_hand_game(ledger)
    Projector(ledger, store).catch_up()
    with store.engine.connect() as connection:
        odds = queries.ruleset_statistic(connection, EVO2_STATISTICS["combats"])
    assert [(o["difference"], o["combats"], o["attacker_wins"], o["expected_win_rate"]) for o in odds] == [
        (-1, 1, 0, 1 / 6),
        (1, 1, 1, 4 / 6),
        (2, 1, 1, 5 / 6),
    ]


def hand_actions_up_to_first_roll() -> list[str]:
    actions = [line.text for line in parse_game(HAND_GAME.read_text()).actions]
    return actions[: actions.index("roll horn+") + 1]


def test_an_undone_roll_is_counted_apart_and_what_followed_from_it_is_left_out(
    ledger: Ledger, store: ReadStore
) -> None:
    started = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    ledger.commands.record(started.game_id, hand_actions_up_to_first_roll())
    ledger.commands.undo(started.game_id, 1, "the die fell off the table")
    ledger.commands.record(started.game_id, "roll x")
    Projector(ledger, store).catch_up()
    with store.engine.connect() as connection:
        dice = queries.die_faces(connection, "evo2", game_id=str(started.game_id))
        odds = queries.ruleset_statistic(connection, EVO2_STATISTICS["combats"])
        undone_combats = connection.execute(select(func.count()).where(COMBATS.c.undone)).scalar_one()
    assert dice["by_purpose"] == {"combat": {"horn": 0, "horn=": 0, "horn+": 0, "horn++": 0, "x": 1}}
    assert dice["undone"] == {"horn": 0, "horn=": 0, "horn+": 1, "horn++": 0, "x": 0}
    assert dice["fit"]["verdict"] == NOT_ENOUGH_DATA and dice["fit"]["chi_square"] is None
    assert [(o["difference"], o["combats"], o["attacker_wins"]) for o in odds] == [(1, 1, 0)]
    assert undone_combats == 1


def test_a_corrected_bid_is_replaced_in_the_auction_history(ledger: Ledger, store: ReadStore) -> None:
    started = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    ledger.commands.record(
        started.game_id, ["order ann ben cat", "climate cw", "draw legs", "draw eggs", "ann bid 2 eggs"]
    )
    ledger.commands.correct(started.game_id, "ann bid 1 legs", "she pointed at legs")
    ledger.commands.record(started.game_id, "ben bid 3 eggs")
    Projector(ledger, store).catch_up()
    with store.engine.connect() as connection:
        bids = queries.game_report(connection, str(started.game_id), "evo2", "auctions")["bids"]
        every_bid = connection.execute(select(func.count()).select_from(BIDS)).scalar_one()
    assert [(shown(ledger, b["name"]), b["amount"], b["target"], b["outbid_player"]) for b in bids] == [
        ("ann", 1, "legs", None),
        ("ben", 3, "eggs", None),
    ]
    assert every_bid == 3  # the mistaken bid stays, marked undone


def loaded_roll(self: Any) -> Roll:
    return Roll(self.rng.choice(("horn++", "horn++", "horn++", "x", "x", "horn")))


def test_a_fair_die_is_not_flagged_and_a_loaded_one_is(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    fair = [ledger.commands.generate_game(4, seed=seed, ruleset="evo2").game_id for seed in range(6)]
    monkeypatch.setattr(selfplay.Table, "roll", loaded_roll)
    loaded = [ledger.commands.generate_game(4, seed=seed, ruleset="evo2").game_id for seed in range(6)]
    Projector(ledger, store).catch_up()
    with store.engine.connect() as connection:
        fits = {
            kind: [queries.die_faces(connection, "evo2", game_id=str(g))["by_purpose"] for g in games]
            for kind, games in (("fair", fair), ("loaded", loaded))
        }
        overall = queries.die_faces(connection, "evo2")
    fair_fit, loaded_fit = (die_fit_of(faces) for faces in fits.values())
    assert fair_fit.rolls >= 60 and loaded_fit.rolls >= 60
    assert fair_fit.verdict == FAIR and fair_fit.p_value is not None and fair_fit.p_value > 0.05
    assert loaded_fit.verdict == LOADED and loaded_fit.p_value is not None and loaded_fit.p_value < 1e-6
    assert overall["fit"]["rolls"] == fair_fit.rolls + loaded_fit.rolls and overall["fit"]["flagged"]
    purposes = {purpose for game in fits["fair"] for purpose in game}
    assert purposes == {"combat", "killer_baby"}  # killer-baby rolls are kept apart from combat rolls


def die_fit_of(games: list[dict[str, dict[str, int]]]) -> DieFit:
    total = Counter[str]()
    for game in games:
        for faces in game.values():
            total.update(faces)
    return die_fit(total, dict(Counter(column_values("read_die_rolls", "face"))))


def test_a_runner_killed_at_random_points_ends_with_the_tables_of_a_rebuild(
    ledger: Ledger, store: ReadStore, tmp_path: Path
) -> None:
    """Long by design: sixteen self-played games give the log enough pages for three kills to fall at random points
    in it; each killed runner and the one that finishes start as processes of their own, and the tables are then
    rebuilt from the log to be compared."""
    for seed in range(16):
        ledger.commands.generate_game(4, seed=seed, ruleset="evo2")
    import_hand_game(ledger)
    last = ledger.store.recorder.max_notification_id() or 0
    rng = random.Random(8)
    killed_at = []
    for _ in range(3):
        # pages of 5 events, and the process killed as it is about to commit a page drawn from the seed
        killed_at.append(run_and_kill(ledger.settings, store, rng.randrange(1, 400)))
    assert all(0 < position < last for position in killed_at) and killed_at == sorted(killed_at), killed_at
    finished = subprocess.run(
        project_command(ledger.settings), check=False, capture_output=True, text=True, env=child_env()
    )
    assert finished.returncode == 0, finished.stderr
    assert store.position() == last
    caught_up = dump(store)
    rebuild(ledger, store)
    assert dump(store) == caught_up


def project_command(settings: Settings, page: int = 20) -> list[str]:
    return [
        sys.executable,
        "-m",
        "evo_ledger",
        "project",
        "--database",
        settings.database,
        "--page",
        str(page),
    ]


def run_and_kill(settings: Settings, store: ReadStore, pages: int) -> int:
    """A runner in a process of its own, killed (SIGKILL) with the rows of its `pages`-th page written and not yet
    committed; the position it left."""
    process = multiprocessing.get_context("fork").Process(target=project_until_killed, args=(settings, pages))
    process.start()
    process.join(timeout=120)
    assert process.exitcode == -signal.SIGKILL, process.exitcode
    return store.position()


def project_until_killed(settings: Settings, pages: int) -> None:
    finish, written = ReadModel.finish, [0]

    def finish_then_die(self: ReadModel, batch: Any) -> None:
        finish(self, batch)
        written[0] += 1
        if written[0] == pages:
            os.kill(os.getpid(), signal.SIGKILL)

    ReadModel.finish = finish_then_die  # type: ignore[method-assign]
    with Ledger(settings) as ledger:
        Projector(ledger, ReadStore(settings), page=KILLED_PAGE).catch_up()


def test_each_game_of_one_transaction_has_its_own_row_written(ledger: Ledger, store: ReadStore) -> None:
    games = [ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id for _ in range(3)]
    lines = [line.text for line in parse_game(HAND_GAME.read_text()).actions]
    for count, game_id in enumerate(games, start=1):
        ledger.commands.record(game_id, lines[: 10 * count])
    Projector(ledger, store).catch_up()  # every event of the three games in one page
    with store.engine.connect() as connection:
        written = {row.game_id: row.actions for row in connection.execute(select(GAMES.c.game_id, GAMES.c.actions))}
    assert written == {str(game_id): 10 * count for count, game_id in enumerate(games, start=1)}


def test_redelivered_events_change_nothing(ledger: Ledger, store: ReadStore) -> None:
    game_id = import_hand_game(ledger)
    projector = Projector(ledger, store)
    projector.catch_up()
    before = dump(store)
    [started] = ledger.queries.game_events(UUID(game_id), up_to=1)
    projector.apply_events([(started, 1)])  # the first event again, as a subscription may deliver it
    stale = Projector(ledger, store)
    stale.position = 0  # a second runner that read the position before the first moved it
    stale.catch_up()
    assert dump(store) == before
    assert stale.position == before["position"][0][0]


@contextmanager
def following(ledger: Ledger, store: ReadStore) -> Iterator[None]:
    """A runner following the log in a thread while the block runs; it stops after it."""
    stop = threading.Event()
    follower = threading.Thread(target=Projector(ledger, store).follow, args=(stop,), kwargs={"poll_seconds": 0.05})
    follower.start()
    try:
        yield
    finally:
        stop.set()
        follower.join(timeout=20)
    assert not follower.is_alive()


def test_following_the_log_applies_events_as_they_are_stored(ledger: Ledger, store: ReadStore) -> None:
    with following(ledger, store):
        game_id = import_hand_game(ledger)
        assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=20)
        with store.engine.connect() as connection:
            assert queries.game_report(connection, game_id, "evo2", "standings")["final"][0]["name"] == "ann"


def test_an_event_the_tables_cannot_apply_is_set_aside_and_the_games_after_it_are_applied(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    earlier = str(ledger.commands.generate_game(3, seed=1, ruleset="evo2").game_id)
    broken = game_whose_seats_share_a_player(ledger, monkeypatch)
    later = import_hand_game(ledger)
    projector = Projector(ledger, store)
    with caplog.at_level(logging.ERROR):
        projector.catch_up()
    assert store.position() == ledger.store.recorder.max_notification_id()
    [set_aside] = store.set_aside()
    position = log_position(ledger, broken, UNAPPLIED_EVENT)
    assert (set_aside.game_id, set_aside.event, set_aside.position) == (broken, UNAPPLIED_EVENT, position)
    assert set_aside.error in DUPLICATE_KEY
    assert projector.events_set_aside == 1 and store.set_aside_count() == 1
    [logged] = [r.getMessage() for r in caplog.records if r.name == "projections.runner"]
    assert f"event {UNAPPLIED_EVENT} of game {broken}, at position {position} of the log" in logged
    with store.engine.connect() as connection:
        events = {row.game_id: row.events for row in connection.execute(select(GAMES.c.game_id, GAMES.c.events))}
        assert queries.game_report(connection, later, "evo2", "standings")["final"][0]["name"] == "ann"
    assert events[broken] == ledger.queries.game(UUID(broken)).version  # its events after the one set aside are applied
    assert events[earlier] == ledger.queries.game(UUID(earlier)).version
    caught_up = dump(store)
    rebuild(ledger, store)
    assert dump(store) == caught_up and store.set_aside() == [set_aside]


def test_a_runner_killed_around_an_event_it_sets_aside_ends_with_the_tables_of_a_rebuild(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed as it writes each transaction from the page before the event's to the one after it: the page that
    fails, each event of it alone, and the one that sets the event aside."""
    ledger.commands.generate_game(3, seed=2, ruleset="evo2")
    broken = game_whose_seats_share_a_player(ledger, monkeypatch)
    import_hand_game(ledger)
    position = log_position(ledger, broken, UNAPPLIED_EVENT)
    killed_at = [run_and_kill(ledger.settings, store, (position - 1) // KILLED_PAGE)]
    while killed_at[-1] < position:
        killed_at.append(run_and_kill(ledger.settings, store, 2))  # one transaction committed, the next killed
    # The last run committed the transaction that sets the event aside: the one before was killed writing it.
    assert killed_at[-2] < position == killed_at[-1] and len(store.set_aside()) == 1, killed_at
    finished = subprocess.run(
        project_command(ledger.settings), check=False, capture_output=True, text=True, env=child_env()
    )
    assert finished.returncode == 0, finished.stderr
    assert store.position() == ledger.store.recorder.max_notification_id()
    caught_up, set_aside = dump(store), store.set_aside()
    assert [(s.game_id, s.event) for s in set_aside] == [(broken, UNAPPLIED_EVENT)]
    rebuild(ledger, store)
    assert dump(store) == caught_up and store.set_aside() == set_aside


def test_events_delivered_live_are_set_aside_as_those_read_from_the_log(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = game_whose_seats_share_a_player(ledger, monkeypatch)
    later = import_hand_game(ledger)
    notifications = ledger.store.recorder.select_notifications(start=1, limit=10_000)
    delivered = [(ledger.store.mapper.to_domain_event(n), n.id) for n in notifications]
    projector = Projector(ledger, store)
    for start in range(0, len(delivered), 50):
        projector.apply_events(delivered[: start + 50])  # what was delivered already is delivered again
    assert store.position() == delivered[-1][1]
    assert [(s.game_id, s.event) for s in store.set_aside()] == [(broken, UNAPPLIED_EVENT)]
    with store.engine.connect() as connection:
        assert queries.game_report(connection, later, "evo2", "standings")["final"][0]["name"] == "ann"
    live, set_aside = dump(store), store.set_aside()
    rebuild(ledger, store)
    assert dump(store) == live and store.set_aside() == set_aside


def test_following_the_log_sets_aside_an_event_it_cannot_apply_and_goes_on(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL, the events stored once the follower caught up are delivered by the library's runner."""
    with following(ledger, store):
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=20)
        broken = game_whose_seats_share_a_player(ledger, monkeypatch)
        later = import_hand_game(ledger)
        assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=20)
        assert [(s.game_id, s.event) for s in store.set_aside()] == [(broken, UNAPPLIED_EVENT)]
        with store.engine.connect() as connection:
            assert queries.game_report(connection, later, "evo2", "standings")["final"][0]["name"] == "ann"


def test_the_project_command_says_which_events_it_set_aside(
    ledger: Ledger, store: ReadStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = game_whose_seats_share_a_player(ledger, monkeypatch)
    position = log_position(ledger, broken, UNAPPLIED_EVENT)
    assert main(["project", "--database", ledger.settings.database]) == 0
    [set_aside] = store.set_aside()
    out = capsys.readouterr().out
    assert "events set aside (they cannot be applied): 1\n" in out
    assert f"event {UNAPPLIED_EVENT} of game {broken}, at position {position} of the log ({set_aside.error})" in out


def test_on_sqlite_a_nudge_from_the_server_wakes_the_runner_between_polls(tmp_path: Path) -> None:
    """The server nudges its runner after each append: the runner reads the log at once, not an hour later, and
    goes on following until the server's end of the pipe is closed."""
    settings = Settings(str(tmp_path / "games.sqlite"))
    ledger, store = Ledger(settings), ReadStore(settings)
    runner_end, server_end = multiprocessing.Pipe(duplex=False)
    follower = threading.Thread(
        target=Projector(ledger, store).follow, args=(ServerGone(runner_end),), kwargs={"poll_seconds": 3600}
    )
    follower.start()
    try:
        game_id = UUID(import_hand_game(ledger))
        for appended in range(2):
            if appended:
                ledger.commands.annotate(game_id, 2, "a note")
            server_end.send_bytes(b"")
            assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=30)
    finally:
        server_end.close()
        follower.join(timeout=30)
        store.close()
        ledger.close()
    assert not follower.is_alive()


def test_the_project_command_catches_up_rebuilds_and_names_what_it_cannot_use(
    ledger: Ledger, store: ReadStore, capsys: pytest.CaptureFixture[str]
) -> None:
    import_hand_game(ledger)
    last = ledger.store.recorder.max_notification_id()
    assert main(["project", "--database", ledger.settings.database]) == 0
    assert capsys.readouterr().out.startswith(f"read tables at event {last} of the log: {last} events applied")
    caught_up = dump(store)
    assert main(["project", "--database", ledger.settings.database]) == 0
    assert f"{last} of the log: 0 events applied" in capsys.readouterr().out
    assert main(["project", "--rebuild", "--database", ledger.settings.database]) == 0
    assert dump(store) == caught_up
    assert main(["project", "--page", "0", "--database", ledger.settings.database]) == 2
    assert "--page holds at least one event, not 0" in capsys.readouterr().err
    assert main(["project", "--database", "postgresql://127.0.0.1"]) == 2
    assert "a PostgreSQL URL needs a host and a database name" in capsys.readouterr().err


def test_writing_the_read_tables_of_a_sqlite_ledger_never_holds_the_ledgers_write_lock(tmp_path: Path) -> None:
    settings = Settings(str(tmp_path / "games.sqlite"))
    ledger, store = Ledger(settings), ReadStore(settings)
    receipt = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    assert Path(read_tables_file(settings.database)) == tmp_path / "games.read.sqlite"
    with store.writing.begin() as held:  # BEGIN IMMEDIATE: the read tables' write lock, as a page being written
        held.execute(select(func.count()).select_from(BIDS))
        started = time.monotonic()
        receipt = ledger.commands.record(receipt.game_id, "order ann ben cat", expected_version=receipt.version)
        assert time.monotonic() - started < 1.0  # in the ledger's own file it waited for the lock
    rebuild(ledger, store)
    assert store.position() == ledger.store.recorder.max_notification_id()
    store.close()
    ledger.close()


def test_read_tables_written_by_another_version_are_built_again_and_say_ongoing(
    ledger: Ledger, store: ReadStore
) -> None:
    game = ledger.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, "order ann ben cat")
    Projector(ledger, store).catch_up()
    with store.writing.begin() as connection:
        assert connection.execute(select(GAMES.c.status)).scalar_one() == "ongoing"
        # As an earlier version left them: its rows said `playing`, under its name for the position.
        connection.execute(update(GAMES).values(status="playing"))
        connection.execute(update(POSITIONS).values(projection="read_tables"))
    again = ReadStore(store.settings)
    try:
        assert again.position() == 0 and counts(again)["read_games"] == 0
        Projector(ledger, again).catch_up()
        with again.engine.connect() as connection:
            assert connection.execute(select(GAMES.c.status)).scalar_one() == "ongoing"
    finally:
        again.close()


def test_a_read_table_added_since_the_log_was_followed_has_the_tables_built_again(
    ledger: Ledger, store: ReadStore
) -> None:
    game = ledger.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, "order ann ben cat")
    Projector(ledger, store).catch_up()
    assert counts(store)["read_turn_order"] == 3
    TURN_ORDER.drop(store.engine)  # as a version before the table was written left them
    again = ReadStore(store.settings)
    try:
        assert again.position() == 0 and counts(again)["read_games"] == 0
        Projector(ledger, again).catch_up()
        assert counts(again)["read_turn_order"] == 3
    finally:
        again.close()


def test_reading_the_read_tables_of_a_sqlite_ledger_takes_no_lock_while_a_page_is_written(tmp_path: Path) -> None:
    settings = Settings(str(tmp_path / "games.sqlite"))
    store = ReadStore(settings)
    try:
        with store.advancing(store.position()) as advance:  # a page being written holds the write lock
            advance.connection.execute(select(func.count()).select_from(BIDS))
            started = time.monotonic()
            assert store.position() == 0  # a reader sees the last commit, and waits for no lock
            with store.engine.connect() as reading:
                assert reading.execute(select(func.count()).select_from(BIDS)).scalar_one() == 0
            assert time.monotonic() - started < LOCK_TIMEOUT_SECONDS
    finally:
        store.close()


@ON_POSTGRES
def test_on_postgres_events_whose_notification_the_follower_missed_are_followed() -> None:
    """The library's subscription reads the log once before it listens for appends' notifications, so an append
    committed between the two sends a notification nobody hears. Rows stored with no notification at all, once the
    follower listens and has read the log, stand for it: the follower looks at the log's end and reads them."""
    with fresh_postgres_database() as url:
        ledger = Ledger(Settings(url))
        store = ReadStore(ledger.settings)
        try:
            game = ledger.commands.generate_game(3, seed=1, ruleset="evo2").game_id
            with following(ledger, store), psycopg.connect(url, autocommit=True) as connection:
                assert listening(connection), "the follower never listened for notifications"
                ledger.commands.generate_game(3, seed=2, ruleset="evo2")  # notified: read once the first read is done
                assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=20)
                copy_without_notification(connection, ledger.store.recorder, game)
                assert wait_until(store, ledger.store.recorder.max_notification_id() or 0, timeout=20)
        finally:
            store.close()
            ledger.close()


def listening(connection: psycopg.Connection[Any]) -> bool:
    """Whether a session of this database has asked to hear notifications, within 20 seconds."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        row = connection.execute(query).fetchone()
        if row is not None and row[0]:
            return True
        time.sleep(0.05)
    return False


def copy_without_notification(connection: psycopg.Connection[Any], recorder: object, game: UUID) -> None:
    """The game's events stored again as another game's, after the log's last, by a statement that notifies no
    one."""
    assert isinstance(recorder, PackedPostgresRecorder)
    copied = connection.execute(
        sql.SQL(
            "INSERT INTO {0} (last_notification_id, last_version, originator_id, events, body) "
            "SELECT (SELECT max(last_notification_id) FROM {0}) + sum(events) OVER (ORDER BY last_version), "
            "last_version, %s, events, body FROM {0} WHERE originator_id = %s"
        ).format(sql.Identifier(recorder.runs_table_name)),
        (uuid.uuid4(), game),
    )
    assert copied.rowcount > 0
