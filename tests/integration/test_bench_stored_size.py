"""The benchmark of stored bytes per event runs at a tiny size on SQLite: every ruleset's games are stored in each
form, the compact one smaller than the keyed and the packed one's stored bytes smaller still (at this size its
file is pages of tables and indexes), games recorded a save a run are
measured before and after `migrate`, and its report gives each ruleset, the parts of the file and the speed
ratios."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.ledger_speed import busy_game_lines
from bench.stored_size import (
    APPENDS,
    AUDIT,
    FOLD,
    MIGRATED,
    ONE_AFTER,
    RECORDED_LABEL,
    RULESETS,
    SQLiteStores,
    measure_sizes,
    measure_speeds,
    play_games,
    print_sizes,
    print_speeds,
)
from evo_ledger.settings import COMPACT, KEYED, PACKED


@pytest.mark.slow
def test_the_stored_size_benchmark_runs_at_a_tiny_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Slow: eight games imported into twelve stores, two games recorded into four, and a game of 1,000 events
    stored, folded and audited in each form."""
    folder = tmp_path / "games"
    folder.mkdir()
    games = play_games(folder, 2, processes=1)
    stores = SQLiteStores(tmp_path)
    sizes = measure_sizes(stores, games, [busy_game_lines(0)[:40], busy_game_lines(1)[:40]])
    speeds = measure_speeds(stores, rounds=1)
    print_sizes(stores.label, sizes, 2)
    print_speeds(stores.label, speeds, 1)
    printed = capsys.readouterr().out

    assert set(sizes) == {*RULESETS, RECORDED_LABEL} and all(len(paths) == 2 for paths in games.values())
    for ruleset, by_form in sizes.items():
        keyed, compact, packed = by_form[KEYED], by_form[COMPACT], by_form[PACKED]
        assert keyed.events == compact.events == packed.events > 0
        assert 0 < compact.total < keyed.total and 0 < compact.states < keyed.states
        assert ruleset == RECORDED_LABEL or packed.states < compact.states  # a save's run holds its topic
        assert keyed.table and keyed.indexes and keyed.snapshots
    recorded = sizes[RECORDED_LABEL]
    assert recorded[ONE_AFTER].states < recorded[MIGRATED].states <= recorded[PACKED].states
    assert all(speeds.ratio(measure, form) > 0 for measure in (APPENDS, FOLD, AUDIT) for form in (COMPACT, PACKED))
    assert not list(tmp_path.glob("store-*")), "every store is deleted after it is measured"
    assert "  in all " in printed and "target at most 0.33" in printed
    assert "audit, " in printed and "target 0.9x" in printed
