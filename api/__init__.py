"""The HTTP API (FastAPI): one router per resource over the ledger, built by an app factory."""

from api.app import ApiSettings, create_app

__all__ = ["ApiSettings", "create_app"]
