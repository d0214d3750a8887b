"""One router per resource: games (create, list, summary, actions, admin), their events (log, state, stream,
export, import), audits, the read tables' statistics, rulings, health and the pages.

May import the rest of the API and what the API may import; never the command line."""
