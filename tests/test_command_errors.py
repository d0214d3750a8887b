"""Each command of the README's and the guide's examples, given what it cannot use (a file that is not there, a path
into no folder, a PostgreSQL server that is down, a port another server listens on, a certificate that is not
one), says so in a line or two that name the input, with the guide's exit status for bad input, and never with a
traceback. Most run in this process, where a traceback would be an exception; a few run as the installed command."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from eventsourcing.persistence import OperationalError

from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT
from evo_ledger.cli.main import main
from evo_ledger.store.packed import PackedSQLiteRecorder
from tests.helpers.support import ROOT, child_env

EVO_LEDGER = Path(sys.executable).parent / "evo-ledger"
REPLAY = str(ROOT / "replays" / "hand-3p-first-game.evo")
KIT_FILE = str(ROOT / "tests" / "rulings" / "tiny-3p.json")
# Each command that opens the ledger, as the examples run it: only the database it is given is wrong.
ON_A_DATABASE = {
    "new": ["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat"],
    "kit": ["kit", KIT_FILE, "--store"],
    "record": ["record", "last", "order ann ben cat"],
    "undo": ["undo", "last", "--reason", "misread the die"],
    "note": ["note", "last", "a note"],
    "hidden": ["hidden", "last", "kept"],
    "show": ["show", "last", "--at", "1"],
    "log": ["log", "last"],
    "games": ["games"],
    "import": ["import", REPLAY],
    "export": ["export", "last"],
    "play": ["play", "last"],
    "audit": ["audit", "last"],
    "checkpoint": ["checkpoint"],
    "explain": ["explain", "last", "1"],
    "what-if": ["what-if", "last", "1", "--drop"],
    "generate": ["generate", "--ruleset", "evo2", "--players", "3", "--seed", "1"],
    "share": ["share", "last"],
    "serve": ["serve", "--port", "0"],
    "project": ["project"],
    "migrate": ["migrate"],
    "dataset": ["dataset", "analysis"],
}
# The commands of the examples that read no file, database, port or certificate.
NOTHING_TO_OPEN = {"rules", "selfplay"}


@dataclass(frozen=True)
class Inputs:
    """What the commands are given: a ledger holding a game, a file that is not there, a database in a folder that
    is not there, a PostgreSQL server that is down (a port held by a socket that does not listen), a port another
    server listens on, and a file that is not text."""

    ledger: str
    missing: str
    no_folder: str
    down_at: str
    busy_port: int
    binary: str

    @property
    def down(self) -> str:
        return f"postgresql://postgres@{self.down_at}/evo"


@pytest.fixture
def inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Inputs]:
    ledger = str(tmp_path / "games.sqlite")
    assert main(["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat", "--database", ledger]) == 0
    capsys.readouterr()
    binary = tmp_path / "picture.evo"
    binary.write_bytes(b"ruleset evo2 1\n\x89PNG\r\n\x1a\n\xff\xfe")
    with socket.socket() as closed, socket.socket() as listening:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: a connection to it is refused
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        yield Inputs(
            ledger=ledger,
            missing=str(tmp_path / "missing.evo"),
            no_folder=str(tmp_path / "no-such-folder" / "games.sqlite"),
            down_at=f"127.0.0.1:{closed.getsockname()[1]}",
            busy_port=listening.getsockname()[1],
            binary=str(binary),
        )


def said(argv: list[str], capsys: pytest.CaptureFixture[str], stream: str = "err") -> list[str]:
    """The lines a command refused with, on `stream`, once it exited with the status for bad input."""
    assert main(argv) == EXIT_BAD_INPUT, argv
    captured = capsys.readouterr()
    lines = (captured.err if stream == "err" else captured.out).strip().splitlines()
    assert 1 <= len(lines) <= 2, lines
    return lines


def test_every_command_of_the_examples_is_tried_here() -> None:
    named: set[str] = set()
    for document in (ROOT / "README.md", ROOT / "docs" / "guide.md"):
        text = document.read_text(encoding="utf-8")
        fenced = re.findall(r"```.*?```", text, flags=re.DOTALL)
        inline = re.findall(r"`[^`\n]+`", re.sub(r"```.*?```", "", text, flags=re.DOTALL))
        for code in fenced + inline:
            commands = re.sub(r"\s+# .*", "", code)  # a comment's words are no command
            named.update(re.findall(r"\bevo-ledger ([a-z][a-z-]*)", commands))
    tried = set(ON_A_DATABASE) | {"check", "kit", "tls"} | NOTHING_TO_OPEN
    assert named <= tried, named - tried


@pytest.mark.parametrize("command", ON_A_DATABASE)
def test_a_database_in_no_folder_is_named(command: str, inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    [line] = said([*ON_A_DATABASE[command], "--database", inputs.no_folder], capsys)
    assert line == (
        f"evo-ledger {command}: SQLite file {inputs.no_folder}: cannot be opened: there is no folder "
        f"{Path(inputs.no_folder).parent}"
    )


@pytest.mark.parametrize("command", ON_A_DATABASE)
def test_a_postgresql_server_that_is_down_is_named_at_once(
    command: str, inputs: Inputs, capsys: pytest.CaptureFixture[str]
) -> None:
    [line] = said([*ON_A_DATABASE[command], "--database", inputs.down], capsys)
    refused = "cannot connect: connection refused"
    assert line == f"evo-ledger {command}: PostgreSQL database evo at {inputs.down_at}: {refused}"


def test_files_that_are_not_there_are_named(inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    missing, ledger = inputs.missing, ["--database", inputs.ledger]
    assert said(["check", missing], capsys, "out") == [f"{missing}: cannot read: No such file or directory"]
    assert said(["import", missing, *ledger], capsys) == [
        f"evo-ledger import: {missing}: cannot read it: no such file or directory"
    ]
    assert missing in said(["kit", missing], capsys)[0]
    assert missing in said(["new", "--kit", missing, "--players", "ann", "ben", *ledger], capsys)[0]
    assert said(["audit", "last", "--checkpoint", missing, *ledger], capsys) == [
        f"evo-ledger audit: {missing}: no such file or directory"
    ]


def test_a_path_into_no_folder_is_named(inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    written = str(Path(inputs.no_folder).with_name("game.evo"))
    assert said(["export", "last", "-o", written, "--database", inputs.ledger], capsys) == [
        f"evo-ledger export: {written}: no such file or directory"
    ]
    into = str(Path(inputs.binary) / "tls")
    assert said(["tls", "--out", into], capsys) == [f"evo-ledger tls: {into}: cannot write there: not a directory"]


def test_a_file_that_is_not_text_is_named_as_no_game_file(inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    binary = inputs.binary
    assert said(["check", binary], capsys, "out") == [f"{binary}: not a text game file: byte 15 is not UTF-8 text"]
    assert said(["import", binary, "--database", inputs.ledger], capsys) == [
        f"evo-ledger import: {binary}: not a text game file: byte 15 is not UTF-8 text"
    ]
    assert said(["kit", binary], capsys) == [
        f"evo-ledger kit: kit {binary!r}: not a text kit file: byte 15 is not UTF-8 text"
    ]


def test_a_port_another_server_listens_on_is_named_before_serving(
    inputs: Inputs, capsys: pytest.CaptureFixture[str]
) -> None:
    port = inputs.busy_port
    assert said(["serve", "--port", str(port), "--database", inputs.ledger], capsys) == [
        f"evo-ledger serve: --host 127.0.0.1 --port {port}: cannot listen there: address already in use"
    ]
    assert said(["serve", "--port", "70000", "--database", inputs.ledger], capsys) == [
        "evo-ledger serve: --port 70000: not a port number (0 to 65535)"
    ]


def test_a_certificate_that_is_not_one_is_named(inputs: Inputs, capsys: pytest.CaptureFixture[str]) -> None:
    missing, binary = inputs.missing, inputs.binary
    serve = ["serve", "--port", "0", "--database", inputs.ledger]
    assert said([*serve, "--tls-cert", missing, "--tls-key", binary], capsys) == [
        f"evo-ledger serve: --tls-cert {missing}: no such file (`evo-ledger tls` makes one)"
    ]
    assert said([*serve, "--tls-cert", binary, "--tls-key", binary], capsys) == [
        f"evo-ledger serve: --tls-cert {binary}: not a certificate in PEM, as `evo-ledger tls` writes one"
    ]


def test_a_name_no_certificate_holds_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert said(["tls", "--host", "t\u00e4ble"], capsys) == [
        "evo-ledger tls: --host 't\u00e4ble': not a name a certificate holds, such as table.local, or an address"
    ]


def test_the_installed_command_refuses_with_its_lines_alone(inputs: Inputs) -> None:
    """As a process: no traceback, no log line of a library, nothing served."""
    refusals = {
        "games": (["games", "--database", inputs.no_folder], inputs.no_folder),
        "games on PostgreSQL": (["games", "--database", inputs.down], inputs.down_at),
        "serve": (["serve", "--port", str(inputs.busy_port), "--database", inputs.ledger], str(inputs.busy_port)),
    }
    for case, (argv, named) in refusals.items():
        done = subprocess.run(
            [str(EVO_LEDGER), *argv], env=child_env(), capture_output=True, text=True, timeout=60, check=False
        )
        lines = done.stderr.strip().splitlines()
        assert done.returncode == EXIT_BAD_INPUT and len(lines) == 1 and named in lines[0], (case, done.stderr)
        assert done.stdout == "", (case, done.stdout)


@pytest.mark.parametrize("url", ["postgresql://localhost:abc/evo", "postgresql://localhost:99999/evo"])
def test_a_postgresql_url_with_no_port_number_is_named(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    [line] = said(["games", "--database", url], capsys)
    assert line.startswith("evo-ledger games: EVO_LEDGER_DATABASE: not a PostgreSQL URL (") and url in line


def test_a_store_that_refuses_a_write_once_opened_is_named(
    inputs: Inputs, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file only readable opens, then refuses the first write (as the library says it): one line naming it."""

    def refused(*_: object, **__: object) -> None:
        raise OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(PackedSQLiteRecorder, "insert_events", refused)
    [line] = said(["note", "last", "a note", "--database", inputs.ledger], capsys)
    assert line == (
        f"evo-ledger note: SQLite file {inputs.ledger}: cannot be used: attempt to write a readonly database"
    )
