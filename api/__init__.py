"""The HTTP API (FastAPI): one router per resource over the ledger, built by an app factory.

May import the projections, the application and the parts below them, eventsourcing, FastAPI, Starlette, pydantic,
anyio and SQLAlchemy (for a connection type); never the command line."""

from api.app import ApiSettings, create_app

__all__ = ["ApiSettings", "create_app"]
