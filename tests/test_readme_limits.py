"""The README reads in five minutes: at most 200 lines and 1,100 words outside its code blocks. Near the top it says
that the shipped boards are stand-ins and where to enter one's own; it names the admin token and the recorder's; and
every link in it, and in the page on phones it sends readers to, leads somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.support import ROOT

README = ROOT / "README.md"
MOST_LINES = 200
MOST_WORDS = 1100
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, the fences left out."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside:
            lines.append(line)
    return lines


def anchor(heading: str) -> str:
    """A heading's anchor as the Markdown renderer makes it: lower case, punctuation dropped, spaces as hyphens."""
    words = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return words.replace(" ", "-")


def anchors_of(page: Path) -> set[str]:
    return {anchor(line.lstrip("#")) for line in prose_lines(page.read_text()) if re.match(r"#{1,6} ", line)}


def test_the_readme_is_at_most_200_lines_and_1100_words_outside_its_code() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MOST_LINES
    assert sum(len(line.split()) for line in prose_lines(text)) <= MOST_WORDS


def test_the_readme_says_near_the_top_that_the_boards_are_stand_ins_and_how_to_enter_ones_own() -> None:
    prose = "\n".join(prose_lines(README.read_text()))
    top = prose.split("## Set-up", 1)[0]
    assert "stand-in" in top and "docs/kits.md" in top and "evo-ledger kit" in top


def test_the_readme_names_the_admin_token_and_the_recorders_token() -> None:
    prose = " ".join(prose_lines(README.read_text()))
    assert "admin token" in prose and "EVO_LEDGER_ADMIN_TOKEN" in prose
    assert "recorder's token" in prose


@pytest.mark.parametrize("page", [README, ROOT / "docs" / "phones.md"], ids=lambda page: page.name)
def test_every_link_leads_to_a_file_and_a_heading_that_are_there(page: Path) -> None:
    for target in LINK.findall("\n".join(prose_lines(page.read_text()))):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), (page.name, target)
        if fragment:
            assert fragment in anchors_of(linked), (page.name, target)
