"""Makes a Python process see one ruleset installed, the one EVO_TEST_ONE_RULESET names: the entry points of the
rulesets' group are filtered as the process starts (this folder is put first on its PYTHONPATH, and every process a
server starts runs it too)."""

import importlib.metadata
import os
from typing import Any

ONLY = os.environ.get("EVO_TEST_ONE_RULESET")
GROUP = "evo_ledger.rulesets"
_all_entry_points = importlib.metadata.entry_points


def _one_ruleset(**selection: Any) -> Any:
    found: Any = _all_entry_points(**selection)
    if ONLY is None or selection.get("group") != GROUP:
        return found
    return importlib.metadata.EntryPoints(entry for entry in found if entry.name == ONLY)


setattr(importlib.metadata, "entry_points", _one_ruleset)  # noqa: B010 (the module's attribute, replaced at start)
