"""`evo-ledger dataset`: the ledger as Parquet files, read back with DuckDB. The documented queries over the files
count the win rates by seat and season as the service's statistics do, and the ratings' file is the ratings' read
table row for row; a run with `--since` writes only what is new, and writes a partition again where its rows no
longer stand; an erased person has no name anywhere in the files; a hidden value swapped changes nothing in them;
a folder that cannot hold the dataset is refused in a line, as are a manifest naming what the dataset never writes,
another ledger's dataset, a run while another writes into the folder and a symbolic link where the dataset writes;
the analyst's own files in the folder are left alone, and a run stopped partway leaves the files read as before."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from evo_ledger.app.competitions import Organiser, Placement
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK
from evo_ledger.cli.main import main
from evo_ledger.game.labels import is_label
from evo_ledger.settings import Settings
from projections import outcomes
from projections.competitions import standings
from projections.dataset import DatasetRefused, Mode, Progress, Summary, no_progress, write_dataset
from projections.dataset_files import STAGING, Files, held_lock
from projections.schema import RATINGS
from projections.store import ReadStore
from tests.helpers.hidden import set_aside
from tests.helpers.shown import shown, shown_value
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION

SECTION = (ROOT / "docs" / "projections.md").read_text().split("\n## The dataset\n", 1)[1].split("\n## ", 1)[0]
VIEWS, WIN_RATES, PERSON_GAMES, STANDINGS, *OTHERS = re.findall(r"```sql\n(.*?)```", SECTION, flags=re.DOTALL)
REPLAYS = sorted((ROOT / "replays").glob("*.evo"))
EVO2 = "standin-e2-3p"
RULESETS = ("evo1", "evo2", "traits")


def written(ledger: Ledger, folder: Path, mode: Mode = "new", progress: Progress = no_progress) -> Summary:
    store = ReadStore(ledger.settings)
    try:
        return write_dataset(ledger, store, folder, mode, progress)
    finally:
        store.close()


def import_replays(ledger: Ledger, *names: str) -> list[UUID]:
    paths = [path for path in REPLAYS if not names or path.name in names]
    return [import_notation(ledger, path.read_text(), path.parent).game_id for path in paths]


@pytest.fixture
def duck(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[duckdb.DuckDBPyConnection]:
    """DuckDB started in the dataset's folder (`tmp_path/analysis`), as the documentation starts it."""
    (tmp_path / "analysis").mkdir()
    monkeypatch.chdir(tmp_path / "analysis")
    with duckdb.connect() as connection:
        yield connection


def rows(connection: duckdb.DuckDBPyConnection, query: str) -> list[dict[str, Any]]:
    found = connection.execute(query)
    names = [column[0] for column in found.description or ()]
    return [dict(zip(names, row, strict=True)) for row in found.fetchall()]


def events_in(folder: Path) -> list[dict[str, Any]]:
    with duckdb.connect() as connection:
        pattern = str(folder / "events" / "*" / "*" / "*.parquet")
        return rows(connection, f"SELECT * FROM read_parquet('{pattern}', hive_partitioning = true)")


