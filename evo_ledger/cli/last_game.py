"""Which game `last` names on the command line: the game a command last stored or named, remembered for each
database (in a file beside a SQLite file, as SQLite keeps its own `-wal`; in the user's state folder for a
PostgreSQL database). Where nothing is remembered, or the game is gone, `last` is the game started last."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from uuid import UUID

from evo_ledger.cli.state import state_folder
from evo_ledger.settings import Settings

SUFFIX = "-last"


def pointer_file(settings: Settings) -> Path:
    if not settings.is_postgres:
        return Path(settings.database + SUFFIX)
    key = hashlib.sha256(settings.database.encode()).hexdigest()[:16]
    return state_folder() / f"last-{key}"


def remembered(settings: Settings) -> UUID | None:
    try:
        return UUID(pointer_file(settings).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def remember(settings: Settings, game_id: UUID) -> None:
    """Written whole or not at all; a folder that cannot be written leaves `last` to the game started last."""
    path = pointer_file(settings)
    written = path.with_name(f"{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        written.write_text(str(game_id), encoding="ascii")
        os.replace(written, path)
    except OSError:
        written.unlink(missing_ok=True)
