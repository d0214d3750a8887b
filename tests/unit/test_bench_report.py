"""A benchmark's report replaces its own section of the benchmarks page and leaves the others as they are."""

from __future__ import annotations

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
