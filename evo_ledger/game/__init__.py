"""The game: the Game aggregate and its events, their codec, notation, sentences, hash chain, seals and checkpoints.

May import the rules, the settings and eventsourcing's domain and persistence types; nothing that stores or serves."""
