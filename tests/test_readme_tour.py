"""The README as a newcomer follows it, in one folder: the set-up's main job, then the five-minute tour, then "Over
HTTP", command by command in one shell, each output compared with the README's.

The folder's `.venv` is this suite's own environment (the set-up's install steps are the suite's), so the README's
commands run as written. In what the README shows after a command, a line `...` stands for any lines, `...` within
a line for any text, and ids and hashes for any of their kind; a command that assigns `GAME` and `TOKEN` takes the
game id and recorder token of the answer before it, as a reader copies them; `play`, interactive, is left out."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.support import ROOT, child_env

MAIN_JOB_STEPS_AFTER_INSTALL = 2
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
WILDCARDS = {UUID: UUID, r"[0-9a-f]{64}": r"[0-9a-f]{64}", r"\.\.\.": r"[^\n]*"}
TOKEN_PART = re.compile("|".join(f"(?:{pattern})" for pattern in WILDCARDS))
README_PORT = "8000"


@dataclass(frozen=True)
class Step:
    command: str
    shown: list[str]

    @property
    def refused(self) -> bool:
        return any(line.startswith("refused:") for line in self.shown)


def readme_section(title: str) -> str:
    return (ROOT / "README.md").read_text().split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def steps_of(section: str) -> list[Step]:
    """Each command of the section's text blocks, with the lines the README shows after it."""
    steps: list[Step] = []
    for block in re.findall(r"```text\n(.+?)\n```", section, flags=re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append(Step(re.split(r"\s{2,}# ", line.removeprefix("$ "), maxsplit=1)[0].strip(), []))
            else:
                steps[-1].shown.append(line.rstrip())
    return steps


def shown_pattern(shown: list[str]) -> re.Pattern[str]:
    """What the README shows as a pattern over the whole output."""
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        pieces, last = [], 0
        for found in TOKEN_PART.finditer(line):
            pieces += [re.escape(line[last : found.start()]), wildcard(found.group())]
            last = found.end()
        parts.append("".join([*pieces, re.escape(line[last:])]) + r"\n")
    return re.compile("".join(parts))


def wildcard(text: str) -> str:
    return next(replacement for pattern, replacement in WILDCARDS.items() if re.fullmatch(pattern, text))


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def shell_line(number: int, step: Step, port: str) -> str:
    """The step as the script runs it: its output and exit status kept apart, a server started in the background
    and waited for, GAME and TOKEN taken from the answer before."""
    command = step.command.replace(f"localhost:{README_PORT}", f"localhost:{port}")
    command = command.replace(f"--port {README_PORT}", f"--port {port}")
    if command.startswith("evo-ledger play"):
        command = "true"
    elif command.startswith("GAME="):
        read = f"python3 -c \"import json; print(json.load(open('step-{number - 1}.out'))[{{}}])\""
        command = f"GAME=$({read.format(repr('game_id'))}) TOKEN=$({read.format(repr('recorder_token'))})"
    if command.endswith("&"):
        wait = f"for _ in $(seq 300); do curl -s localhost:{port}/health > /dev/null && break; sleep 0.1; done"
        return (
            f"{command.removesuffix('&')} > server.log 2>&1 &\n{wait}\necho 0 > step-{number}.rc; : > step-{number}.out"
        )
    return f"{command} > step-{number}.out 2>&1; echo $? > step-{number}.rc"


@pytest.mark.slow
def test_the_readmes_set_up_tour_and_http_section_run_in_one_folder_as_shown(tmp_path: Path) -> None:
    """Long by design: each of the README's commands runs as a newcomer runs it, a process of its own started from
    the shell, after a set-up that imports every replay, and the HTTP section waits for a real server to start.

    Slow: the README's commands run as a newcomer types them, each a process of its own, and a server started."""
    (tmp_path / "replays").symlink_to(ROOT / "replays")
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    main_job = re.findall(r"```sh\n(.+?)\n```", readme_section("Set-up"))[0].split(" && ")
    assert main_job[:MAIN_JOB_STEPS_AFTER_INSTALL] == ["python3 -m venv .venv", ".venv/bin/pip install -e ."]
    steps = steps_of(readme_section("A five-minute tour")) + steps_of(readme_section("Over HTTP"))
    assert len(steps) >= 15 and steps[0].command == ". .venv/bin/activate"
    port = free_port()
    script = [
        "set -u",
        "{ " + " && ".join(main_job[MAIN_JOB_STEPS_AFTER_INSTALL:]) + "; } > main-job.out 2>&1; echo $? > main-job.rc",
        *(shell_line(number, step, port) for number, step in enumerate(steps)),
        "kill %1 2> /dev/null; wait",
    ]
    env = {key: value for key, value in child_env().items() if key not in ("EVO_LEDGER_DATABASE", "VIRTUAL_ENV")}
    subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp_path, env=env, timeout=400, check=True)
    main_job_output = (tmp_path / "main-job.out").read_text()
    assert (tmp_path / "main-job.rc").read_text().strip() == "0", main_job_output
    assert main_job_output.count("events\n") >= 2 * len(list((ROOT / "replays").glob("*.evo")))
    assert "event 200 · millennium" in main_job_output  # the last file's game: a trait-card game
    for number, step in enumerate(steps):
        output = "".join(f"{line.rstrip()}\n" for line in (tmp_path / f"step-{number}.out").read_text().splitlines())
        status = int((tmp_path / f"step-{number}.rc").read_text())
        assert status == (1 if step.refused else 0), (step.command, output)
        assert shown_pattern(step.shown).fullmatch(output), (step.command, output, step.shown)
    assert json.loads((tmp_path / f"step-{len(steps) - 1}.out").read_text())["verdict"] == "clean"
    assert os.path.isfile(tmp_path / "evo-ledger.sqlite")
