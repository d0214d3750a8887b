"""One setting chooses the event store: a SQLite file path (the default) or a `postgresql://` URL.

EVO_LEDGER_DATABASE=games.sqlite                       (default: evo-ledger.sqlite in the working folder)
EVO_LEDGER_DATABASE=postgresql://user:secret@host:5432/evo

EVO_LEDGER_SEAL_KEY, if set, seals every event stored with that key (evo_ledger.game.seal); audits given it check the
seals.

EVO_LEDGER_LOG_CACHE_EVENTS (default 50000) bounds how many decoded events of recently read games a ledger keeps,
so that the game at any of their events is folded without reading the database (evo_ledger.store.game_logs); 0 keeps
none.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from urllib.parse import unquote, urlsplit

DATABASE_VARIABLE = "EVO_LEDGER_DATABASE"
DEFAULT_DATABASE = "evo-ledger.sqlite"
SEAL_KEY_VARIABLE = "EVO_LEDGER_SEAL_KEY"
LOG_CACHE_VARIABLE = "EVO_LEDGER_LOG_CACHE_EVENTS"
DEFAULT_LOG_CACHE_EVENTS = 50_000
# Seconds a writer waits for a lock before giving up with an error rather than hanging.
LOCK_TIMEOUT_SECONDS = 5


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    database: str = DEFAULT_DATABASE
    seal_key: str | None = field(default=None, repr=False)
    log_cache_events: int = DEFAULT_LOG_CACHE_EVENTS

    @classmethod
    def from_environment(cls) -> Settings:
        return cls(
            database=os.environ.get(DATABASE_VARIABLE) or DEFAULT_DATABASE,
            seal_key=os.environ.get(SEAL_KEY_VARIABLE) or None,
            log_cache_events=log_cache_events(os.environ.get(LOG_CACHE_VARIABLE)),
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

    def persistence_env(self) -> dict[str, str]:
        """The event store's configuration, in the eventsourcing library's terms."""
        if self.is_postgres:
            return postgres_env(self.database)
        return {
            "PERSISTENCE_MODULE": "evo_ledger.store.recorders:DurableSQLiteFactory",
            "SQLITE_DBNAME": self.database,
            "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
        }


def log_cache_events(text: str | None) -> int:
    if not text:
        return DEFAULT_LOG_CACHE_EVENTS
    if not (text.strip().isascii() and text.strip().isdigit()):
        raise SettingsError(f"{LOG_CACHE_VARIABLE}: a number of events, 0 or more, not {text!r}")
    return int(text)


def postgres_env(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    if not parts.hostname or not parts.path.strip("/"):
        raise SettingsError(f"{DATABASE_VARIABLE}: a PostgreSQL URL needs a host and a database name: {url!r}")
    return {
        "PERSISTENCE_MODULE": "evo_ledger.store.recorders:LedgerPostgresFactory",
        "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": unquote(parts.username or os.environ.get("USER") or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
        "POSTGRES_POOL_SIZE": "5",
    }
