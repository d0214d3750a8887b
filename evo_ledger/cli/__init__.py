"""The command line: its commands, the table console and text views; the composition root that wires the rest.

May import every other part: the application, projections and the API (the API only to serve it)."""
