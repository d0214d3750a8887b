from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evo_ledger.ledger import Ledger
from evo_ledger.settings import Settings
from tests.databases import BACKENDS, database_for


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each test that uses it runs once on a SQLite file and once on a fresh PostgreSQL database."""
    with database_for(request.param, str(tmp_path)) as setting:
        yield setting


@pytest.fixture
def ledger(database: str) -> Iterator[Ledger]:
    app = Ledger(Settings(database))
    yield app
    app.close()
