"""The store: eventsourcing's recorders and mapper as the ledger uses them, their fast paths, the log cache.

May import the game, the rules, the settings, eventsourcing and the database drivers; never the application above."""
