"""The recording page on a phone: a game set up over HTTP, the page settled after a tap, an action entered by
taps where the page offers its words, and the log read back."""

from __future__ import annotations

from typing import Any

import httpx

from evo_ledger.game.notation import GameFile, parse_game
from tests.helpers.support import ROOT

PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 640},
    "has_touch": True,
    "is_mobile": True,
    "device_scale_factor": 2,
}
# A phone of today's common size, held upright, where the pages' layouts are checked to fit.
PHONE_390: dict[str, Any] = {**PHONE, "viewport": {"width": 390, "height": 844}}


# The page's width as laid out, and each element's left and right edges, for the selectors given (every match).
WIDTHS = """(selectors) => ({
    inner: innerWidth,
    scrolled: document.scrollingElement.scrollWidth,
    boxes: selectors.map((selector) => [...document.querySelectorAll(selector)].map((found) => {
        const box = found.getBoundingClientRect();
        return [box.left, box.right, box.width];
    })),
})"""


def fits_the_width(page: Any, *selectors: str) -> None:
    """The page fits the viewport's width, as a phone lays it out: it is not zoomed out to a wider page (a mobile
    browser widens the page to fit what runs off its edge), nothing scrolls sideways, and each element each
    selector matches (at least one) lies within the width, with a width of its own."""
    width = page.viewport_size["width"]
    found = page.evaluate(WIDTHS, list(selectors))
    assert found["inner"] == width, f"the page is laid out {found['inner']} px wide on a {width} px screen"
    assert found["scrolled"] <= width, f"the page scrolls sideways: {found['scrolled']} px on a {width} px screen"
    for selector, boxes in zip(selectors, found["boxes"], strict=True):
        assert boxes, f"nothing on the page matches {selector}"
        outside = [box for box in boxes if box[0] < 0 or box[1] > width + 0.5 or box[2] <= 0]
        assert not outside, f"{selector}: {len(outside)} of {len(boxes)} beyond the {width} px width: {outside[:3]}"


GOLDEN = {
    "evo2": ROOT / "replays" / "hand-3p-first-game.evo",
    "evo1": ROOT / "replays" / "evo1-autosaur-hand-3p.evo",
    "traits": ROOT / "replays" / "traits-hand-2p.evo",
}


def new_game(server: str, parsed: GameFile) -> tuple[str, str]:
    """A game set up as the file's header says: its id and recorder token."""
    header = parsed.header
    body = {"kit": header.kit, "players": [{"name": name} for name in header.players], "options": dict(header.options)}
    created = httpx.post(f"{server}/v1/games", json=body)
    assert created.status_code == 201, created.text
    return created.json()["game_id"], created.json()["recorder_token"]


def open_recording(context: Any, server: str, game: str, token: str) -> Any:
    page = context.new_page()
    page.goto(f"{server}/games/{game}/record#token={token}")
    settled(page)
    return page


# The words entered, once the page has shown what a tap led to (checked every 5 ms: a tap's answer comes in a few).
SETTLED = """() => document.body.dataset.ready === "true"
    && [...document.querySelectorAll("#words .word")].map((word) => word.textContent.trim())"""


# The page once settled: the words entered, the message shown, the rules' decision offered as one tap, and where
# the next word of an action is offered once scrolled into view, as a finger would find it: a space on the board
# where it is offered there, else the word's choice; once the action's words are all entered, the record button.
# Asked in one call, which looks every 5 ms (a tap's answer comes in a few) and answers once the page has settled
# since `after`, or null after SETTLE_MS.
SETTLE_MS = 30_000
SETTLED_FOR = """async ([action, after, patience]) => {
    const settledSince = () => document.body.dataset.ready === "true" && Number(document.body.dataset.settled) > after;
    const deadline = performance.now() + patience;
    while (!settledSince()) {
        if (performance.now() > deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const held = [...document.querySelectorAll("#words .word")].map((word) => word.textContent.trim());
    const advice = document.getElementById("advice");
    const message = document.getElementById("message");
    const found = { held, at: null, settled: Number(document.body.dataset.settled),
        advice: advice.hidden ? null : advice.dataset.action, message: message.hidden ? "" : message.textContent };
    const next = action[held.length];
    const spot = next === undefined ? document.getElementById("record")
        : document.querySelector(`#board .space.offered[data-tap="${next}"]`)
        || document.querySelector(`#choices button[data-word="${next}"]`);
    if (spot) {
        spot.scrollIntoView({ block: "nearest" });
        const box = spot.getBoundingClientRect();
        found.at = [box.left + box.width / 2, box.top + box.height / 2];
    }
    return found;
}"""


def settled(page: Any) -> list[str]:
    words: list[str] = page.wait_for_function(SETTLED, polling=5).json_value()
    return words


def settled_for(page: Any, action: str, before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The page once settled (`SETTLED_FOR`), with `action` the one to be entered next; settled again since it
    was `before`, if given (a tap's answer, not the page as it stood when tapped)."""
    after = before["settled"] if before is not None else 0
    found: dict[str, Any] | None = page.evaluate(SETTLED_FOR, [action.split(), after, SETTLE_MS])
    assert found is not None, f"the page did not settle within {SETTLE_MS} ms, with {action!r} to enter"
    return found


def tap_action(page: Any, action: str, found: dict[str, Any] | None = None, pause_ms: float = 0) -> dict[str, Any]:
    """The action entered by taps and recorded, from the page as `found` settled (asked, if not given); an
    Autosaur's decision is one tap. With `pause_ms`, each tap waits that long once the page has settled, as a
    person's finger does. The page as it last settled before the tap that records: what it settles since is the
    tap's answer."""
    found = found or settled_for(page, action)
    if found["advice"] == action:
        pause(page, pause_ms)
        page.locator("#advice").tap(force=True)  # the page is settled: no need to wait for it to stand still
        return found
    found = tap_words(page, action, found, pause_ms)
    pause(page, pause_ms)
    page.touchscreen.tap(*found["at"])  # the record button, where the page showed it
    return found


def tap_words(page: Any, action: str, found: dict[str, Any] | None = None, pause_ms: float = 0) -> dict[str, Any]:
    """The action entered a word at a time, each tapped where the page offers it; the words the page entered
    itself (the only ones possible) are not tapped. The page as it settled once they are all entered."""
    words, found = action.split(), found or settled_for(page, action)
    while len(found["held"]) < len(words) and found["held"] == words[: len(found["held"])]:
        assert found["at"] is not None, f"{action}: {words[len(found['held'])]!r} is not offered after {found['held']}"
        pause(page, pause_ms)
        page.touchscreen.tap(*found["at"])
        found = settled_for(page, action, found)
    assert found["held"] == words, f"{action}: the page holds {found['held']}"
    return found


def pause(page: Any, pause_ms: float) -> None:
    if pause_ms:
        page.wait_for_timeout(pause_ms)


def logged(server: str, game: str, token: str) -> list[str]:
    exported = httpx.get(f"{server}/v1/games/{game}/export", headers={"Authorization": f"Bearer {token}"})
    return [line.text for line in parse_game(exported.text).actions]
