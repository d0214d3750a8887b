"""Rulesets load when first asked for: importing the game aggregate or the read tables' schema loads none of them
(a process of its own, so that nothing loaded earlier counts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PACKAGES = tuple(f"evo_ledger.rules.{name}" for name in ("evo2", "evo1", "traits", "hexisland"))


@pytest.mark.parametrize("module", ["evo_ledger.game.aggregate", "projections.schema", "evo_ledger.store.mapper"])
def test_importing_loads_no_ruleset(module: str) -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", f"import sys, {module}; print(*sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert [name for name in loaded if name.startswith(PACKAGES)] == []


def test_a_stored_event_of_a_ruleset_is_read_once_its_rulesets_load() -> None:
    """The first game event of a ruleset read in a fresh process registers the rulesets' events before the
    library resolves its topic."""
    script = (
        "from evo_ledger.app.ledger import Ledger\n"
        "from evo_ledger.settings import Settings\n"
        "import sys, tempfile, os\n"
        "path = os.path.join(tempfile.mkdtemp(), 'l.sqlite')\n"
        "with Ledger(Settings(path)) as ledger:\n"
        "    game = ledger.commands.generate_game(3, seed=1, ruleset='evo2').game_id\n"
        "print(game, path)\n"
    )
    game, path = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    read = (
        "from eventsourcing.persistence import StoredEvent\n"
        "from evo_ledger.app.ledger import Ledger\n"
        "from evo_ledger.settings import Settings\n"
        "from uuid import UUID\n"
        f"with Ledger(Settings({path!r})) as ledger:\n"
        f"    stored = ledger.store.recorder.select_events(UUID({game!r}), gt=1, limit=1)\n"
        "    print(type(ledger.store.mapper.to_domain_event(stored[0])).__name__)\n"
    )
    named = subprocess.run([sys.executable, "-c", read], capture_output=True, text=True, check=True).stdout.strip()
    assert named and named != "Started"
