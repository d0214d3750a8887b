"""Read models built from the global event log: standings, auction histories, statistics; read via queries.py.

May import the application and the parts below it, eventsourcing, psycopg, SQLAlchemy, openskill, numpy and
pyarrow; never the API or the command line."""

PAGE = 1000
"""Events the runner reads from the log and writes to the tables in one transaction, unless told otherwise."""
