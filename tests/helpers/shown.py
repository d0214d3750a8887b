"""What a reader is shown of what the ledger stores: seats' labels as their handles, sealed text opened
(evo_ledger.app.personal), for a test that reads the ledger below the API and the command line."""

from __future__ import annotations

import json
from typing import Any

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.personal import as_json_text


def shown(ledger: Ledger, text: str) -> str:
    """The text as an answer shows it."""
    return ledger.store.personal.render(text)


def shown_value(ledger: Ledger, value: Any) -> Any:
    """A plain value (lists, dicts, strings, numbers) with each string in it as an answer shows it."""
    return json.loads(ledger.store.personal.render(json.dumps(value), as_json_text))


def handles(ledger: Ledger, names: list[str]) -> list[str]:
    """Seats' names (labels) as their handles."""
    return [shown(ledger, name) for name in names]
