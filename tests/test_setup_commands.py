"""The README's set-up commands stay true: CI runs the README's test command, word for word, and the quick tier's
command is the one the contributors' guide gives."""

from __future__ import annotations

import re

from tests.helpers.support import ROOT


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", setup)


def test_the_readme_has_a_run_command_a_test_command_and_the_quick_tiers() -> None:
    run, test, quick = readme_commands()
    assert "evo-ledger" in run and test.endswith(".venv/bin/pytest")
    assert quick == '.venv/bin/pytest -m "not slow"'
    assert f"`{quick}`" in (ROOT / "docs" / "testing.md").read_text()


def test_ci_runs_the_readmes_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert script[-1] == readme_commands()[1]
