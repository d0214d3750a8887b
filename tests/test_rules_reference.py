"""The project's rules reference: every ruling id the code names has its text, and the text is served by
`evo-ledger rules` and `GET /v1/rules/{id}`."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.cli.main import main
from evo_ledger.rules.reference import reference
from evo_ledger.settings import Settings
from tests.helpers.modules import shipped_packages, source, walk

RULING_ID = re.compile(r"\b(?:E1|E2|AS|TR)-\d\d\b")


def ids_named_in_code() -> set[str]:
    """The ruling ids named in any module the distribution ships."""
    named: set[str] = set()
    for package in shipped_packages():
        for module in walk(package):
            named |= set(RULING_ID.findall(source(module)))
    return named


def test_every_ruling_id_the_code_names_has_its_text() -> None:
    named = ids_named_in_code()
    assert {"E1-09", "E2-07"} <= named
    missing = sorted(named - set(reference()))
    assert not missing, f"ruling ids named in the code with no text in a rulings.toml: {missing}"
    assert all(ruling.title and len(ruling.text) > 40 for ruling in reference().values())


def test_the_rules_command_prints_the_combat_ruling_E1_09(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "E1-09"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("E1-09 Combat (evo1)\n") and "1-4 at +1" in out


def test_the_rules_command_lists_every_ruling_and_refuses_an_unknown_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == len(reference()) and "E2-07  The auction (evo2)" in listed
    assert main(["rules", "E9-99"]) == 2
    assert "no ruling 'E9-99'" in capsys.readouterr().err


@pytest.fixture
def client(tmp_path: object) -> Iterator[TestClient]:
    settings = ApiSettings(store=Settings(f"{tmp_path}/rules.sqlite"), admin_token="admin", writer_process=False)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_api_serves_each_ruling_and_a_404_for_an_unknown_one(client: TestClient) -> None:
    answer = client.get("/v1/rules/e1-09")
    assert answer.status_code == 200 and answer.json()["title"] == "Combat" and answer.json()["ruleset"] == "evo1"
    unknown = client.get("/v1/rules/E1-99")
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_ruling"
    listed = client.get("/v1/rules").json()["rulings"]
    assert [ruling["id"] for ruling in listed] == list(reference())
