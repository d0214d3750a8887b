"""A board given as data reaches a reader as JSON through `/view` (its `layout`), and the recording page's rules on
the device (`evo_ledger.rules.judge.Table`, which the browser runs under Pyodide) give the same layout, square by
square and piece by piece: here for the square-grid toy [GT-01], a ruleset installed from outside the rules'
package and shipped in the rules' bundle with it."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from evo_ledger.rules.judge import Table
from tests.helpers.api import client_for
from tests.helpers.tokens import bearer

ACTIONS = ["ann mark b2", "ben mark a1", "ann mark c3"]


def test_the_layout_served_is_the_one_the_device_draws_and_the_bundle_ships_the_ruleset(tmp_path: Path) -> None:
    with client_for(str(tmp_path / "grid.sqlite")) as client:
        created = client.post("/v1/games", json={"kit": "grid-3x3", "players": [{"name": "ann"}, {"name": "ben"}]})
        assert created.status_code == 201, created.text
        game, recorder = created.json()["game_id"], bearer(created.json()["recorder_token"])
        setup = client.get(f"/v1/games/{game}/setup", headers=recorder).json()
        rules = {key: setup[key] for key in ("ruleset", "kit", "players", "options")} | {
            "version": setup["ruleset_version"]
        }
        table = Table.of_json(json.dumps({"setup": rules, "actions": []}))
        for action in ACTIONS:
            assert "consequences" in table.enter(action), action
            assert (
                client.post(f"/v1/games/{game}/actions", json={"actions": [action]}, headers=recorder).status_code
                == 200
            )
            served = client.get(f"/v1/games/{game}/view", headers=recorder).json()["layout"]
            assert served == table.position()["layout"], action
        assert [piece["space"] for piece in served["pieces"]] == ["b2", "a1", "c3"] and served["grid"] == "square"
        bundle = zipfile.ZipFile(io.BytesIO(client.get("/rules.zip").content))
    assert "tests/grid_toy/ruleset.py" in bundle.namelist() and "tests/grid_toy/kits/grid-3x3.json" in bundle.namelist()
