"""The README's set-up commands stay true: CI runs the README's test command, word for word."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup)


def test_the_readme_has_a_run_command_and_a_test_command() -> None:
    run, test = readme_commands()
    assert "evo-ledger" in run and "pytest" in test


def test_ci_runs_the_readmes_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert script[-1] == readme_commands()[1]


def test_the_readmes_run_command_records_games_into_the_default_file_and_shows_one(tmp_path: Path) -> None:
    """Everything after the install, run in an empty folder beside the shipped replays."""
    run = readme_commands()[0]
    steps = run.split(" && ")
    assert steps[:2] == ["python3 -m venv .venv", ".venv/bin/pip install -e ."]
    (tmp_path / "replays").symlink_to(ROOT / "replays")
    bin_folder = Path(sys.executable).parent
    commands = " && ".join(step.replace(".venv/bin/", f"{bin_folder}/") for step in steps[2:])
    env = {key: value for key, value in os.environ.items() if key != "EVO_LEDGER_DATABASE"}
    done = subprocess.run(
        commands, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "evo-ledger.sqlite").is_file()
    assert done.stdout.count("events\n") >= 2 * len(list((ROOT / "replays").glob("*.evo")))
    assert "event 200 · millennium" in done.stdout  # the last file: the hand-worked trait-card game
