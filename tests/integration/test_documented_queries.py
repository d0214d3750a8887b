"""docs/projections.md documents every read table and every column, and each table's section ends with a query a
dashboard would run: each query runs on SQLite and PostgreSQL against tables rebuilt from the games in `replays/`
(every ruleset's), and finds rows."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import Table, text

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.rules import rulesets
from evo_ledger.rules.contract import reading as reading_of
from projections.runner import rebuild
from projections.schema import POSITIONS, read_tables
from projections.store import ReadStore
from tests.helpers.support import ROOT

PAGE = (ROOT / "docs" / "projections.md").read_text()
SECTIONS = dict(re.findall(r"^### `(\w+)`(.*?)(?=^##)", PAGE + "\n##", flags=re.MULTILINE | re.DOTALL))
TABLES = (POSITIONS, *read_tables())


def examples(section: str) -> list[str]:
    return re.findall(r"```sql\n(.*?)```", section, flags=re.DOTALL)


@pytest.mark.parametrize("table", TABLES, ids=lambda table: table.name)
def test_every_table_and_column_is_documented_with_a_query_that_reads_it(table: Table) -> None:
    name = table.name
    assert name in SECTIONS, f"docs/projections.md has no section for {name}"
    section = SECTIONS[name]
    undocumented = [column.name for column in table.columns if not re.search(rf"\b{column.name}\b", section)]
    assert undocumented == [], f"{name}'s section does not name {undocumented}"
    assert any(re.search(rf"\b(FROM|JOIN) {name}\b", query) for query in examples(section)), name


def test_every_documented_query_runs_on_tables_rebuilt_from_the_replays(ledger: Ledger) -> None:
    for path in sorted((ROOT / "replays").glob("*.evo")):
        import_notation(ledger, path.read_text(), path.parent)
    store = ReadStore(ledger.settings)
    try:
        rebuild(ledger, store)
        queries = [query for section in SECTIONS.values() for query in examples(section)]
        assert len(queries) > len(TABLES)
        with store.engine.connect() as connection:
            for query in queries:
                rows = connection.execute(text(query)).all()
                assert rows, f"no rows from the documented query:\n{query}"
    finally:
        store.close()


def test_every_rulesets_reports_and_statistics_are_documented_with_their_tables() -> None:
    for name, ruleset in rulesets().items():
        reading = reading_of(ruleset)
        if reading is None:
            continue
        for parts in reading.reports.values():
            for part, rows in parts.items():
                assert re.search(rf"`{part}` \(`{rows.table}`", PAGE), f"{name}'s {part} ({rows.table})"
        for statistic in reading.statistics:
            assert re.search(rf"{name} [^|]*`{statistic}`", PAGE), f"{name}'s statistic {statistic}"
