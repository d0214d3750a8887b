"""The application: the Ledger (one method per use case), the writer, the server's processes, disputes, audit, transfer,
self-play and access.

May import the store, the game, the rules, the settings and eventsourcing; never the projections, the API or the
command line."""
