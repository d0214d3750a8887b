"""The user's state folder, where the command line keeps what outlives a command: which game `last` names in a
PostgreSQL database, and the table's certificate and key (`evo-ledger tls`)."""

from __future__ import annotations

import os
from pathlib import Path


def state_folder() -> Path:
    """`$XDG_STATE_HOME/evo-ledger`, by default `~/.local/state/evo-ledger`."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "evo-ledger"
