"""`evo-ledger share`: the address the phones open, the recording page's link with a token issued through the ledger
that records the game, the link as a QR code, and with `--seats` each seat's link, whose token reads as that seat.
A game that has a recorder keeps it: the phone is let in beside it, as a co-recorder."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.app.access import RecorderRefused
from evo_ledger.app.ledger import AppendRequest, Ledger, Receipt
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK
from evo_ledger.cli.main import main
from evo_ledger.cli.phones import DEFAULT_PORT, phones_address
from evo_ledger.settings import SEAL_KEY_VARIABLE, Settings
from tests.helpers.shown import shown

URL = "http://table.local:8000"
LINK = re.compile(r"(http://table\.local:8000/games/([0-9a-f-]{36})/record)#token=([A-Za-z0-9_-]+)")
PLAYERS = ("ann", "ben", "cat")


@pytest.fixture
def database(tmp_path: Path) -> str:
    return str(tmp_path / "table.sqlite")


@pytest.fixture
def ledger(database: str) -> Iterator[Ledger]:
    opened = Ledger(Settings(database))
    yield opened
    opened.close()


def shared(database: str, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    assert main(["share", "last", "--database", database, "--url", URL, *options]) == EXIT_OK
    return capsys.readouterr().out


def recording_token(out: str) -> tuple[UUID, str]:
    [line] = [line for line in out.splitlines() if line.startswith("recording link")]
    found = LINK.search(line)
    assert found is not None, line
    return UUID(found[2]), found[3]


def appended(ledger: Ledger, game_id: UUID, token: str, action: str) -> Receipt | Exception:
    [outcome] = ledger.commands.record_many(
        [AppendRequest(game_id, [action], recorder_token=token, token_required=True)]
    )
    return outcome


def started(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "--kit", "standin-e2-3p", "--players", *PLAYERS, "--database", database]) == EXIT_OK
    capsys.readouterr()


def test_a_game_begun_at_the_command_line_gets_a_recorder_token_that_records_it(
    database: str, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    started(database, capsys)
    out = shared(database, capsys)
    game_id, token = recording_token(out)
    assert f"phones open     {URL}/" in out and "the game's recorder token, issued now" in out
    assert "\u2588" in out and "\u2580" in out  # the QR code, in half blocks
    assert isinstance(appended(ledger, game_id, token, "order ann ben cat"), Receipt)
    assert isinstance(appended(ledger, game_id, "not-the-token", "climate cw"), RecorderRefused)


def test_a_game_with_a_recorder_lets_the_phone_in_beside_it_one_shared_link_at_a_time(
    ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    database = ledger.settings.database
    game_id = ledger.commands.create_game(
        "evo2", "standin-e2-3p", list(PLAYERS), recorder_token="the-recorders"
    ).game_id
    first = recording_token(shared(database, capsys))[1]
    again = shared(database, capsys)
    second = recording_token(again)[1]
    assert "the link an earlier share gave records no more" in " ".join(again.split())
    access = ledger.vouched.access(game_id)
    assert access is not None
    assert [held.name for held in access.co_recorders.values()] == ["shared from the command line"]
    for token, action in (("the-recorders", "order ann ben cat"), (second, "climate cw")):
        assert isinstance(appended(ledger, game_id, token, action), Receipt), token
    assert not isinstance(appended(ledger, game_id, first, "draw legs"), Receipt)  # one shared link at a time


def test_the_phones_open_the_address_serve_announces_unless_told_another(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started(database, capsys)
    assert main(["share", "last", "--database", database]) == EXIT_OK
    out = capsys.readouterr().out
    assert f"phones open     {phones_address('http', DEFAULT_PORT)} (as `serve --host 0.0.0.0` serves" in out


def test_each_seat_gets_a_link_whose_token_reads_as_that_seat(
    database: str, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    started(database, capsys)
    out = shared(database, capsys, "--seats")
    game_id, _ = recording_token(out)
    access = ledger.vouched.access(game_id)
    assert access is not None
    for seat in PLAYERS:
        [line] = [line for line in out.splitlines() if line.startswith(f"seat {seat}: ")]
        found = LINK.search(line)
        assert found is not None and UUID(found[2]) == game_id, line
        reads_as = access.seat_of(found[3])  # the seat's label, as stored
        assert reads_as in ledger.queries.game(game_id).player_names and shown(ledger, reads_as) == seat


def test_seats_with_links_keep_them_unless_told_to_reissue(
    database: str, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    started(database, capsys)
    game_id, _ = recording_token(shared(database, capsys, "--seats"))
    kept = ledger.vouched.access(game_id)
    assert main(["share", "last", "--database", database, "--url", URL, "--seats"]) == EXIT_BAD_INPUT
    assert "--reissue-seats gives each seat a new one" in capsys.readouterr().err
    assert ledger.vouched.access(game_id) == kept  # nothing was issued
    out = shared(database, capsys, "--seats", "--reissue-seats")
    assert "the link it had before reads no more" in " ".join(out.split())


def test_the_link_opens_the_servers_recording_page(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    started(database, capsys)
    found = LINK.search(shared(database, capsys))
    assert found is not None
    page = TestClient(create_app(ApiSettings(store=Settings(database)))).get(found[1].removeprefix(URL))
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_a_sealed_game_is_shared_only_with_the_seal_key(
    database: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SEAL_KEY_VARIABLE, "the-servers-key")
    started(database, capsys)
    monkeypatch.delenv(SEAL_KEY_VARIABLE)
    assert main(["share", "last", "--database", database]) == EXIT_BAD_INPUT
    assert f"is sealed: share it with {SEAL_KEY_VARIABLE} set" in capsys.readouterr().err


def test_an_address_the_phones_cannot_open_is_refused(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    started(database, capsys)
    assert main(["share", "last", "--database", database, "--url", "table.local:8000"]) == EXIT_BAD_INPUT
    assert "--url 'table.local:8000': not an address the phones open" in capsys.readouterr().err
