"""evo-ledger: record, replay and audit games of Evo as an append-only log of events."""

__version__ = "0.1.0"
