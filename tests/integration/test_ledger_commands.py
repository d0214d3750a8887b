"""The ledger's commands as a person runs them: `new`, `record`, `undo`, `note`, `show`, `log`, `games`,
`import` and `export`, on each database; output, exit status and what is stored."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.personal import as_json_text
from evo_ledger.cli.main import main
from evo_ledger.settings import SEAL_KEY_VARIABLE, Settings
from tests.helpers.support import ROOT

REPLAYS = sorted((ROOT / "replays").glob("*.evo"))
HAND_GAME = ROOT / "replays" / "hand-3p-first-game.evo"


def run(capsys: pytest.CaptureFixture[str], database: str, *args: str) -> tuple[int, str, str]:
    status = main([*args, "--database", database])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_game_is_started_recorded_undone_noted_and_shown(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, database, "new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat")
    game = re.search(r"game ([0-9a-f-]{36})", out)
    assert status == 0 and game and "stored: event 1, head " in out
    status, out, _ = run(capsys, database, "record", game.group(1)[:8], "order ann ben cat", "climate cw")
    assert status == 0 and "    2  order ann ben cat" in out and "→ The cw token turns the climate wheel" in out
    assert "stored: event 5" in out
    status, out, _ = run(capsys, database, "undo", "last", "--reason", "wrong token")
    assert status == 0 and "undone: event 4 (wrong token)" in out
    status, out, _ = run(capsys, database, "note", "last", "the token fell on the floor", "--about", "4")
    assert status == 0 and "note on event 4: the token fell on the floor" in out
    status, out, _ = run(capsys, database, "show", "last", "--at", "3")
    assert status == 0 and out.startswith("event 3 · round 1 · climate · the climate token to be revealed")
    assert "ann (seat 1): 6 MP, 2 dinosaurs" in out and "C1y*c" in out
    status, out, _ = run(capsys, database, "log", "last")
    assert [line.split()[0] for line in out.splitlines()] == ["1", "2", "3", "4", "5", "6", "7"]


def test_an_illegal_action_is_refused_with_its_ruling_and_stores_nothing(
    database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, database, "new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat")
    status, out, err = run(capsys, database, "record", "last", "order ann ben cat", "ann bid 2 eggs")
    assert status == 1 and out == "" and err.startswith("refused: [E2-01]")
    with Ledger(Settings(database)) as ledger:
        assert ledger.queries.receipt(ledger.queries.find_game("last")).version == 1


def test_a_stale_expected_version_is_refused(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, database, "new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat")
    run(capsys, database, "record", "last", "order ann ben cat")
    status, _, err = run(capsys, database, "record", "last", "climate cw", "--expect", "1")
    assert status == 1 and "expected version 1, but it is at version 3" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope"), "'nope' is not a game id"),
        (("show", "0123"), "no game has an id starting '0123'"),
        (("log", "last"), "there are no games yet"),
        (("new", "--kit", "no-such-kit", "--players", "ann", "ben", "cat"), "no-such-kit"),
        (("new", "--kit", "standin-e2-3p", "--players", "ann", "ben"), "not 2"),
        (("new", "--kit", "standin-e2-3p", "--players", "a", "b", "c", "--option", "x"), "--option 'x'"),
        (("new", "--kit", "toy-2p", "--ruleset", "evo2", "--players", "a", "b"), "is for ruleset toy, not evo2"),
    ],
)
def test_bad_input_is_named_with_exit_status_2(
    database: str, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, database, *args)
    assert status == 2 and out == "" and message in err and "Traceback" not in err


def test_new_takes_the_ruleset_from_the_kit(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, database, "new", "--kit", "toy-2p", "--players", "ann", "ben")[0] == 0
    status, out, _ = run(capsys, database, "show", "last")
    assert status == 0 and "ann to roll" in out


def test_import_stores_each_file_and_export_gives_it_back(
    database: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, database, "import", *map(str, REPLAYS), "--workers", "1")
    assert status == 0 and len(out.splitlines()) == len(REPLAYS)
    assert err == ""  # no progress bar where the output is not a terminal
    status, out, _ = run(capsys, database, "games")
    assert status == 0 and len(out.splitlines()) == len(REPLAYS)
    bundle = tmp_path / "game.msgpack"
    assert run(capsys, database, "export", "last", "--bundle", "--output", str(bundle))[0] == 0
    notation = tmp_path / "game.evo"
    assert run(capsys, database, "export", "last", "--output", str(notation))[0] == 0
    assert main(["check", str(notation)]) == 0
    capsys.readouterr()
    other = str(tmp_path / "other.sqlite")
    status, out, _ = run(capsys, other, "import", str(bundle))
    assert status == 0
    again = tmp_path / "again.msgpack"
    run(capsys, other, "export", "last", "--bundle", "--output", str(again))
    assert again.read_bytes() == bundle.read_bytes()


class Terminal(io.StringIO):
    """Output that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_an_import_at_a_terminal_shows_a_bar_with_each_game_above_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stderr", screen)
    games = REPLAYS[:3]
    assert main(["import", *map(str, games), "--workers", "1", "--database", str(tmp_path / "bar.sqlite")]) == 0
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())  # the terminal's colours and cursor moves
    assert all(f"{path}: game " in shown for path in games)
    assert f"{len(games)}/{len(games)} games" in shown
    assert shown.rindex(f"{games[-1]}: game ") < shown.rindex(f"{len(games)}/{len(games)} games")


