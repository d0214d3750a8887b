"""The README's five-minute tour runs as written: each command in order, in an empty folder beside the shipped
replays, exits 0 (or 1 where the README shows a refusal, with that refusal); `play`, interactive, is left out."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.support import ROOT, child_env

EVO_LEDGER = Path(sys.executable).parent / "evo-ledger"


def tour_steps() -> list[tuple[str, str | None]]:
    """Each command of the tour, with the refusal the README shows after it (None: it succeeds)."""
    readme = (ROOT / "README.md").read_text()
    tour = readme.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    steps: list[tuple[str, str | None]] = []
    for block in re.findall(r"```text\n(.+?)\n```", tour, flags=re.DOTALL):
        lines = block.splitlines()
        for index, line in enumerate(lines):
            if line.startswith("$ "):
                following = lines[index + 1] if index + 1 < len(lines) else ""
                refusal = following if following.startswith("refused") else None
                steps.append((line.removeprefix("$ ").split("  #", 1)[0].strip(), refusal))
    return steps


def test_the_readmes_tour_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "replays").symlink_to(ROOT / "replays")
    env = {key: value for key, value in child_env().items() if key != "EVO_LEDGER_DATABASE"}
    steps = tour_steps()
    assert len(steps) >= 8
    for command, refusal in steps:
        words = shlex.split(command)
        assert words[0] == "evo-ledger", command
        if words[1] == "play":
            continue
        done = subprocess.run(
            [str(EVO_LEDGER), *words[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if refusal is None:
            assert done.returncode == 0, (command, done.stderr)
        else:
            assert done.returncode == 1 and refusal in done.stdout + done.stderr, (command, done.stderr)
    assert os.path.isfile(tmp_path / "evo-ledger.sqlite")
