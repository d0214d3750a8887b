"""The kit editor on a phone's 390x844 screen: a copy of a shipped `evo1` kit edited with no connection and saved
when the connection returns; a `traits` kit's card list entered as a table.

Slow: drives Chromium, and the kit editor's checks run in Python in the browser, which starts in seconds."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.helpers.line import Line
from tests.helpers.offline import RULES_READY, RULES_START_MS, back_on, cut_off

pytestmark = pytest.mark.slow(reason="drives Chromium; the kit editor's rules start in Python in the browser")


def stored_names(server: str) -> list[str]:
    return [kit["name"] for kit in httpx.get(f"{server}/v1/kits").json()["kits"] if kit["stored"]]


def test_kit_editor_a_copy_of_an_evo1_kit_edited_offline_is_saved_when_the_connection_returns(
    phone: Any, server: str, line: Line
) -> None:
    page = phone.new_page()
    page.goto(f"{line.base}/kits/new?from=standin-e1-3p")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.reload()
    expect(page.locator(RULES_READY)).to_be_visible(timeout=RULES_START_MS)
    page.wait_for_function("() => document.body.dataset.rulesKept === 'true'")
    expect(page.locator("#half option")).to_have_count(2)
    cut_off(phone, page, line)
    page.get_by_label("name").fill("our-first-edition")
    page.locator('#grid polygon[data-space="A2"]').tap()  # yellow to green
    expect(page.locator('#grid polygon[data-space="A2"]')).to_have_attribute("data-terrain", "green")
    expect(page.locator("#save")).to_be_enabled()
    page.locator("#save").tap()
    expect(page.locator("#save-why")).to_contain_text("saved when the connection returns")
    assert stored_names(server) == []
    back_on(phone, line)
    expect(page.locator("#saved-as")).to_contain_text("saved as sha256:")
    assert stored_names(server) == ["our-first-edition"]


def test_kit_editor_a_traits_card_list_is_entered_as_a_table(phone: Any, server: str) -> None:
    page = phone.new_page()
    page.goto(f"{server}/kits/new?from=standin-traits")
    expect(page.locator(RULES_READY)).to_be_visible(timeout=RULES_START_MS)
    expect(page.locator("#table-editor")).to_be_visible()
    page.get_by_label("name").fill("our-traits")
    page.get_by_label("trait 1", exact=True).fill("size")
    page.get_by_label("trait 2", exact=True).fill("size")  # a trait twice: refused
    refusal = page.locator('.problem[data-for="table"]')
    expect(refusal).to_have_attribute("data-field", "traits")
    expect(page.locator("#save")).to_be_disabled()
    page.get_by_label("trait 2", exact=True).fill("strength")
    page.get_by_label("cards of each trait").fill("12")
    expect(refusal).to_be_empty()
    expect(page.locator("#save")).to_be_enabled()
    page.locator("#save").tap()
    expect(page.locator("#saved-as")).to_contain_text("saved as sha256:")
    kit_hash = page.evaluate("() => document.body.dataset.saved")
    assert httpx.get(f"{server}/v1/kits/{kit_hash}").json()["trait_cards"] == 12
