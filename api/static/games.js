// The games page: the ledger's games, filtered by ruleset, player and status, a page at a time; and a new game,
// set up here and recorded on the recording page that opens with its recorder token.
"use strict";
let cursor = null;

async function loadRulesets() {
  const { rulings } = await api("/v1/rules");
  const names = [...new Set(rulings.map((ruling) => ruling.ruleset))].sort();
  const select = document.getElementById("ruleset");
  for (const name of names) select.append(element("option", {}, name));
}

async function loadGames(more) {
  const query = new URLSearchParams({ limit: "50" });
  for (const key of ["ruleset", "player", "status"]) {
    const value = document.getElementById(key).value.trim();
    if (value) query.set(key, value);
  }
  if (more && cursor) query.set("cursor", cursor);
  const list = document.getElementById("games");
  if (!more) list.replaceChildren();
  const page = await api("/v1/games?" + query);
  for (const game of page.games) {
    const link = element("a", { href: `/games/${game.game_id}` }, game.game_id.slice(0, 8));
    // Each cell names its column, for a phone's width, where the rows stand as blocks without the table's head.
    list.append(element("tr", { "data-game": game.game_id },
      element("td", { class: "game" }, link), element("td", { "data-label": "ruleset" }, game.ruleset),
      element("td", { "data-label": "players" }, game.players.map((player) => player.name).join(", ")),
      element("td", { "data-label": "status" }, game.status),
      element("td", { "data-label": "result" }, resultText(game.result)),
      element("td", { "data-label": "started" }, game.started_at.slice(0, 16).replace("T", " "))));
  }
  cursor = page.next_cursor;
  document.getElementById("more").hidden = !cursor;
}

document.getElementById("filters").addEventListener("submit", (event) => { event.preventDefault(); loadGames(false); });
document.getElementById("more").addEventListener("click", () => loadGames(true));
let kits = [];

async function loadKits() {
  kits = (await api("/v1/kits")).kits;
  document.getElementById("kit").replaceChildren(...kits.map((kit) => element("option", { value: kit.kit },
    `${kit.stored ? `${kit.name} ${kit.kit.slice(0, 15)}…` : kit.kit} (${kit.ruleset}, ${kit.min_players === kit.max_players ? kit.min_players : `${kit.min_players}-${kit.max_players}`} players)`)));
  showMarks();
}

// A seat option of the kit's ruleset (an evo1 Autosaur) is given by the names of the seats it marks.
function showMarks() {
  const kit = kits.find((found) => found.kit === document.getElementById("kit").value);
  document.getElementById("marks").replaceChildren(...(kit ? kit.seat_marks : []).map((mark) =>
    element("label", {}, `${mark}s `, element("input", { "data-mark": mark, autocomplete: "off", placeholder: "their names, if any" }))));
}

async function startGame(event) {
  event.preventDefault();
  const names = document.getElementById("players").value.split(/[\s,]+/).filter(Boolean);
  const marked = [...document.querySelectorAll("#marks input")].map((input) =>
    [input.dataset.mark, new Set(input.value.split(/[\s,]+/).filter(Boolean))]);
  const players = names.map((name) => Object.fromEntries([["name", name],
    ...marked.filter(([, seats]) => seats.has(name)).map(([mark]) => [mark, true])]));
  const answer = await post("/v1/games", { kit: document.getElementById("kit").value, players });
  if (!answer.ok) {
    document.getElementById("new-game-message").textContent = answer.body.message;
    return;
  }
  location.assign(`/games/${answer.body.game_id}/record#token=${encodeURIComponent(answer.body.recorder_token)}`);
}

document.getElementById("kit").addEventListener("change", showMarks);
document.getElementById("new-game-form").addEventListener("submit", (event) => startGame(event).catch((error) => {
  document.getElementById("new-game-message").textContent = error.message;
}));
loadKits();
setUpTokenForm(() => loadGames(false));
loadRulesets().then(() => loadGames(false));
