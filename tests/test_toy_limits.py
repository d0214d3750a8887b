"""The toy ruleset shows how little a ruleset writes over the contract's defaults: its Python in at most 60 plain
lines, one statement a line, each line under 100 characters."""

from __future__ import annotations

import ast

from tests.helpers.support import ROOT

TOY = ROOT / "tests" / "toy" / "ruleset.py"
MOST_LINES = 60
LONGEST = 99


def code_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_the_toy_ruleset_is_at_most_60_lines_each_under_100_characters() -> None:
    lines = code_lines(TOY.read_text())
    assert len(lines) <= MOST_LINES
    assert [line for line in lines if len(line) > LONGEST] == []


def test_each_statement_of_the_toy_ruleset_has_a_line_of_its_own() -> None:
    tree = ast.parse(TOY.read_text())
    statements = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    starts = [node.lineno for node in statements]
    assert len(starts) == len(set(starts)), "two statements share a line"
    packed = [
        node.lineno
        for node in statements
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Tuple) for target in node.targets)
    ]
    assert packed == [], "several names bound in one statement"


def test_the_limits_catch_a_packed_line() -> None:
    packed = "a, b = 1, 2\nif a: b = 3\n"
    tree = ast.parse(packed)
    starts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert len(starts) != len(set(starts))
