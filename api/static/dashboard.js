// The dashboard: charts of the read tables, a ruleset at a time, each beside the CSV of the table it reads; every
// game's, or a competition's or a season's alone (the filters, passed to every statistic).
"use strict";
// A point on an axis's set end (a win rate of 100%) is drawn whole: not clipped at the chart's area, with room
// around the area for the point beyond it.
const WHOLE_POINTS = { clip: false, layout: { padding: { top: 8, right: 10, left: 4 } } };
const charts = {};
const COLOURS = ["#2f6f8f", "#c0504d", "#9bbb59", "#8064a2", "#f79646", "#4bacc6", "#7f7f7f", "#d4a017"];
const MOST_PLAYERS_DRAWN = 8;
// Each chart: its section's id, its title, what it shows (for a screen reader), and the table it reads.
const CHARTS = [
  ["games-chart", "Games per ruleset", "games recorded and finished per ruleset", "read_games"],
  ["ratings-chart", "Ratings over time", "each player's rating ordinal after each rated game", "read_ratings"],
  ["seats-chart", "Win rate by seat", "win rate by seat and number of players, with 95% intervals", "read_results"],
  ["seat-advantage-chart", "Seat advantage with skill accounted for",
   "each seat's chance of winning among equally strong players, with 95% intervals, beside its raw win rate",
   "read_game_players"],
  ["places-chart", "Win rate by place in the opening order",
   "win rate by place in the first order of play, with 95% intervals", "read_turn_order"],
  ["calibration-chart", "Calibration of the ratings",
   "each tenth of the win chances the ratings predicted against the share of them that won", "read_ratings"],
  ["batch-chart", "Batch ratings beside the incremental ones",
   "each player's rating fitted to the whole history at once beside the incremental rating", "read_results"],
  ["skill-chart", "Skill against luck",
   "the spread of the players' strengths against chance and against the bots", "read_results"],
  ["scores-chart", "Scores and margins", "winning score, mean score and winning margin by number of players",
   "read_results"],
  ["dice-chart", "Dice against a fair die", "die faces rolled against those a fair die gives", "read_die_rolls"],
  ["players-chart", "Games per player", "games played and won by each player", "read_game_players"],
];

function buildSections() {
  const charts = document.getElementById("charts");
  for (const [id, title, label, table] of CHARTS) {
    charts.append(element("section", { class: "chart", id },
      element("h2", {}, title), element("canvas", { "aria-label": label }),
      element("p", { class: "note" }), element("a", { class: "csv", href: `/v1/tables/${table}.csv` }, `${table}.csv`)));
  }
}

function draw(id, config, note) {
  const section = document.getElementById(id);
  if (charts[id]) charts[id].destroy();
  charts[id] = new Chart(section.querySelector("canvas"),
    { ...config, options: { animation: false, ...WHOLE_POINTS, ...config.options } });
  section.querySelector(".note").textContent = note || "";
}

function share(value) { return (100 * value).toFixed(1) + "%"; }

function winRateChart(id, rows, key, what) {
  const labels = rows.map((row) => `${row.players}p ${what} ${row[key]}`);
  draw(id, {
    type: "bar",
    data: { labels, datasets: [
      { label: "95% interval", data: rows.map((row) => [row.low, row.high]), backgroundColor: "#cfe3f0", order: 1 },
      { label: "win rate", type: "line", showLine: false, data: rows.map((row) => row.win_rate),
        backgroundColor: "#2f4f4f", borderColor: "#2f4f4f", pointRadius: 6, order: 0 },
    ] },
    options: { scales: { y: { min: 0, max: 1, ticks: { callback: share } } } },
  }, rows.length ? rows.map((row) => `${row.players}p ${what} ${row[key]}: ${row.wins}/${row.games}`).join(" · ")
                 : "no finished games");
}

function seatAdvantageChart(answer) {
  const rows = answer.rows;
  draw("seat-advantage-chart", {
    type: "bar",
    data: { labels: rows.map((row) => `${row.players}p seat ${row.at}`), datasets: [
      { label: "95% interval", data: rows.map((row) => [row.win_chance_low, row.win_chance_high]),
        backgroundColor: "#cfe3f0", order: 2 },
      { label: "win chance among equals", type: "line", showLine: false, data: rows.map((row) => row.win_chance),
        backgroundColor: "#2f4f4f", borderColor: "#2f4f4f", pointRadius: 6, order: 0 },
      { label: "raw win rate", type: "line", showLine: false, data: rows.map((row) => row.win_rate),
        backgroundColor: COLOURS[1], borderColor: COLOURS[1], pointStyle: "crossRot", pointRadius: 7, order: 1 },
    ] },
    options: { scales: { y: { min: 0, max: 1, ticks: { callback: share } } } },
  }, rows.length
    ? rows.filter((row) => row.at > 1).map((row) => `${row.players}p seat ${row.at}: effect ${signed(row.effect)} ` +
        `(${signed(row.low)} to ${signed(row.high)})`).join(" · ") + ` · ${answer.games} games, ${answer.players} players`
    : "no finished games");
}

