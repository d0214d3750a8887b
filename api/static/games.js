// The games page: the ledger's games, filtered by ruleset, player and status, a page at a time.
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
    list.append(element("tr", { "data-game": game.game_id },
      element("td", {}, link), element("td", {}, game.ruleset),
      element("td", {}, game.players.map((player) => player.name).join(", ")),
      element("td", {}, game.status), element("td", {}, resultText(game.result)),
      element("td", {}, game.started_at.slice(0, 16).replace("T", " "))));
  }
  cursor = page.next_cursor;
  document.getElementById("more").hidden = !cursor;
}

document.getElementById("filters").addEventListener("submit", (event) => { event.preventDefault(); loadGames(false); });
document.getElementById("more").addEventListener("click", () => loadGames(true));
setUpTokenForm(() => loadGames(false));
loadRulesets().then(() => loadGames(false));
