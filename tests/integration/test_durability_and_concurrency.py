"""What the ledger promises under load and failure: durable commits, one winner per version, no lost receipts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from evo_ledger.app.ledger import Ledger, VersionConflict
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from projections.runner import READ_TABLES_NICENESS
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION, child_env

GAME_LINES = [line.text for line in parse_game((ROOT / "replays" / "selfplay-5p-seed5.evo").read_text()).actions]


def test_sqlite_commits_are_durable_wal_with_synchronous_full(tmp_path: Path) -> None:
    ledger = Ledger(Settings(str(tmp_path / "ledger.sqlite")))
    ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    datastore = ledger.store.factory.datastore  # type: ignore[attr-defined]
    with datastore.transaction(commit=False) as cursor:
        cursor.execute("PRAGMA journal_mode")
        journal = cursor.fetchone()[0]
        cursor.execute("PRAGMA synchronous")
        synchronous = cursor.fetchone()[0]
    assert (journal, synchronous) == ("wal", 2)  # 2 is FULL: the log is on disk before a commit returns
    ledger.close()


@ON_POSTGRES
def test_postgres_commits_are_durable() -> None:
    with fresh_postgres_database() as url, Ledger(Settings(url)) as ledger, psycopg.connect(url) as connection:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        assert connection.execute("SHOW synchronous_commit").fetchone() == ("on",)
        assert connection.execute("SHOW fsync").fetchone() == ("on",)


@ON_POSTGRES
def test_postgres_appends_wait_for_the_table_lock_that_keeps_notification_ids_in_commit_order() -> None:
    with fresh_postgres_database() as url, Ledger(Settings(url)) as ledger:
        game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        appended = threading.Event()

        def append() -> None:
            ledger.commands.record(game, list(ROUND_ONE_AUCTION))
            appended.set()

        writer = threading.Thread(target=append)
        with psycopg.connect(url) as holder:  # a lock that lets plain inserts through, not the append's
            holder.execute(f'LOCK TABLE "{ledger.store.recorder.runs_table_name}" IN ROW SHARE MODE')  # type: ignore[attr-defined]
            writer.start()
            assert not appended.wait(0.5)
        writer.join(timeout=10)
        assert appended.is_set() and ledger.queries.receipt(game).version > 1


def test_two_recorders_at_the_same_version_one_wins_one_conflicts(database: str) -> None:
    setup = Ledger(Settings(database))
    game = setup.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    version = setup.commands.record(game, list(ROUND_ONE_AUCTION)).version
    setup.close()
    start = threading.Barrier(2, timeout=30)
    outcomes: dict[str, object] = {}

    def recorder(name: str, action: str) -> None:
        ledger = Ledger(Settings(database))
        ledger.queries.game(game)
        start.wait()
        try:
            outcomes[name] = ledger.commands.record(game, action, expected_version=version)
        except VersionConflict as conflict:
            outcomes[name] = conflict
        finally:
            ledger.close()

    threads = [
        threading.Thread(target=recorder, args=("first", "cat move C1 C2")),
        threading.Thread(target=recorder, args=("second", "cat move B1 B2")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    conflicts = [o for o in outcomes.values() if isinstance(o, VersionConflict)]
    assert len(conflicts) == 1 and len(outcomes) == 2
    # The loser saw the winner's event either before appending, or only when its insert was refused.
    assert conflicts[0].expected == version and conflicts[0].actual in (None, version + 1)
    check = Ledger(Settings(database))
    events = check.queries.game_events(game)
    assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
    moves = [e.notation for e in events if type(e).__name__ == "DinosaurMoved"]
    assert len(moves) == 1 and events[-1].originator_version == version + 1
    check.close()


WRITER = """
import sys
from uuid import UUID
from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import Settings
ledger = Ledger(Settings(sys.argv[1]))
game = UUID(sys.argv[2])
for line in sys.stdin:
    receipt = ledger.commands.record(game, line.strip())
    print(receipt.version, receipt.head_hash, flush=True)
