from __future__ import annotations

import compileall
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

# The toy ruleset's test-only distribution, found through the rulesets' entry point group like any other, here
# and in every process the tests start (the server's writer and read tables among them).
TOY_DISTRIBUTION = str(Path(__file__).parent / "toy_dist")
CHECKOUT = str(Path(__file__).parent.parent)
sys.path.append(TOY_DISTRIBUTION)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [CHECKOUT, TOY_DISTRIBUTION, os.environ.get("PYTHONPATH")]))


def compile_sources() -> None:
    """The checkout's modules compiled once for the run, before its workers start: where the environment tells
    Python not to write what it compiles (PYTHONDONTWRITEBYTECODE), every worker, and every process the tests start,
    would compile each module it imports again."""
    for package in ("evo_ledger", "api", "projections", "bench", "tests"):
        compileall.compile_dir(os.path.join(CHECKOUT, package), quiet=1)


# In the run's first process (the workers come after it), where the checkout may be written to.
if "PYTEST_XDIST_WORKER" not in os.environ and os.access(CHECKOUT, os.W_OK):
    compile_sources()

from evo_ledger.app.ledger import Ledger  # noqa: E402
from evo_ledger.settings import Settings  # noqa: E402
from tests.helpers.api import client_for  # noqa: E402
from tests.helpers.databases import BACKENDS, emptied, fresh_postgres_database  # noqa: E402

pytest_plugins = ["tests.helpers.tiers"]


@pytest.fixture(scope="session")
def process_postgres() -> Iterator[str]:
    """This test process's PostgreSQL database, dropped when the process ends."""
    with fresh_postgres_database() as url:
        yield url


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each test that uses it runs once on a new SQLite file and once on an empty PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "ledger.sqlite")
    return emptied(request.getfixturevalue("process_postgres"))


@pytest.fixture
def ledger(database: str) -> Iterator[Ledger]:
    app = Ledger(Settings(database))
    yield app
    app.close()


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    """The API in-process over `database`, with the tests' admin token."""
    with client_for(database) as test_client:
        yield test_client
