"""The game: the Game aggregate and its events, their codec, notation, sentences, hash chain, seals and checkpoints.

May import the rules, the settings, eventsourcing (its domain, persistence and utilities) and msgpack; never the
store, or anything else that stores or serves."""