function signed(value) { return (value > 0 ? "+" : "") + value.toFixed(2); }

function scoreText(score) {
  if (score.log_loss === null) return "no games";
  return `log loss ${score.log_loss.toFixed(3)} (no skill ${score.baseline_log_loss.toFixed(3)}), ` +
    `Brier ${score.brier.toFixed(3)} (no skill ${score.baseline_brier.toFixed(3)})`;
}

function calibrationChart(answer) {
  draw("calibration-chart", {
    type: "scatter",
    data: { datasets: [
      { label: "share that won", data: answer.bins.map((bin) => ({ x: bin.mean_predicted, y: bin.observed })),
        backgroundColor: COLOURS[0], pointRadius: 6 },
      { label: "perfectly calibrated", data: [{ x: 0, y: 0 }, { x: 1, y: 1 }], showLine: true,
        borderColor: "#9f9f9f", backgroundColor: "#9f9f9f", pointRadius: 0 },
    ] },
    options: { scales: {
      x: { min: 0, max: 1, ticks: { callback: share }, title: { display: true, text: "predicted win chance" } },
      y: { min: 0, max: 1, ticks: { callback: share }, title: { display: true, text: "won" } } } },
  }, `${answer.all.games} games: ${scoreText(answer.all)} · the later ${answer.later_half.games}: ` +
     scoreText(answer.later_half));
}

function batchChart(rows) {
  const drawn = rows.slice(0, 2 * MOST_PLAYERS_DRAWN);
  draw("batch-chart", {
    type: "bar",
    data: { labels: drawn.map((row) => row.name), datasets: [
      { label: "batch ordinal", data: drawn.map((row) => row.ordinal), backgroundColor: COLOURS[0] },
      { label: "incremental ordinal", data: drawn.map((row) => row.incremental_ordinal), backgroundColor: COLOURS[2] },
    ] },
    options: { scales: { y: { title: { display: true, text: "ordinal (mu - 3 sigma)" } } } },
  }, drawn.length
    ? drawn.map((row) => `${row.name}: mu ${row.mu.toFixed(1)} against ${row.incremental_mu.toFixed(1)} ` +
        `(${signed(row.difference)}), place ${row.rank} against ${row.incremental_rank}`).join(" · ")
    : "no finished games");
}

function skillChart(answer) {
  const labels = answer.benchmarks.map((row) => row.bots_share === 0 ? "chance" : `${share(row.bots_share)} bots`);
  const values = answer.benchmarks.map((row) => row.dispersion);
  draw("skill-chart", {
    type: "bar",
    data: { labels: [...labels, "this ruleset"], datasets: [
      { label: "spread of strengths", data: [...values, answer.dispersion],
        backgroundColor: [...values.map(() => "#cfcfcf"), COLOURS[0]] },
    ] },
  }, skillText(answer));
}

function skillText(answer) {
  if (answer.dispersion === null) {
    return `${answer.counted_players} players with ${answer.min_games} games or more: too few to measure`;
  }
  const bots = answer.bots ? `the bots' gap ${answer.bots.gap.toFixed(2)} (${answer.bots.low.toFixed(2)} to ` +
    `${answer.bots.high.toFixed(2)}) from ${answer.bots.games} games` : "no bots to compare with";
  const verdict = answer.skill_share === null ? "" :
    `skill share ${share(answer.skill_share)}: ${answer.skill_share > 0.5 ? "more skill than chance" : "more chance than skill"} · `;
  return `${verdict}${answer.counted_players} players with ${answer.min_games} games or more · ${bots}`;
}

function ratingsChart(profiles) {
  const drawn = profiles.filter((row) => row.ratings.length).slice(0, MOST_PLAYERS_DRAWN);
  draw("ratings-chart", {
    type: "line",
    data: { datasets: drawn.map((row, index) => ({
      label: row.name, borderColor: COLOURS[index % COLOURS.length], backgroundColor: COLOURS[index % COLOURS.length],
      data: row.rated_games.map((game, at) => ({ x: game, y: row.ratings[at] })),
    })) },
    options: { scales: { x: { type: "linear", ticks: { precision: 0 }, title: { display: true, text: "rated game" } },
                         y: { title: { display: true, text: "ordinal (mu - 3 sigma)" } } } },
  }, drawn.length ? `the ${drawn.length} players with the most games` : "no rated games");
}

