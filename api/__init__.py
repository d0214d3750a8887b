"""The HTTP API (FastAPI): one router per resource over the ledger, built by an app factory."""
