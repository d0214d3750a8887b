"""The benchmark of several servers on one PostgreSQL database runs at a tiny size: every append it sent is
acknowledged, the log holds exactly those, and its report gives the floor, each figure against it and three
servers against one."""

from __future__ import annotations

import pytest

from bench.ledger_speed import postgres_database
from bench.several_servers import Sizes, make_floor_table, measure, print_report, psycopg_rate
from tests.helpers.databases import ADMIN_URL, require_postgres

TINY = Sizes(clients=3, seconds=1.0, warm_up=0.5, floor_seconds=1.0)


@pytest.mark.slow
def test_the_benchmark_of_several_servers_runs_at_a_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    """Slow: three servers started (one alone, then two more beside it), and three floors."""
    require_postgres()
    measured = measure(ADMIN_URL, TINY)
    print_report(measured, TINY, "PostgreSQL")
    printed = capsys.readouterr().out
    assert len(measured.floors) == 3 and min(measured.floors) > 0
    for through in (measured.one, measured.three):
        assert through.rate > 0 and not through.refused and through.caught_up_after is not None
    assert measured.acknowledged >= (measured.one.rate + measured.three.rate) * TINY.seconds
    assert "| appends through one server, 3 clients |" in printed and "| three servers against one |" in printed
    assert "none lost or doubled" in printed


def test_the_floor_without_pgbench_counts_inserts_from_threads() -> None:
    require_postgres()
    with postgres_database(ADMIN_URL) as database:
        make_floor_table(database)
        assert psycopg_rate(database, clients=2, seconds=0.5) > 0
