"""Installs the programs the tests start, where they are missing and it can (as root, with apt-get): Debian's
Chromium for the browser tests and PostgreSQL's server programs for the replica tests. Otherwise it says how, and
those tests then skip (or fail under CI=true) with the same command.

    python -m tools.ensure_test_programs
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = os.environ.get("EVO_CHROMIUM", "/usr/bin/chromium")
INSTALL_CHROMIUM = "apt-get update && apt-get install -y chromium"
INSTALL_POSTGRES = "apt-get update && apt-get install -y postgresql"
SERVER_PROGRAMS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")


def version_of(bindir: Path) -> tuple[int, ...]:
    """`/usr/lib/postgresql/15/bin`'s version, (15,), to pick the highest."""
    return tuple(int(number) for number in re.findall(r"\d+", bindir.parent.name))


def pg_config_bindir() -> Path | None:
    if shutil.which("pg_config") is None:
        return None
    done = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def postgres_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs: EVO_TEST_POSTGRES_BIN, else `pg_config --bindir`, else the
    highest `/usr/lib/postgresql/*/bin`; None where none of these holds every program the tests run."""
    if os.environ.get("EVO_TEST_POSTGRES_BIN"):
        candidates = [Path(os.environ["EVO_TEST_POSTGRES_BIN"])]
    else:
        installed = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version_of, reverse=True)
        candidates = [bindir for bindir in [pg_config_bindir(), *installed] if bindir is not None]
    for bindir in candidates:
        if all((bindir / program).is_file() for program in SERVER_PROGRAMS):
            return bindir
    return None


@dataclass(frozen=True)
class NeededProgram:
    name: str
    needed_by: str  # the tests that need it, as a sentence
    install: str
    present: Callable[[], bool]


PROGRAMS = (
    NeededProgram(
        f"Chromium ({CHROMIUM})", "the browser tests need it", INSTALL_CHROMIUM, lambda: Path(CHROMIUM).is_file()
    ),
    NeededProgram(
        "PostgreSQL's server programs",
        "the replica tests need them",
        INSTALL_POSTGRES,
        lambda: postgres_bindir() is not None,
    ),
)


def ensure(program: NeededProgram) -> None:
    if program.present():
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"not found: {program.name}; {program.needed_by}: {program.install}   (as root)", file=sys.stderr)
        return
    print(f"installing {program.name} for the tests: {program.install}", file=sys.stderr, flush=True)
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(program.install, shell=True, env=environment, check=False, stdout=subprocess.DEVNULL)
    if done.returncode != 0 or not program.present():
        print(f"{program.name} could not be installed; run as root: {program.install}", file=sys.stderr)


def main() -> int:
    for program in PROGRAMS:
        ensure(program)
    return 0


if __name__ == "__main__":
    sys.exit(main())