"""


def parse_receipt(line: str) -> tuple[int, str]:
    version, head = line.split()
    return int(version), head


def test_a_writer_killed_mid_stream_loses_no_acknowledged_event(database: str, tmp_path: Path) -> None:
    ledger = Ledger(Settings(database))
    game = ledger.commands.create_game("evo2", "standin-e2-5p", ["ann", "ben", "cat", "dan", "eve"]).game_id
    ledger.close()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, database, str(game)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert writer.stdin is not None and writer.stdout is not None
    writer.stdin.write("\n".join(GAME_LINES) + "\n")
    writer.stdin.flush()
    receipts: list[tuple[int, str]] = []
    deadline = time.monotonic() + 60
    while len(receipts) < 60 and time.monotonic() < deadline:
        receipts.append(parse_receipt(writer.stdout.readline()))
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    # Receipts acknowledged before the kill and still in the pipe count too.
    receipts.extend(parse_receipt(line) for line in writer.stdout.read().splitlines())
    assert len(receipts) >= 60
    after = Ledger(Settings(database))
    stored = {event.originator_version: event.hash for event in after.queries.game_events(game)}
    for version, head in receipts:
        assert stored[version] == head, f"acknowledged event {version} was lost or changed"
    assert sorted(stored) == list(range(1, len(stored) + 1))
    after.close()


def test_receipts_are_plain_data_a_client_can_keep(tmp_path: Path) -> None:
    ledger = Ledger(Settings(str(tmp_path / "ledger.sqlite")))
    receipt = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    kept = json.dumps({"game": str(receipt.game_id), "version": receipt.version, "head": receipt.head_hash})
    assert json.loads(kept)["head"] == ledger.queries.receipt(receipt.game_id).head_hash
    ledger.close()


def test_a_ledger_whose_cached_game_is_stale_never_appends_on_it(database: str) -> None:
    first, second = Ledger(Settings(database)), Ledger(Settings(database))
    game = first.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    stale = second.commands.record(game, "order ann ben cat").version  # the second ledger caches the game here
    moved = first.commands.record(game, ["climate cw", "draw legs"]).version
    with pytest.raises(VersionConflict):
        second.commands.record(game, "climate cw", expected_version=stale)
    second.commands.record(game, "draw eggs", expected_version=moved)  # it reads the game afresh
    first.commands.record(game, "ann bid 1 eggs")  # no expected version: the first reads afresh too
    with pytest.raises(VersionConflict):
        second.commands.record(game, "ben bid 2 eggs", expected_version=second.queries.receipt(game).version - 1)
    versions = [e.originator_version for e in second.queries.game_events(game)]
    assert versions == list(range(1, len(versions) + 1))
    assert [type(e).__name__ for e in second.queries.game_events(game)].count("BidPlaced") == 1
    first.close()
    second.close()


def test_the_processes_a_server_starts_stop_when_it_is_killed_with_sigkill(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER_PROCESSES, database], stdout=subprocess.PIPE, text=True, env=child_env()
    )
    assert server.stdout is not None
    started = [int(pid) for pid in server.stdout.readline().split()]
    assert len(started) == 2 and all(process_alive(pid) for pid in started)
    server.kill()
    server.wait()
    deadline = time.monotonic() + 10
    while any(process_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(process_alive(pid) for pid in started)


def test_the_read_tables_process_gives_way_to_the_writing_process(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER_PROCESSES, str(tmp_path / "games.sqlite")],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    try:
        assert server.stdout is not None
        writer, projection = (int(pid) for pid in server.stdout.readline().split())
        deadline = time.monotonic() + 10
        while niceness(projection) - niceness(writer) != READ_TABLES_NICENESS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert niceness(writer) == niceness(os.getpid())
        assert niceness(projection) - niceness(writer) == READ_TABLES_NICENESS
    finally:
        server.kill()
        server.wait()


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


SERVER_PROCESSES = """
import sys, time
from evo_ledger.settings import Settings
from evo_ledger.app.writer import LedgerProcess
from projections.runner import BackgroundProjection
writer = LedgerProcess(Settings(sys.argv[1]))
projection = BackgroundProjection(Settings(sys.argv[1]))
projection.start()
print(writer.pid, projection.process.pid, flush=True)
time.sleep(120)
"""


def process_alive(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent to collect it. A process that ends between the opening of its
    stat file and the reading of it fails the read with ESRCH (ProcessLookupError): gone too."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"
