"""The benchmark of stored bytes per event runs at a tiny size on SQLite: every ruleset's games are stored in both
forms, the compact one the smaller, and its report gives each ruleset, the parts of the file and the speed ratios."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.stored_size import (
    APPENDS,
    AUDIT,
    FOLD,
    RULESETS,
    SQLiteStores,
    measure_sizes,
    measure_speeds,
    play_games,
    print_sizes,
    print_speeds,
)
from evo_ledger.settings import COMPACT, KEYED


@pytest.mark.slow
def test_the_stored_size_benchmark_runs_at_a_tiny_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Slow: eight games imported into eight stores, and a game of 1,000 events stored, folded and audited in
    each form."""
    folder = tmp_path / "games"
    folder.mkdir()
    games = play_games(folder, 2, processes=1)
    stores = SQLiteStores(tmp_path)
    sizes = measure_sizes(stores, games)
    speeds = measure_speeds(stores, rounds=1)
    print_sizes(stores.label, sizes, 2)
    print_speeds(stores.label, speeds, 1)
    printed = capsys.readouterr().out

    assert set(sizes) == set(RULESETS) and all(len(paths) == 2 for paths in games.values())
    for by_form in sizes.values():
        keyed, compact = by_form[KEYED], by_form[COMPACT]
        assert keyed.events == compact.events > 0
        assert 0 < compact.total < keyed.total and 0 < compact.states < keyed.states
        assert keyed.table and keyed.indexes and keyed.snapshots
    assert all(speeds.ratio(measure) > 0 for measure in (APPENDS, FOLD, AUDIT))
    assert not list(tmp_path.glob("store-*")), "every store is deleted after it is measured"
    assert "  in all " in printed and "target at most 0.33" in printed
    assert "audit, " in printed and "target 0.9x" in printed
