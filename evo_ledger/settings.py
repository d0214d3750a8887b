"""One setting chooses the event store: a SQLite file path (the default) or a `postgresql://` URL.

EVO_LEDGER_DATABASE=games.sqlite                       (default: evo-ledger.sqlite in the working folder)
EVO_LEDGER_DATABASE=postgresql://user:secret@host:5432/evo

EVO_LEDGER_SEAL_KEY, if set, seals every event stored with that key (evo_ledger.game.seal); audits given it check the
seals.

A store opened `read_only` (`evo-ledger serve --read-only`, on a PostgreSQL streaming replica) is read as it is:
nothing creates or changes its tables.

EVO_LEDGER_STORED_FORM (default packed) is the form new events are stored in: `packed`, each append's events of a
game kept together in one row, compact and deflated together, a hash stored once (evo_ledger.store.packed); or one
row an event, `compact`, each event's fields as a list of a known shape with its hashes as bytes (a snapshot's, and
any long event's, deflated), or `keyed`, each a msgpack map naming its fields. Hashes, seals and checkpoints are
taken over the keyed form, which the others give back byte for byte. The packed form reads rows of the other two
as well (a store made before it, or one `evo-ledger migrate` is moving into it); a store holding packed rows is
refused by the others, which would not read them.

EVO_LEDGER_LOG_CACHE_EVENTS (default 50000) bounds how many decoded events of recently read games a ledger keeps,
so that the game at any of their events is folded without reading the database (evo_ledger.store.game_logs); 0 keeps
none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

DATABASE_VARIABLE = "EVO_LEDGER_DATABASE"
DEFAULT_DATABASE = "evo-ledger.sqlite"
SEAL_KEY_VARIABLE = "EVO_LEDGER_SEAL_KEY"
LOG_CACHE_VARIABLE = "EVO_LEDGER_LOG_CACHE_EVENTS"
STORED_FORM_VARIABLE = "EVO_LEDGER_STORED_FORM"
PACKED, COMPACT, KEYED = "packed", "compact", "keyed"
STORED_FORMS = (PACKED, COMPACT, KEYED)
DEFAULT_LOG_CACHE_EVENTS = 50_000
# Seconds a writer waits for a lock before giving up with an error rather than hanging.
LOCK_TIMEOUT_SECONDS = 5
# Seconds the ledger waits for a connection to a PostgreSQL server before giving up with an error.
CONNECT_TIMEOUT_SECONDS = 5


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    database: str = DEFAULT_DATABASE
    seal_key: str | None = field(default=None, repr=False)
    log_cache_events: int = DEFAULT_LOG_CACHE_EVENTS
    read_only: bool = False
    stored_form: str = PACKED

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            database=os.environ.get(DATABASE_VARIABLE) or DEFAULT_DATABASE,
            seal_key=os.environ.get(SEAL_KEY_VARIABLE) or None,
            log_cache_events=log_cache_events(os.environ.get(LOG_CACHE_VARIABLE)),
            stored_form=stored_form(os.environ.get(STORED_FORM_VARIABLE)),
        )

    @classmethod
    def for_database(cls, database: str | None) -> Settings:
        """The environment's settings, with `database` instead of the environment's when it is given."""
        settings = cls.from_environment()
        return settings if not database else replace(settings, database=database)

    @property
    def described(self) -> str:
        """The store in words, without a password: `SQLite file games.sqlite`, `PostgreSQL database test at HOST`."""
        if not self.is_postgres:
            return f"SQLite file {self.database}"
        parts = urlsplit(self.database)
        return f"PostgreSQL database {parts.path.strip('/')} at {parts.hostname}:{parts.port or 5432}"

    @property
    def is_postgres(self) -> bool:
        return self.database.startswith(("postgresql://", "postgres://"))


def log_cache_events(text: str | None) -> int:
    if not text:
        return DEFAULT_LOG_CACHE_EVENTS
    if not (text.strip().isascii() and text.strip().isdigit()):
        raise SettingsError(f"{LOG_CACHE_VARIABLE}: a number of events, 0 or more, not {text!r}")
    return int(text)


def stored_form(text: str | None) -> str:
    if not text:
        return PACKED
    if text not in STORED_FORMS:
        raise SettingsError(
            f"{STORED_FORM_VARIABLE}: {', '.join(STORED_FORMS[:-1])} or {STORED_FORMS[-1]}, not {text!r}"
        )
    return text
