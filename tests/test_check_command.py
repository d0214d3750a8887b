"""`evo-ledger check` and `evo-ledger kit` as a person runs them: output, exit status, the files shipped."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from evo_ledger.cli.main import main
from tests.helpers.support import ROOT

RULING_FILES = sorted((ROOT / "tests" / "rulings").glob("*.evo"))
REPLAYS = sorted((ROOT / "replays").glob("*.evo"))
EXPECT = re.compile(r"# expect: (refused|warning) ((?:E\d|TR)-\d\d)")


def run_check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["check", str(path)])
    return status, capsys.readouterr().out


def last_action_line(path: Path) -> int:
    lines = path.read_text().splitlines()
    return max(n for n, text in enumerate(lines, start=1) if text.strip() and not text.startswith("#"))


@pytest.mark.parametrize("path", RULING_FILES, ids=lambda p: p.stem)
def test_each_ruling_file_is_refused_or_warned_at_its_last_line_with_its_ruling(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expectation = EXPECT.match(path.read_text())
    assert expectation, f"{path.name} must start with '# expect: refused|warning RULING'"
    verdict, ruling = expectation.groups()
    status, out = run_check(path, capsys)
    line = last_action_line(path)
    if verdict == "refused" and path.read_text().splitlines()[line - 1].startswith("players "):
        assert status == 2 and f"{path}: cannot start the game: [{ruling}]" in out
    elif verdict == "refused":
        assert status == 1
        assert f"{path}:{line}: illegal action" in out and f"[{ruling}]" in out
    else:
        assert status == 0
        assert f"{path}:{line}: warning [{ruling}]" in out


def test_every_core_ruling_that_forbids_an_action_has_a_ruling_file() -> None:
    covered = {EXPECT.match(path.read_text()).group(2) for path in RULING_FILES}  # type: ignore[union-attr]
    # E2-05 (the wheel is kit data) and E2-13 (the MP award) forbid no action; unit tests cover them.
    forbidding = {f"E2-{n:02d}" for n in range(1, 15)} - {"E2-05", "E2-13"}
    assert forbidding <= covered


def test_every_evo1_ruling_that_forbids_an_action_has_a_ruling_file() -> None:
    covered = {EXPECT.match(path.read_text()).group(2) for path in RULING_FILES}  # type: ignore[union-attr]
    forbidding = {f"E1-{n:02d}" for n in (1, 5, 6, 8, 9, 10, 11, 13, 14, 16, 17, 18, 19, *range(23, 31))}
    assert forbidding <= covered


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.stem)
def test_every_replay_checks_clean_with_its_result_line(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_check(path, capsys)
    assert status == 0, out
    assert "game over" in out and "result 1 " in out
    assert "result " in path.read_text().splitlines()[-1]


def test_a_wrong_result_line_is_reported_with_what_the_engine_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()
    wrong = tmp_path / "wrong.evo"
    wrong.write_text(text.replace("result 1 ann 19/4", "result 1 ann 20/4"))
    status, out = run_check(wrong, capsys)
    assert status == 1
    assert "wrong result: the engine finds 'result 1 ann 19/4, 2 cat 14/3, 3 ben 13/4'" in out


def test_a_result_line_before_the_game_has_ended_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    early = tmp_path / "early.evo"
    early.write_text("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\norder ann ben cat\nresult 1 ann 6/2\n")
    status, out = run_check(early, capsys)
    assert status == 1 and "the game has not ended" in out


def test_an_unfinished_game_without_result_checks_and_says_where_it_stands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "unfinished.evo"
    game.write_text("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\norder ann ben cat\nclimate cw\n")
    status, out = run_check(game, capsys)
    assert status == 0 and "2 actions legal; game goes on: round 1 · mutations ·" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\nroll hron\n", ":4:6: expected a die face"),
        ("ruleset evo2 1\nkit nowhere\nplayers ann ben\n", "cannot start the game: kit 'nowhere'"),
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben\n", "is the island for 3 players, not 2"),
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ann cat\n", "each player must have a different name"),
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben kit\n", "'kit' cannot be a player's name"),
        ("ruleset evo2 1\nkit standin-e2-3p sha256:00\nplayers a b c\n", "but the game was recorded with sha256:00"),
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers a b c\noption fast=true\n", "unknown option 'fast'"),
        ("ruleset evo2 1\nkit standin-e2-3p\nplayers a b c\noption affordable_bids=1\n", "takes a bool"),
    ],
)
def test_a_file_that_cannot_be_read_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    game = tmp_path / "bad.evo"
    game.write_text(text)
    status, out = run_check(game, capsys)
    assert status == 2 and message in out and "Traceback" not in out


def test_a_missing_file_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_check(Path("no-such-game.evo"), capsys)
    assert status == 2 and "cannot read" in out


def test_an_illegal_action_without_a_ruling_names_what_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "unknown.evo"
    game.write_text("ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\norder ann ben cat\ndan bid 1 card\n")
    status, out = run_check(game, capsys)
    assert status == 1 and "no player named 'dan' sits at this table" in out


def test_the_kit_command_validates_and_draws_a_kit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kit", "standin-e2-5p"]) == 0
    out = capsys.readouterr().out
    assert "kit standin-e2-5p (stand-in): evo2, 5 players" in out and "hash sha256:" in out
    assert "seat 5 starts on" in out and "island" in out
    assert main(["kit", "nowhere"]) == 2
    assert main(["kit"]) == 0 and "standin-e2-2p" in capsys.readouterr().out


def test_the_console_script_runs_as_installed() -> None:
    replay = ROOT / "replays" / "hand-3p-first-game.evo"
    done = subprocess.run(
        [sys.executable, "-m", "evo_ledger", "check", str(replay)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "186 actions legal" in done.stdout


def test_every_trait_card_ruling_that_forbids_an_action_has_a_ruling_file() -> None:
    covered = {EXPECT.match(path.read_text()).group(2) for path in RULING_FILES}  # type: ignore[union-attr]
    # TR-01, 06, 15, 16, 22, 23 and 24 forbid no action; unit tests cover them.
    forbidding = {f"TR-{n:02d}" for n in (2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18, 19, 20, 21, 25)}
    assert forbidding <= covered
    assert (ROOT / "tests" / "rulings" / "tr-11-hunt-species.evo").is_file()
