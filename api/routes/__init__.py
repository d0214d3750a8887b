"""One router per resource: games (create, list, summary, actions, admin) and their events (log, state, stream,
export)."""