function scoresChart(rows) {
  const measures = [["mean_winning_score", "winning score"], ["mean_score", "mean score"], ["mean_margin", "margin"]];
  draw("scores-chart", {
    type: "bar",
    data: { labels: rows.map((row) => `${row.players} players`),
            datasets: measures.map(([key, label], index) => ({
              label, data: rows.map((row) => row[key]), backgroundColor: COLOURS[index] })) },
  }, rows.map((row) => `${row.players} players: margin ${row.least_margin} to ${row.most_margin}`).join(" · "));
}

function fitText(fit) {
  if (fit.chi_square === null) return `${fit.rolls} rolls: ${fit.verdict}`;
  return `${fit.rolls} rolls, chi-square ${fit.chi_square.toFixed(2)} (${fit.degrees_of_freedom} df), ` +
    `p = ${fit.p_value.toFixed(3)}: ${fit.verdict}`;
}

function diceChart(dice, ruleset) {
  const section = document.getElementById("dice-chart");
  if (!dice) {
    if (charts["dice-chart"]) charts["dice-chart"].destroy();
    delete charts["dice-chart"];
    section.querySelector(".note").textContent = `${ruleset} rolls no die`;
    section.querySelector(".csv").hidden = true;
    return;
  }
  const faces = Object.keys(dice.faces);
  draw("dice-chart", {
    type: "bar",
    data: { labels: faces, datasets: [
      { label: "rolled", data: faces.map((face) => dice.fit.observed[face]), backgroundColor: COLOURS[0] },
      { label: "a fair die", data: faces.map((face) => dice.fit.expected[face]), backgroundColor: "#cfcfcf" },
    ] },
  }, `${dice.die}: ${fitText(dice.fit)}. ` +
     Object.entries(dice.fit_by_purpose).map(([purpose, fit]) => `${purpose}: ${fitText(fit)}`).join(" · "));
  const link = section.querySelector(".csv");
  link.hidden = false;
  link.href = `/v1/tables/${dice.table}.csv`;
  link.textContent = `${dice.table}.csv`;
}

function gamesChart(rows) {
  draw("games-chart", {
    type: "bar",
    data: { labels: rows.map((row) => row.ruleset), datasets: [
      { label: "games", data: rows.map((row) => row.games), backgroundColor: COLOURS[0] },
      { label: "finished", data: rows.map((row) => row.finished), backgroundColor: COLOURS[2] },
    ] },
  }, rows.map((row) => `${row.ruleset}: ${row.players} players`).join(" · "));
}

function playersChart(profiles) {
  const drawn = profiles.slice(0, 4 * MOST_PLAYERS_DRAWN);
  draw("players-chart", {
    type: "bar",
    data: { labels: drawn.map((row) => row.name), datasets: [
      { label: "games", data: drawn.map((row) => row.games), backgroundColor: COLOURS[0] },
      { label: "wins", data: drawn.map((row) => row.wins), backgroundColor: COLOURS[1] },
    ] },
  }, drawn.map((row) => `${row.name}: mean place ${row.mean_place.toFixed(2)}`).join(" · "));
}

// The games the statistics count, as the filters say: a competition's, a season's (both, where both are chosen), or
// every game.
function scope() {
  const chosen = {};
  for (const key of ["competition", "season"]) {
    const value = document.getElementById(key).value;
    if (value) chosen[key] = value;
  }
  return chosen;
}

// The filters' choices: the competitions (by name, with their season) and the seasons they carry, those the page's
// address names chosen.
async function loadCompetitions() {
  const { competitions } = await api("/v1/competitions");
  const asked = new URLSearchParams(location.search);
  const competition = document.getElementById("competition");
  competition.append(...competitions.map((found) => element("option", { value: found.competition_id },
    found.season ? `${found.name} (${found.season})` : found.name)));
  const season = document.getElementById("season");
  const seasons = [...new Set(competitions.map((found) => found.season).filter(Boolean))].sort();
  // Each option's value is its label as given: an option without one would be its text with its spaces collapsed.
  season.append(...seasons.map((label) => element("option", { value: label }, label)));
  for (const select of [competition, season]) {
    const wanted = asked.get(select.id);
    if ([...select.options].some((option) => option.value === wanted)) select.value = wanted;
  }
}

function remember() {
  const chosen = { ruleset: document.getElementById("ruleset").value, ...scope() };
  history.replaceState(null, "", "?" + new URLSearchParams(Object.entries(chosen).filter(([, value]) => value)));
}