def parts(folder: Path, name: str = "events") -> dict[str, bytes]:
    """Each part of a partitioned file, by its path from the folder, with its bytes."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in (folder / name).rglob("*.parquet")}


def test_the_documented_queries_count_as_the_service_does_and_the_ratings_are_its_read_table(
    ledger: Ledger, tmp_path: Path, duck: duckdb.DuckDBPyConnection
) -> None:
    import_replays(ledger)
    opened = ledger.competitions.open("season", "Autumn league", "2026")
    league = opened.competition.id
    for game in import_replays(ledger, "hand-3p-first-game.evo", "selfplay-3p-seed10.evo"):
        ledger.competitions.add_game(league, game, Placement(1), Organiser(opened.token))
    summary = written(ledger, tmp_path / "analysis")
    assert summary.whole and summary.games == len(REPLAYS)

    duck.execute(VIEWS)
    store = ReadStore(ledger.settings)
    try:
        with store.engine.connect() as connection:
            expected_seats = {
                ruleset: outcomes.seat_wins(connection, ruleset) for ruleset in ("evo1", "evo2", "traits")
            }
            ratings = [dict(row) for row in connection.execute(select(RATINGS)).mappings()]
            scoring, render = opened.competition.scoring, ledger.store.personal.render
            expected_standings = standings(connection, str(league), scoring, shown=render)
    finally:
        store.close()

    win_rates = rows(duck, WIN_RATES)
    assert {row["season"] for row in win_rates} == {str(summary_year(duck))}
    for ruleset, expected in expected_seats.items():
        found = [row for row in win_rates if row["ruleset"] == ruleset]
        assert expected and [(r["players"], r["seat"], r["games"], r["wins"]) for r in found] == [
            (r["players"], r["seat"], r["games"], r["wins"]) for r in expected
        ]
        assert [r["win_rate"] for r in found] == pytest.approx([r["win_rate"] for r in expected])

    in_files = rows(duck, "SELECT * EXCLUDE (month) FROM ratings")
    key = ("ruleset", "game_id", "person_id")
    assert sorted(in_files, key=lambda row: [row[k] for k in key]) == sorted(
        ({**row, "name": shown(ledger, row["name"])} for row in ratings), key=lambda row: [row[k] for k in key]
    )
    assert len(in_files) > 20

    anns = {str(game.id) for game in map(ledger.queries.game, ledger.queries.game_ids()) if sat(ledger, game, "ann")}
    assert {row["game_id"] for row in rows(duck, PERSON_GAMES)} == anns

    league_rows = rows(duck, STANDINGS)
    assert [(row["place"], row["name"], row["games"], row["wins"], row["points"]) for row in league_rows] == [
        (row["place"], shown(ledger, row["name"]), row["games"], row["wins"], row["points"])
        for row in expected_standings
    ]
    assert league_rows and {row["season"] for row in league_rows} == {"2026"}
    for query in OTHERS:
        for statement in query.split(";\n\n"):
            assert duck.execute(statement).fetchall(), statement


def summary_year(duck: duckdb.DuckDBPyConnection) -> str:
    [(started,)] = duck.execute("SELECT DISTINCT left(started_at, 4) FROM games").fetchall()
    return str(started)


def sat(ledger: Ledger, game: Any, handle: str) -> bool:
    return handle in [shown(ledger, name) for name in game.player_names]


def test_a_run_since_the_last_writes_only_the_new_events_and_a_partition_again_where_a_game_left_it(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    ongoing = ledger.commands.create_game(None, EVO2, ["ann", "ben", "cat"]).game_id
    before = ledger.commands.record(ongoing, list(ROUND_ONE_AUCTION[:4])).version
    [traits] = import_replays(ledger, "traits-hand-2p.evo")
    written(ledger, folder)
    first = parts(folder)
    [evo2_part] = [name for name in first if "ruleset=evo2" in name]

    ledger.commands.record(ongoing, list(ROUND_ONE_AUCTION[4:]))
    started = ledger.commands.create_game(None, EVO2, ["dan", "eve", "fay"]).game_id
    summary = written(ledger, folder, "since")
    second = parts(folder)

    assert not summary.whole and summary.games_written == 2 and summary.partitions_rewritten == 0
    assert {name: second[name] for name in first} == first, "the parts written before are as they were"
    [added] = set(second) - set(first)
    assert added == evo2_part.replace("part-00001", "part-00002")
    new_rows = pq.read_table(folder / added).to_pylist()
    assert sorted((row["game_id"], row["event"]) for row in new_rows) == sorted(
        [*versions(ledger, ongoing, after=before), *versions(ledger, started)]
    )
    every = events_in(folder)
    assert sorted((row["game_id"], row["event"]) for row in every) == sorted(
        pair for game in (ongoing, started, traits) for pair in versions(ledger, game)
    )

    ledger.commands.change_access(started, lambda access: access.set_private(True))
    summary = written(ledger, folder, "since")
    third = parts(folder)
    assert summary.partitions_rewritten == 1 and summary.games == 2
    assert {name for name in third if "ruleset=evo2" in name} == {evo2_part.replace("part-00001", "part-00003")}
    assert {name: data for name, data in third.items() if "ruleset=traits" in name} == {
        name: data for name, data in first.items() if "ruleset=traits" in name
    }
    assert str(started) not in {row["game_id"] for row in events_in(folder)}
    assert len(events_in(folder)) == len(every) - 1
    names = {row["name"] for row in pq.read_table(folder / "people.parquet").to_pylist()}
    assert {"ann", "ben", "cat"} <= names and not names & {"dan", "eve", "fay"}


def versions(ledger: Ledger, game: UUID, after: int = 0) -> list[tuple[str, int]]:
    """Each of the game's events after event `after`, as the dataset keys it."""
    return [(str(game), version) for version in range(after + 1, ledger.queries.game(game).version + 1)]


