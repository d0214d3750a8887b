"""`/rules.zip`: the installed rulesets as the browser's Python loads them: the rules' package and their entry points
alone, each module importing the standard library and the bundle alone, and kept by the browser until they change."""

from __future__ import annotations

import ast
import io
import sys
import zipfile
from pathlib import Path

from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.settings import Settings


def bundle_of(client: TestClient) -> zipfile.ZipFile:
    answer = client.get("/rules.zip")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/zip"
    return zipfile.ZipFile(io.BytesIO(answer.content))


def imported_tops(source: str) -> set[str]:
    tops: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def test_the_rules_bundle_holds_the_rulesets_and_their_entry_points_and_imports_the_standard_library_alone(
    tmp_path: Path,
) -> None:
    app = create_app(ApiSettings(store=Settings(str(tmp_path / "b.sqlite")), follow_projections=False))
    with TestClient(app) as client:
        bundle = bundle_of(client)
        tag = client.get("/rules.zip").headers["etag"]
        assert client.get("/rules.zip", headers={"If-None-Match": tag}).status_code == 304
    names = bundle.namelist()
    modules = [name for name in names if name.endswith(".py")]
    project = {name.split("/")[1] for name in modules if name.startswith("evo_ledger/") and name.count("/") > 1}
    assert project == {"rules"}  # no other part of the project
    assert "evo_ledger/rules/evo2/ruleset.py" in names and "evo_ledger/rules/judge.py" in names
    [entry_points] = [name for name in names if name.endswith(".dist-info/entry_points.txt")]
    assert "evo2 = evo_ledger.rules.evo2.ruleset:Evo2Ruleset" in bundle.read(entry_points).decode()
    for module in modules:
        outside = imported_tops(bundle.read(module).decode()) - set(sys.stdlib_module_names) - {"evo_ledger"}
        assert not outside, f"{module} imports {outside}"
