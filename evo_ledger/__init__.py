"""evo-ledger: record, replay and audit games of Evo as an append-only log of events.

May import nothing: it holds the version, which every part of the project but the rules may import."""

__version__ = "0.1.0"
