"""The command line as a newcomer meets it: a broken pipe ends a command quietly, an audit's expected head is
checked for its form, and a batch's refused action is named by its place."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evo_ledger.cli.main import main
from tests.helpers.support import ROOT, child_env

EVO_LEDGER = Path(sys.executable).parent / "evo-ledger"


@pytest.mark.slow
def test_a_broken_pipe_ends_a_command_quietly(tmp_path: Path) -> None:
    """Long by design: a broken pipe exists only between processes, so each command starts as the installed command
    does, its output cut short by `head`, and a process's start is most of what each takes.

    Slow: commands started as processes, each with its output's reader closed."""
    env = {**child_env(), "EVO_LEDGER_DATABASE": str(tmp_path / "games.sqlite")}
    assert (
        main(["import", str(ROOT / "replays" / "hand-3p-first-game.evo"), "--database", env["EVO_LEDGER_DATABASE"]])
        == 0
    )
    for command in ("kit standin-e2-5p", "log last", "export last", "selfplay --ruleset evo2 --players 5"):
        done = subprocess.run(
            f"{EVO_LEDGER} {command} | head -1",
            shell=True,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.stderr == "", (command, done.stderr)


def test_an_expected_head_that_is_not_a_hash_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = str(tmp_path / "games.sqlite")
    assert main(["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat", "--database", database]) == 0
    with pytest.raises(SystemExit) as refused:
        main(["audit", "last", "--expect-head", "deadbeef", "--database", database])
    assert refused.value.code == 2 and "--expect-head: 'deadbeef' is not an event's hash" in capsys.readouterr().err


def test_a_refused_action_of_a_batch_is_named_by_its_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = str(tmp_path / "games.sqlite")
    assert main(["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat", "--database", database]) == 0
    capsys.readouterr()
    assert main(["record", "last", "order ann ben cat", "cat pass", "cat pass", "--database", database]) == 1
    err = capsys.readouterr().err
    assert "action 2 of 3 ('cat pass')" in err and "nothing was recorded" in err


def test_a_game_imported_twice_is_reported_stored_and_skipped_unless_asked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database, game_file = str(tmp_path / "games.sqlite"), str(ROOT / "replays" / "hand-3p-first-game.evo")
    assert main(["import", game_file, "--database", database]) == 0
    stored = capsys.readouterr().out
    assert main(["import", game_file, "--database", database]) == 0
    skipped = capsys.readouterr().out
    game_id = stored.split("game ", 1)[1].split(",")[0]
    assert f"already stored as game {game_id}" in skipped
    assert main(["import", game_file, "--again", "--database", database]) == 0
    assert "already stored" not in capsys.readouterr().out
    assert main(["games", "--database", database]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_last_names_the_game_a_command_last_stored_or_named_an_import_of_a_stored_game_included(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database, game_file = str(tmp_path / "games.sqlite"), str(ROOT / "replays" / "hand-3p-first-game.evo")
    assert main(["import", game_file, "--database", database]) == 0
    imported = capsys.readouterr().out.split("game ", 1)[1].split(",")[0]
    assert main(["new", "--kit", "standin-e2-3p", "--players", "ann", "ben", "cat", "--database", database]) == 0
    created = capsys.readouterr().out.split("game ", 1)[1].split()[0]
    assert main(["show", "last", "--database", database]) == 0 and "event 1 ·" in capsys.readouterr().out
    assert main(["import", game_file, "--database", database]) == 0 and imported in capsys.readouterr().out
    assert main(["show", "last", "--at", "173", "--database", database]) == 0  # the imported game's event 173
    assert main(["show", created[:8], "--database", database]) == 0
    capsys.readouterr()
    assert main(["audit", "last", "--json", "--database", database]) == 0
    assert created in capsys.readouterr().out


def test_an_ambiguous_beginning_of_an_id_lists_the_games_it_matches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "games.sqlite")
    replays = sorted(str(path) for path in (ROOT / "replays").glob("*.evo"))
    assert main(["import", *replays, "--database", database]) == 0  # the games' ids are their contents'
    capsys.readouterr()
    assert main(["games", "--database", database]) == 0
    ids = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    prefix = Counter(game[0] for game in ids).most_common(1)[0][0]
    matching = [game for game in ids if game.startswith(prefix)]
    assert len(matching) > 1
    assert main(["log", prefix, "--database", database]) == 2
    err = capsys.readouterr().err
    assert f"{len(matching)} games have an id starting {prefix!r}: " in err and all(game in err for game in matching)


def test_a_file_that_is_not_there_is_named_with_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = str(tmp_path / "games.sqlite")
    assert main(["import", str(tmp_path / "nothing.evo"), "--database", database]) == 2
    assert capsys.readouterr().err.strip().endswith("nothing.evo: cannot read it: no such file or directory")
