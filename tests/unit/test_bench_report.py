"""A benchmark's report replaces its own section of the benchmarks page and leaves the others as they are."""

from __future__ import annotations

import re
from pathlib import Path

from bench.report import verdict, write_section


def test_a_report_is_added_once_then_replaced_in_place(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nIntro.\n")
    write_section("rules-evo1", "## Rules engine: evo1\n\nfirst", page)
    write_section("rules-evo2", "## Rules engine: evo2\n\nsecond", page)
    write_section("rules-evo1", "## Rules engine: evo1\n\nagain", page)
    text = page.read_text()
    assert text.startswith("# Benchmarks\n\nIntro.\n")
    assert text.count("## Rules engine: evo1") == 1 and "again" in text and "first" not in text
    assert text.index("Rules engine: evo1") < text.index("Rules engine: evo2")


def test_a_verdict_says_whether_the_target_is_met() -> None:
    assert verdict(1.04, 1.0) == "1.04x, target 1.0x: met"
    assert verdict(0.71, 1.0) == "0.71x, target 1.0x: not met"


def test_the_benchmarks_page_holds_only_what_the_benchmarks_wrote() -> None:
    """Beside its introduction, every section of the page lies inside a report a benchmark wrote."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md").read_text()
    outside = re.sub(r"<!-- report: [^>]+ -->.*?<!-- end of report: [^>]+ -->", "", text, flags=re.DOTALL)
    assert [line for line in outside.splitlines() if line.startswith("#")] == ["# Benchmarks"]
    assert "rules-evo1" in text and "rules-evo2" in text
