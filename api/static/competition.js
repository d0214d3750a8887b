// A competition's page: its standings (from the read tables, as far as they have followed the log) and its games,
// a round at a time, each with the table it was played at and a link to its replay.
"use strict";
const competitionId = decodeURIComponent(location.pathname.split("/")[2] || "");

function describe(competition) {
  const scoring = competition.scoring === "places"
    ? `places give ${competition.points.join(", ")} points`
    : "the games' own scores, summed";
  return [competition.kind, competition.season, scoring].filter(Boolean).join(" · ");
}

function points(value) { return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, ""); }

function showStandings(rows) {
  // Each cell names its column, for a phone's width, where the rows stand as blocks without the table's head.
  document.getElementById("standings").replaceChildren(...rows.map((row) => element("tr", { "data-person": row.person_id },
    element("td", { class: "game", "data-label": "place" }, String(row.place)),
    element("td", { "data-label": "person" }, row.name),
    element("td", { "data-label": "games" }, String(row.games)),
    element("td", { "data-label": "wins" }, String(row.wins)),
    element("td", { "data-label": "points" }, points(row.points)),
    element("td", { "data-label": "score" }, String(row.score)))));
  document.getElementById("no-standings").hidden = rows.length > 0;
}

// The games by round, in the order of their rounds (those given none last), each round's in the order they were
// added; a withdrawn game (left out of the standings) marked so.
function showGames(games) {
  const rounds = new Map();
  for (const game of games) {
    const round = game.round === null ? "no round" : `round ${game.round}`;
    if (!rounds.has(round)) rounds.set(round, { order: game.round === null ? Infinity : game.round, games: [] });
    rounds.get(round).games.push(game);
  }
  const ordered = [...rounds.entries()].sort((one, other) => one[1].order - other[1].order);
  document.getElementById("rounds").replaceChildren(...ordered.map(([round, { games: held }]) =>
    element("section", { class: "round-games", "data-round": round }, element("h3", {}, round),
      element("ul", { class: "round" }, ...held.map((game) => element("li", { "data-game": game.game_id },
        element("span", { class: "table" }, game.table === null ? "" : `table ${game.table}`),
        element("a", { href: `/games/${game.game_id}` }, game.game_id.slice(0, 8)),
        ...(game.withdrawn ? [element("span", { class: "withdrawn" }, "withdrawn")] : [])))))));
  document.getElementById("no-games").hidden = games.length > 0;
}

async function load() {
  document.body.dataset.ready = "false";
  const problem = document.getElementById("problem");
  problem.hidden = true;
  try {
    const competition = await api(`/v1/competitions/${encodeURIComponent(competitionId)}`);
    document.title = `evo-ledger: ${competition.name}`;
    document.getElementById("name").textContent = competition.name;
    document.getElementById("about").textContent = describe(competition);
    showStandings(competition.standings);
    showGames(competition.games);
    document.getElementById("freshness").textContent =
      `the read tables have followed ${competition.position} of the log's ${competition.log_position} events`;
    document.getElementById("statistics").href = "/dashboard?" + new URLSearchParams({ competition: competitionId });
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
  }
  document.body.dataset.ready = "true";
}

setUpTokenForm(load);
load();