def test_an_import_names_the_file_and_line_it_cannot_take(
    database: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    illegal = ROOT / "tests" / "rulings" / "e2-02-move-beyond-legs.evo"
    status, out, err = run(capsys, database, "import", str(HAND_GAME), str(illegal))
    assert status == 2 and f"{illegal}: line 14: illegal action 'cat move C1 C2 D2 E2': [E2-02]" in err
    assert out == ""  # the batch held both files: neither is stored
    missing = tmp_path / "missing.evo"
    status, _, err = run(capsys, database, "import", str(missing))
    assert status == 2 and str(missing) in err


def test_a_game_is_audited_from_the_command_line(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, database, "new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat")
    status, out, _ = run(capsys, database, "record", "last", "order ann ben cat", "climate cw", "draw legs")
    head = out.split("head ")[1].strip()
    run(capsys, database, "undo", "last", "--reason", "the wrong gene")
    status, out, _ = run(capsys, database, "audit", "last", "--expect-head", head)
    assert status == 0 and "audit of game" in out and ": clean" in out
    assert re.search(r"pass +head +.*the receipt's head is event 7 of 8", out)
    status, out, _ = run(capsys, database, "audit", "last", "--json", "--event", "3")
    with Ledger(Settings(database)) as ledger:
        game_id = next(ledger.queries.game_ids())
        canonical = ledger.queries.audit(game_id, up_to=3).canonical  # the seats by their labels, as stored
        assert out == ledger.store.personal.render(canonical.decode(), as_json_text) + "\n"
    status, _, err = run(capsys, database, "audit", "last", "--event", "0")
    assert status == 2 and "--event 0" in err
    run(capsys, database, "record", "last", "draw legs")
    run(capsys, database, "undo", "last", "--reason", 'the "wrong" gene, again')
    status, out, _ = run(capsys, database, "audit", "last", "--json")  # a reason opened inside a JSON string
    assert status == 0 and [undone["reason"] for undone in json.loads(out)["undone_rolls"]] == [
        "the wrong gene",
        'the "wrong" gene, again',
    ]


def test_a_generated_game_is_sealed_by_the_key_in_the_environment_and_explained(
    database: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SEAL_KEY_VARIABLE, "the server's own secret")
    status, out, _ = run(capsys, database, "generate", "--ruleset", "evo2", "--players", "3", "--seed", "10")
    assert status == 0 and out.startswith("game ")
    status, out, _ = run(capsys, database, "audit", "last")
    assert status == 0 and re.search(r"pass +seals ", out) and re.search(r"pass +chance .*from seed 10", out)
    with Ledger(Settings(database)) as ledger:
        game_id = next(ledger.queries.game_ids())
        combat = next(
            e.originator_version for e in ledger.queries.game_events(game_id) if type(e).__name__ == "CombatResolved"
        )
    status, out, _ = run(capsys, database, "explain", "last", str(combat))
    assert status == 0 and f"event {combat} of game {game_id}: combat" in out
    status, out, _ = run(capsys, database, "what-if", "last", str(combat - 1), "--drop", "--json")
    assert status == 0 and f'"event":{combat - 1}' in out
    status, _, err = run(capsys, database, "explain", "last", "1")
    assert status == 2 and "event 1 (Started) is not in the game as it stands" in err
