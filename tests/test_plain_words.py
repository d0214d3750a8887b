"""What a person reads says it plainly: CSV booleans as `true`/`false`, counts with the right plural, and no
framework's prefix in an error's message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from evo_ledger.cli.main import main
from tests.helpers.api import PLAYERS, client_for
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import caught_up


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(str(tmp_path / "words.sqlite")) as test_client:
        yield test_client


def test_csv_booleans_are_true_and_false(client: TestClient) -> None:
    assert client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).status_code == 201
    caught_up(client)
    text = client.get("/v1/tables/read_games.csv", headers={"Authorization": f"Bearer {ADMIN}"}).text
    assert "False" not in text and "True" not in text and ",false," in text


def test_a_validation_message_carries_no_framework_prefix(client: TestClient) -> None:
    answer = client.post("/v1/games", json={"kit": "no-such-kit", "players": PLAYERS})
    assert answer.status_code == 422 and "Value error" not in answer.text and "no kit 'no-such-kit'" in answer.text


def test_one_event_is_one_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = str(tmp_path / "games.sqlite")
    assert main(["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat", "--database", database]) == 0
    assert main(["games", "--database", database]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(" 1 event")