def test_a_hidden_action_revealed_since_the_last_run_is_written_again_as_every_reader_now_sees_it(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    lines = [line for line in REPLAYS[4].read_text().splitlines() if line and not line.startswith(("#", "result"))]
    assert REPLAYS[4].name == "evo1-selfplay-3p-seed5.evo"
    header, actions = lines[:3], lines[3:]
    game = import_notation(ledger, "\n".join([*header, *actions[:40]]) + "\n").game_id
    written(ledger, folder)
    before = events_in(folder)
    assert [row for row in before if row["hidden"]], "the cards drawn are hidden from every reader while it goes on"
    assert all("hidden until revealed" in row["fields"] for row in before if row["hidden"])

    ledger.commands.record(game, actions[40:])
    summary = written(ledger, folder, "since")
    after = events_in(folder)

    assert summary.partitions_rewritten == 1
    assert list(parts(folder)) == ["events/ruleset=evo1/month=" + after[0]["month"] + "/part-00002.parquet"]
    assert len(after) == ledger.queries.game(game).version and not [row for row in after if row["hidden"]]
    revealed = [json.loads(row["fields"])["notation"] for row in after if row["event"] in hidden_events(before)]
    assert revealed and set(revealed) <= set(actions[:40])


def hidden_events(found: list[dict[str, Any]]) -> set[int]:
    return {row["event"] for row in found if row["hidden"]}


def every_value(folder: Path) -> Iterator[Any]:
    for path in sorted(folder.rglob("*.parquet")):
        for row in pq.read_table(path).to_pylist():
            yield from row.values()


def test_an_erased_person_is_in_the_files_with_no_name_and_their_seats_as_labels(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    game = ledger.commands.create_game(None, EVO2, [("zorqa", "zq-1"), "ben", "cat"]).game_id
    ledger.commands.record(game, ["order zorqa ben cat", "climate cw"])
    person = ledger.people.register("Zorqa Quill", ["zq-1"])
    written(ledger, folder)
    people = {row["person_id"]: row for row in pq.read_table(folder / "people.parquet").to_pylist()}
    assert people[person.person_id]["name"] == "Zorqa Quill"
    assert any("zorqa" in str(value) for value in every_value(folder))

    ledger.people.erase(person.person_id)
    summary = written(ledger, folder, "since")

    assert summary.whole
    people = {row["person_id"]: row for row in pq.read_table(folder / "people.parquet").to_pylist()}
    assert people[person.person_id] | {"games": 1} == {
        "person_id": person.person_id,
        "name": None,
        "erased": True,
        "recorded": True,
        "games": 1,
    }
    assert not [value for value in every_value(folder) if "zorqa" in str(value).casefold()]
    seats = pq.read_table(next((folder / "read_game_players").rglob("*.parquet"))).to_pylist()
    assert is_label(seats[0]["name"]) and [row["name"] for row in seats[1:]] == ["ben", "cat"]
    assert "zorqa" not in (folder / "README.md").read_text().casefold()


def file_contents(folder: Path) -> dict[str, str]:
    """Every file's rows, with ids, hashes, salts and times set aside, JSON cells read with their keys in order."""
    contents = {}
    for path in sorted(folder.rglob("*.parquet")):
        found = [{key: plain(value) for key, value in row.items()} for row in pq.read_table(path).to_pylist()]
        contents[path.relative_to(folder).as_posix()] = set_aside(json.dumps(sorted(found, key=str), sort_keys=True))
    return contents


def plain(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("{", "["):
        return json.dumps(json.loads(value), sort_keys=True)
    return value if isinstance(value, str | int | float | bool | None) else str(value)


def test_a_hidden_value_swapped_changes_nothing_in_the_files(tmp_path: Path) -> None:
    contents, stored = [], []
    for card in ("Heatwave", "Ambush"):
        with Ledger(Settings(str(tmp_path / f"{card}.sqlite"))) as ledger:
            players = [("ann", "ann@club"), ("ben", "ben@club"), ("cat", "cat@club")]
            game = ledger.commands.create_game(None, EVO2, players).game_id
            ledger.commands.record(game, [*ROUND_ONE_AUCTION, f"cat drew {card}", "cat pass"])
            written(ledger, tmp_path / card)
            events = ledger.queries.game_events(game)
            stored.append(shown_value(ledger, [getattr(event, "notation", None) for event in events]))
            contents.append(file_contents(tmp_path / card))

    assert stored[0] != stored[1], "the recorder sees the card each ledger holds"
    assert contents[0] == contents[1]
    assert '"hidden": true' in next(text for name, text in contents[0].items() if name.startswith("events/"))


@pytest.fixture
def database_file(tmp_path: Path) -> str:
    database = str(tmp_path / "games.sqlite")
    assert main(["new", "--kit", EVO2, "--players", "ann", "ben", "cat", "--database", database]) == EXIT_OK
    return database


def refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(argv) == EXIT_BAD_INPUT, argv
    [line] = capsys.readouterr().err.strip().splitlines()
    return line


def test_a_folder_that_cannot_hold_the_dataset_is_refused_in_a_line(
    database_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    on = ["--database", database_file]
    folder, a_file, other = tmp_path / "analysis", tmp_path / "notes.txt", tmp_path / "other"
    a_file.write_text("notes")
    other.mkdir()
    (other / "notes.txt").write_text("notes")

    assert refusal(["dataset", str(a_file), *on], capsys) == f"evo-ledger dataset: {a_file}: not a folder"
    below = a_file / "analysis"
    assert refusal(["dataset", str(below), *on], capsys) == (
        f"evo-ledger dataset: {below}: cannot be made: {a_file} is not a folder"
    )
    assert refusal(["dataset", str(other), *on], capsys) == (
        f"evo-ledger dataset: {other}: neither empty nor a dataset (no manifest.json): give a new or empty folder"
    )
    assert main(["dataset", str(folder), *on]) == EXIT_OK
    assert capsys.readouterr().out.startswith(f"dataset {folder} written whole: 1 game; 1 event of 1 game written;")
    assert refusal(["dataset", str(folder), *on], capsys) == (
        f"evo-ledger dataset: {folder}: holds a dataset already: --since adds what is new to it, --replace writes it "
        "again"
    )
    (folder / "manifest.json").write_text("{}")
    assert refusal(["dataset", str(folder), "--since", *on], capsys).startswith(
        f"evo-ledger dataset: {folder / 'manifest.json'}: not a dataset's manifest ("
    )
    assert main(["dataset", str(folder), "--replace", *on]) == EXIT_OK
    assert (folder / "README.md").is_file() and json.loads((folder / "manifest.json").read_text())["run"] == 1
    assert main(["dataset", str(folder), "--since", *on]) == EXIT_OK
    assert not [entry for entry in other.iterdir() if entry.name != "notes.txt"], "a refused folder is left as it was"


def test_a_folder_that_cannot_be_written_to_is_refused_in_a_line(
    database_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.geteuid() == 0:  # the superuser may write into any folder: asked as its owner would be, by its mode
        monkeypatch.setattr(os, "access", lambda path, mode: bool(os.stat(path).st_mode & 0o200))
    assert refusal(["dataset", str(locked), "--database", database_file], capsys) == (
        f"evo-ledger dataset: {locked}: not writable"
    )
    assert refusal(["dataset", str(locked / "analysis"), "--database", database_file], capsys) == (
        f"evo-ledger dataset: {locked / 'analysis'}: cannot be made: {locked} is not writable"
    )


def started(ledger: Ledger, actions: int = 2) -> UUID:
    """A game of evo2 started, with the first `actions` of its first round's auction recorded."""
    game = ledger.commands.create_game(None, EVO2, ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, list(ROUND_ONE_AUCTION[:actions]))
    return game


def every_event_once(ledger: Ledger, folder: Path, *games: UUID) -> bool:
    found = sorted((row["game_id"], row["event"]) for row in events_in(folder))
    return found == sorted(pair for game in games for pair in versions(ledger, game))


def test_a_manifest_naming_what_the_dataset_never_writes_is_refused_in_a_line_and_nothing_is_removed(
    database_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, victim = tmp_path / "analysis", tmp_path / "victim"
    victim.mkdir()
    (victim / "part-00001.parquet").write_text("mine")
    on = ["--database", database_file]
    assert main(["dataset", str(folder), *on]) == EXIT_OK
    manifest = json.loads((folder / "manifest.json").read_text())
    edits = {
        '`files` names "../victim/part-00001.parquet", not a file the dataset writes': {
            "files": [*manifest["files"], "../victim/part-00001.parquet"]
        },
        f"`files` names {json.dumps(str(victim))}, not a file the dataset writes": {
            "files": [*manifest["files"], str(victim)]
        },
        '`files` is "abc", not a list of the dataset\'s files': {"files": "abc"},
        "`run` is true, not a whole number from 1": {"run": True},
        "`log_position` is -1, not a whole number from 0": {"log_position": -1},
        "`ledger` is 5, not a ledger's identity": {"ledger": 5},
        '`games` names "game-1", not a game\'s id': {"games": {"game-1": ["evo2", "2026-01", 1, "d"]}},
    }
    for why, edit in edits.items():
        (folder / "manifest.json").write_text(json.dumps(manifest | edit))
        assert refusal(["dataset", str(folder), "--since", *on], capsys) == (
            f"evo-ledger dataset: {folder / 'manifest.json'}: not a dataset's manifest ({why}): --replace writes it "
            "again"
        )

    (victim / "events" / "ruleset=evo2").mkdir(parents=True)
    (folder / "events" / "ruleset=evo2").rename(victim / "events" / "ruleset=evo2")
    (folder / "events" / "ruleset=evo2").symlink_to(victim / "events" / "ruleset=evo2")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    assert refusal(["dataset", str(folder), "--since", *on], capsys).endswith(
        "which lies outside the folder): --replace writes it again"
    )
    [moved] = (victim / "events").rglob("*.parquet")
    with pytest.raises(DatasetRefused, match=re.escape(f"{folder / 'events' / 'ruleset=evo2'}: a symbolic link")):
        Files(folder).remove([moved.relative_to(victim).as_posix()])
    assert moved.is_file() and (victim / "part-00001.parquet").read_text() == "mine"


def test_the_analysts_files_in_the_folder_are_left_alone(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "analysis"
    game = started(ledger)
    written(ledger, folder)
    [part] = (folder / "events").rglob("*.parquet")
    spark = folder / "derived" / "win_rates" / "part-00000-1b2c-c000.snappy.parquet"
    nested = part.parent.parent / "month=2099-01"
    own = [spark, folder / "derived" / "part-00001.parquet", folder / "notes.unfinished", nested / "part-00009.parquet"]
    for path in own:
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(part, path)
    (nested / "manifest.json").write_text("{}")  # another dataset's folder: nothing in it is the dataset's

    ledger.commands.record(game, list(ROUND_ONE_AUCTION[2:4]))
    written(ledger, folder, "since")
    written(ledger, folder, "replace")

    assert all(path.is_file() for path in own)
    shutil.rmtree(nested)
    assert every_event_once(ledger, folder, game)


def test_a_run_while_another_writes_into_the_folder_is_refused_and_each_event_is_written_once(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    game = started(ledger)
    written(ledger, folder)
    ledger.commands.record(game, list(ROUND_ONE_AUCTION[2:6]))
    refused: list[str] = []

    def another_run(stage: str, done: int, total: int) -> None:
        for mode in ("since", "replace") if stage == "games" else ():
            with pytest.raises(DatasetRefused) as raised:
                written(ledger, folder, mode)
            refused.append(str(raised.value))

    written(ledger, folder, "since", another_run)
    assert refused == [f"another run is writing {folder}"] * 2
    assert every_event_once(ledger, folder, game)
    written(ledger, folder, "since")
    assert every_event_once(ledger, folder, game)


def test_a_part_gone_from_the_folder_has_its_partition_written_again(ledger: Ledger, tmp_path: Path) -> None:
    folder = tmp_path / "analysis"
    game = started(ledger)
    other = started(ledger, 4)
    written(ledger, folder)
    [part] = (folder / "events").rglob("*.parquet")
    part.unlink()
    ledger.commands.record(game, list(ROUND_ONE_AUCTION[2:3]))

    summary = written(ledger, folder, "since")

    assert summary.partitions_rewritten == 1 and summary.games_written == 2
    assert every_event_once(ledger, folder, game, other)


def stop_while_writing_tables(stage: str, done: int, total: int) -> None:
    if stage == "tables" and done == 3:
        raise KeyboardInterrupt


def test_a_run_stopped_partway_leaves_the_files_read_as_before_and_the_next_removes_what_it_left(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    game = started(ledger)
    written(ledger, folder)
    before, events_before = file_contents(folder), len(versions(ledger, game))
    ledger.commands.record(game, list(ROUND_ONE_AUCTION[2:4]))

    with pytest.raises(KeyboardInterrupt):
        written(ledger, folder, "since", stop_while_writing_tables)
    assert file_contents(folder) == before and not (folder / STAGING).exists()

    [part] = (folder / "read_games").rglob("*.parquet")
    stray = folder / "read_games" / "ruleset=evo2" / "month=2099-01" / "part-00002.parquet"
    cut_short = folder / STAGING / "events" / part.parent.relative_to(folder / "read_games") / "part-00002.parquet"
    for path in (stray, cut_short):  # as a run killed while it moved its files into place leaves them
        path.parent.mkdir(parents=True)
    shutil.copy(part, stray)
    cut_short.write_bytes(part.read_bytes()[:20])
    assert pq.read_table(folder / "read_games").num_rows == 2, "the staging folder is not in the tables' folders"
    assert pq.read_table(folder / "events").num_rows == events_before

    written(ledger, folder, "since")

    assert not stray.parent.exists() and not (folder / STAGING).exists()
    assert pq.read_table(folder / "read_games").num_rows == 1 and every_event_once(ledger, folder, game)


def test_a_symbolic_link_or_a_folder_where_the_dataset_writes_a_file_is_refused_in_a_line(
    database_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, outside = tmp_path / "analysis", tmp_path / "outside.parquet"
    on = ["--database", database_file]
    assert main(["dataset", str(folder), *on]) == EXIT_OK
    (folder / "people.parquet.unfinished").symlink_to(outside)
    assert main(["dataset", str(folder), "--since", *on]) == EXIT_OK
    assert not outside.exists(), "no file is written through a link"

    (folder / "README.md").rename(outside)
    (folder / "README.md").symlink_to(outside)
    kept = outside.read_bytes()
    assert refusal(["dataset", str(folder), "--since", *on], capsys) == (
        f"evo-ledger dataset: {folder / 'README.md'}: a symbolic link: the dataset writes, moves and removes "
        "nothing through one"
    )
    assert outside.read_bytes() == kept and (folder / "README.md").is_symlink()
    (folder / "README.md").unlink()
    (folder / "people.parquet").rename(outside)
    (folder / "people.parquet").symlink_to(outside)
    kept = outside.read_bytes()
    assert refusal(["dataset", str(folder), "--since", *on], capsys) == (
        f"evo-ledger dataset: {folder / 'manifest.json'}: not a dataset's manifest (`files` names "
        '"people.parquet", which lies outside the folder): --replace writes it again'
    )
    assert refusal(["dataset", str(folder), "--replace", *on], capsys) == (
        f"evo-ledger dataset: {folder / 'people.parquet'}: a symbolic link: the dataset writes, moves and removes "
        "nothing through one"
    )
    assert outside.read_bytes() == kept and (folder / "people.parquet").is_symlink()
    (folder / "people.parquet").unlink()
    (folder / "people.parquet").mkdir()
    assert refusal(["dataset", str(folder), "--since", *on], capsys) == (
        f"evo-ledger dataset: {folder / 'people.parquet'}: a folder, where the dataset writes a file"
    )
    (folder / "people.parquet").rmdir()
    with held_lock(folder):
        assert refusal(["dataset", str(folder), "--since", *on], capsys) == (
            f"evo-ledger dataset: another run is writing {folder}"
        )
    assert main(["dataset", str(folder), "--since", *on]) == EXIT_OK
    assert (folder / "people.parquet").is_file()


def test_another_ledgers_dataset_is_refused_in_a_line(
    database_file: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, other = tmp_path / "analysis", str(tmp_path / "other.sqlite")
    assert main(["dataset", str(folder), "--database", database_file]) == EXIT_OK
    with Ledger(Settings(other)) as longer:
        started(longer, 6)
    line = refusal(["dataset", str(folder), "--since", "--database", other], capsys)
    assert re.fullmatch(
        f"evo-ledger dataset: {re.escape(str(folder))}: the dataset of another ledger \\([0-9a-f]{{32}}; this one is "
        "[0-9a-f]{32}\\): --replace writes it again from this one",
        line,
    )
    assert main(["dataset", str(folder), "--replace", "--database", other]) == EXIT_OK
    assert main(["dataset", str(folder), "--since", "--database", other]) == EXIT_OK


def test_a_database_made_in_the_empty_folder_the_dataset_goes_into_is_no_reason_to_refuse_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["dataset", ".", "--database", "./games.sqlite"]) == EXIT_OK
    assert (tmp_path / "games.sqlite").is_file() and (tmp_path / "manifest.json").is_file()
    assert main(["dataset", ".", "--since", "--database", "./games.sqlite"]) == EXIT_OK


def test_a_folder_a_first_run_stopped_in_takes_the_dataset_and_loses_what_that_run_left(
    ledger: Ledger, tmp_path: Path
) -> None:
    folder = tmp_path / "analysis"
    game = started(ledger)
    with pytest.raises(KeyboardInterrupt):
        written(ledger, folder, "new", stop_while_writing_tables)
    assert [path.name for path in folder.iterdir()] == [".dataset.lock"]
    stray = folder / "events" / "ruleset=evo2" / "month=2099-01" / "part-00001.parquet"
    stray.parent.mkdir(parents=True)  # as a first run killed while it moved its files into place leaves them
    stray.write_bytes(b"PAR1")

    written(ledger, folder)

    assert not stray.parent.exists() and every_event_once(ledger, folder, game)
