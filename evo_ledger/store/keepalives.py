"""How a connection to PostgreSQL drops a silent peer on both of its ends: the connection's own TCP keepalives
and TCP user timeout (libpq's parameters, the client's side) and the same settings asked of the database for its
side (`tcp_keepalives_*`, `tcp_user_timeout`). A peer that stops answering, its machine or its network gone, is
dropped within SILENT_PEER_SECONDS: after KEEPALIVE_IDLE_SECONDS of silence, probes KEEPALIVE_INTERVAL_SECONDS
apart, or unacknowledged data waiting that long. The operating system's defaults wait about two hours.

The lease connections (`leases`) and the read tables' connections keep them, so that the database frees the locks
of a holder gone silent, and the holder finds out, within that time.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SILENT_PEER_SECONDS", "silent_peers_dropped"]

KEEPALIVE_IDLE_SECONDS = 5
KEEPALIVE_INTERVAL_SECONDS = 2
KEEPALIVE_COUNT = 3
# How long a silent peer is waited for, by the database and by the client: the keepalives' whole course.
SILENT_PEER_SECONDS = KEEPALIVE_IDLE_SECONDS + KEEPALIVE_INTERVAL_SECONDS * KEEPALIVE_COUNT


def silent_peers_dropped(server_settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """libpq's connection parameters that drop a silent database within SILENT_PEER_SECONDS, and `options` asking
    the database to drop a silent client alike, with the other `server_settings` given (a setting's name, its
    value)."""
    keepalives = {
        "tcp_keepalives_idle": KEEPALIVE_IDLE_SECONDS,
        "tcp_keepalives_interval": KEEPALIVE_INTERVAL_SECONDS,
        "tcp_keepalives_count": KEEPALIVE_COUNT,
        "tcp_user_timeout": SILENT_PEER_SECONDS * 1000,
    }
    settings = keepalives | (server_settings or {})
    return {
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE_SECONDS,
        "keepalives_interval": KEEPALIVE_INTERVAL_SECONDS,
        "keepalives_count": KEEPALIVE_COUNT,
        "tcp_user_timeout": SILENT_PEER_SECONDS * 1000,
        "options": " ".join(f"-c {name}={value}" for name, value in settings.items()),
    }
