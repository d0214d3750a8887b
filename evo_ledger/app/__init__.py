"""The application: the Ledger (one method per use case), the writer, disputes, audit, transfer, self-play and access.

May import the store, the game, the rules and the settings; never the projections, the API or the command line."""
