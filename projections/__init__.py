"""Read models built from the global event log: standings, auction histories, statistics; read via queries.py."""