async function optionalDice(ruleset) {
  try {
    return await api("/v1/statistics/dice?" + new URLSearchParams({ ruleset, ...scope() }));
  } catch (error) {
    if (error.code === "no_dice") return null;
    throw error;
  }
}

// The ruleset's own statistics, as its reading declares them: a panel each, what it means and a row a group.
async function rulesetStatistics(ruleset) {
  const base = `/v1/rulesets/${encodeURIComponent(ruleset)}/statistics`;
  const listed = await api(base);
  const query = "?" + new URLSearchParams(scope());
  return Promise.all(listed.statistics.map((found) => api(`${base}/${encodeURIComponent(found.name)}${query}`)));
}

function cellText(value) {
  if (value === null || value === undefined) return "";
  return typeof value === "number" && !Number.isInteger(value) ? value.toFixed(2) : String(value);
}

function statisticPanel(statistic) {
  const columns = statistic.rows.length ? Object.keys(statistic.rows[0]) : [];
  const rows = statistic.rows.map((row) => element("tr", {}, ...columns.map((name) => element("td", {}, cellText(row[name])))));
  const table = statistic.rows.length
    ? element("table", { class: "games" }, element("thead", {}, element("tr", {}, ...columns.map((name) => element("th", {}, name)))),
              element("tbody", {}, ...rows))
    : element("p", { class: "note" }, "no games of this ruleset yet");
  return element("section", { class: "chart statistic", id: `statistic-${statistic.statistic}` },
    element("h2", {}, `${statistic.ruleset}: ${statistic.statistic}`), element("p", { class: "note" }, statistic.means), table);
}

async function loadRuleset(ruleset) {
  document.body.dataset.ready = "false";
  const query = "?" + new URLSearchParams({ ruleset, ...scope() });
  const [profiles, seats, places, scores, dice, own, advantage, calibration, batch, skill] = await Promise.all([
    api("/v1/statistics/profiles" + query), api("/v1/statistics/seats" + query),
    api("/v1/statistics/first-places" + query), api("/v1/statistics/scores" + query), optionalDice(ruleset),
    rulesetStatistics(ruleset), api("/v1/statistics/seat-advantage" + query),
    api("/v1/statistics/calibration" + query), api("/v1/statistics/batch-ratings" + query),
    api("/v1/statistics/skill" + query),
  ]);
  document.getElementById("ruleset-panels").replaceChildren(...own.map(statisticPanel));
  ratingsChart(profiles.rows);
  winRateChart("seats-chart", seats.rows, "seat", "seat");
  seatAdvantageChart(advantage);
  winRateChart("places-chart", places.rows, "place", "place");
  calibrationChart(calibration);
  batchChart(batch.rows);
  skillChart(skill);
  scoresChart(scores.rows);
  diceChart(dice, ruleset);
  playersChart(profiles.rows);
  document.getElementById("freshness").textContent =
    `the read tables have followed ${profiles.position} of the log's ${profiles.log_position} events`;
  document.body.dataset.ready = "true";
}

async function load() {
  const problem = document.getElementById("problem");
  problem.hidden = true;
  try {
    const counts = await api("/v1/statistics/rulesets?" + new URLSearchParams(scope()));
    gamesChart(counts.rows);
    const select = document.getElementById("ruleset");
    const chosen = select.value || new URLSearchParams(location.search).get("ruleset");
    select.replaceChildren(...counts.rows.map((row) => element("option", {}, row.ruleset)));
    if (!counts.rows.length) {
      problem.textContent = Object.keys(scope()).length
        ? "no games of this competition or season yet: add some, then come back"
        : "no games yet: record or import one, then come back";
      problem.hidden = false;
      document.body.dataset.ready = "true";
      return;
    }
    select.value = counts.rows.some((row) => row.ruleset === chosen) ? chosen : counts.rows[0].ruleset;
    await loadRuleset(select.value);
  } catch (error) {
    problem.textContent = error.message;
    problem.hidden = false;
    document.body.dataset.ready = "true";
  }
}

document.getElementById("ruleset").addEventListener("change", (event) => {
  remember();
  loadRuleset(event.target.value);
});
for (const filter of ["competition", "season"]) {
  document.getElementById(filter).addEventListener("change", () => {
    remember();
    load();
  });
}
buildSections();
setUpTokenForm(load);
// Without the competitions the filters offer none, and the dashboard shows every game's statistics all the same.
loadCompetitions().then(load, async (error) => {
  await load();
  const problem = document.getElementById("problem");
  problem.textContent = `the competitions could not be read: ${error.message}`;
  problem.hidden = false;
});
