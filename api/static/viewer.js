// The replay viewer: a game's position at any event, drawn from GET /v1/games/{id}/view, stepped with buttons and
// keys, its events listed as the log says them, explanations and what-ifs beside it, and a live mode that follows
// the game's stream as it is recorded.
"use strict";
const GAME = decodeURIComponent(location.pathname.split("/")[2]);
const views = new Map();
let events = [];
let latest = 1;
let at = 1;
let players = [];
// Whom the game is read as (`as`): empty for the token's holder, `public`, or a seat the token may read as.
let perspective = new URLSearchParams(location.search).get("as") || "";

// A path of this game's API, read as the perspective chosen.
function gamePath(path) {
  const shown = perspective ? `${path.includes("?") ? "&" : "?"}as=${encodeURIComponent(perspective)}` : "";
  return `/v1/games/${GAME}${path}${shown}`;
}
let rounds = 1;

async function viewAt(number) {
  if (!views.has(number)) views.set(number, await api(gamePath(`/view?at=${number}`)));
  return views.get(number);
}

async function show(number) {
  at = Math.max(1, Math.min(latest, number));
  const view = await viewAt(at);
  if (view.version !== at) return;
  document.getElementById("headline").textContent = `event ${at} · ${view.headline}`;
  document.getElementById("at").value = at;
  document.getElementById("of").textContent = `of ${latest}`;
  showRounds(view.round);
  drawBoard(document.getElementById("board"), view.layout);
  drawLegend(document.getElementById("legend"), view.layout);
  document.getElementById("table").replaceChildren(...view.table.map((line) => element("li", {}, line)));
  document.getElementById("players").replaceChildren(...view.players.map((line, seat) =>
    element("li", { style: `color: ${PLAYER_COLOURS[seat % PLAYER_COLOURS.length]}` }, line)));
  // A board that says all the table's and the players' lines say: they are not said again.
  const drawnWhole = Boolean(view.layout && view.layout.says_all);
  document.getElementById("table").hidden = document.getElementById("players").hidden = drawnWhole;
  markCurrent(document.querySelector(`#event-list li[data-event="${at}"]`));
  history.replaceState(null, "", `?at=${at}` + (perspective ? `&as=${encodeURIComponent(perspective)}` : ""));
  showPerspectives(view.perspectives);
  document.getElementById("explanation").replaceChildren();
  document.getElementById("branch").replaceChildren();
  suggestReplacement();
}

// The event shown, marked in the list and brought into its panel's view at the next frame (reading where it is
// drawn now would make the browser lay the page out again within the step).
function markCurrent(item) {
  const previous = document.querySelector("#event-list li.current");
  if (previous && previous !== item) previous.classList.remove("current");
  if (!item) return;
  item.classList.add("current");
  requestAnimationFrame(() => keepInPanel(item, document.getElementById("events")));
}

// An item of a list brought into view within the list's own panel: the page and the columns stay where they are.
function keepInPanel(item, panel) {
  const box = item.getBoundingClientRect(), frame = panel.getBoundingClientRect();
  if (box.top < frame.top) panel.scrollTop -= frame.top - box.top;
  else if (box.bottom > frame.bottom) panel.scrollTop += box.bottom - frame.bottom;
}

// The rounds played so far beside the field that jumps to one; a round typed there is cleared once the viewer has
// stepped to another round, unless the field is being typed in.
function showRounds(round) {
  rounds = Math.max(rounds, round);
  document.getElementById("rounds").textContent = `of ${rounds}`;
  const field = document.getElementById("round");
  field.max = rounds;
  field.placeholder = rounds > 1 ? `1-${rounds}` : "1";
  if (field.value && Number(field.value) !== round && document.activeElement !== field) field.value = "";
}

// An example for the what-if in the game's own notation: the action recorded at the event shown (or, for a
// consequence or a hidden action, the last action before it every reader may see), else the first action the
// rules allow now.
async function suggestReplacement() {
  let example = "";
  for (const event of events) {
    if (event.number > at) break;
    if (event.fields.notation && !event.fields.visible_only_to && !event.hidden) example = event.fields.notation;
  }
  if (!example) example = (await api(gamePath(`/legal`)).catch(() => ({ actions: [] }))).actions[0] || "";
  document.getElementById("replacement").placeholder = `${example || "an action"} (empty: dropped)`;
}

function listEvents() {
  const undone = new Set(events.filter((e) => e.kind === "ActionsUndone").flatMap((e) => e.fields.versions || []));
  const list = document.getElementById("event-list");
  const taken = timesTaken(events);
  list.replaceChildren(...events.map((event) => {
    const kind = event.fields.cause !== undefined ? " consequence" : "";
    const item = element("li", { "data-event": event.number, class: kind + (undone.has(event.number) ? " undone" : "") },
      `${event.number}  ${event.text}`);
    if (event.fields.entered_at) {
      item.append(element("time", { datetime: event.fields.entered_at, title: "entered at the table" },
        clockTime(event.fields.entered_at) + (taken.has(event.number) ? ` · ${duration(taken.get(event.number))}` : "")));
    }
    item.addEventListener("click", () => show(event.number));
    return item;
  }));
  showTimeAtTable(taken);
}

// When an action was entered at the table, as the recording device said; an event without one, when it was stored.
function tableTime(event) { return Date.parse(event.fields.entered_at || event.timestamp); }
function clockTime(iso) { return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }); }
function duration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}
// An action's player: the first word of its notation, when that is a seat.
function actor(event) { const first = (event.fields.notation || "").split(" ")[0]; return players.includes(first) ? first : null; }

// The time each action entered at the table took: from the action entered before it.
function timesTaken(logged) {
  const taken = new Map();
  let before = null;
  for (const event of logged) {
    if (!event.fields.entered_at) continue;
    if (before !== null) taken.set(event.number, Math.max(0, tableTime(event) - before));
    before = tableTime(event);
  }
  return taken;
}

// Each player's time at the table: what their actions took, in all and a turn on average.
function showTimeAtTable(taken) {
  const totals = new Map(players.map((player) => [player, { ms: 0, turns: 0 }]));
  for (const event of events) {
    const player = actor(event);
    if (player && taken.has(event.number)) {
      totals.get(player).ms += taken.get(event.number);
      totals.get(player).turns += 1;
    }
  }
  const rows = [...totals].filter(([, total]) => total.turns).map(([player, total]) =>
    element("li", { "data-player": player }, `${player}: ${duration(total.ms)} in all, ${duration(total.ms / total.turns)} an action`));
  document.getElementById("time-at-table").replaceChildren(...rows);
  document.getElementById("playback").hidden = document.getElementById("speed").hidden = taken.size === 0;
}

// The game played back at the pace it was recorded (or faster): each event shown when its time comes.
let playing = null;
async function playBack() {
  const button = document.getElementById("playback");
  if (playing) { clearTimeout(playing); playing = null; button.textContent = "play at the table's pace"; return; }
  button.textContent = "stop";
  const speed = Number(document.getElementById("speed").value);
  const step = () => {
    const current = events.find((event) => event.number === at), next = events.find((event) => event.number === at + 1);
    if (!current || !next) { playing = null; button.textContent = "play at the table's pace"; return; }
    const wait = next.fields.entered_at && current.fields.entered_at ? (tableTime(next) - tableTime(current)) / speed : 0;
    playing = setTimeout(() => show(at + 1).then(step), Math.max(0, wait));
  };
  step();
}

async function loadEvents() {
  let after = events.length ? events[events.length - 1].number : 0;
  for (;;) {
    const page = await api(gamePath(`/events?after=${after}&limit=1000`));
    events.push(...page.events);
    if (page.next_after === null) break;
    after = page.next_after;
  }
  latest = events.length ? events[events.length - 1].number : 1;
  listEvents();
}

// The round and the phase as the view gives them: a phase is told apart from the same phase of another round.
function roundAndPhase(view) {
  return { round: view.round, phase: `${view.round} · ${view.phase}` };
}

async function stepPhase(direction) {
  const here = roundAndPhase(await viewAt(at)).phase;
  let number = at;
  while (number + direction >= 1 && number + direction <= latest) {
    number += direction;
    if (roundAndPhase(await viewAt(number)).phase !== here) break;
  }
  if (direction < 0 && number > 1) {
    const reached = roundAndPhase(await viewAt(number)).phase;
    while (number > 1 && roundAndPhase(await viewAt(number - 1)).phase === reached) number -= 1;
  }
  await show(number);
}

async function jumpToRound(round) {
  let low = 1, high = latest;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (roundAndPhase(await viewAt(middle)).round < round) low = middle + 1;
    else high = middle;
  }
  await show(low);
}

async function explain() {
  const target = document.getElementById("explanation");
  try {
    const report = await api(gamePath(`/events/${at}/explanation`));
    target.replaceChildren(element("strong", {}, report.kind), ...report.words.map((line) => element("p", {}, line)));
  } catch (error) {
    target.replaceChildren(element("p", {}, error.message));
  }
}

async function whatIf(event) {
  event.preventDefault();
  const replacement = document.getElementById("replacement").value.trim();
  const query = replacement ? "?replace=" + encodeURIComponent(replacement) : "";
  const target = document.getElementById("branch");
  try {
    const report = await api(gamePath(`/events/${at}/what-if${query}`));
    const row = (standing) => resultText(standing.standings);
    const stopped = report.branch.stopped_at ? `; stopped before event ${report.branch.stopped_at.event}` : "";
    target.replaceChildren(element("p", {}, `recorded: ${row(report.recorded)}`),
      element("p", { id: "branch-standings" }, `branch: ${row(report.branch)}${stopped}`));
  } catch (error) {
    target.replaceChildren(element("p", {}, error.message));
  }
}

async function loadAudit() {
  const badge = document.getElementById("audit");
  try {
    const report = await api(gamePath(`/audit`));
    badge.textContent = `audit: ${report.verdict}`;
    badge.className = `badge ${report.verdict.replace(" ", "-")}`;
    badge.onclick = () => window.open(`/v1/games/${GAME}/audit`, "_blank");
  } catch (error) {
    badge.textContent = "audit: unavailable";
  }
}

let following = null;

async function follow() {
  following = new AbortController();
  const after = events.length ? events[events.length - 1].number : 0;
  await readStream(gamePath("/stream"), after, async (event) => {
    if (events.length && event.number <= events[events.length - 1].number) return;
    events.push(event);
    latest = event.number;
    listEvents();
    await show(latest);
  }, following.signal);
}

document.getElementById("live").addEventListener("change", (event) => {
  if (event.target.checked) follow().catch(() => {});
  else if (following) following.abort();
});
document.getElementById("first").addEventListener("click", () => show(1));
document.getElementById("back").addEventListener("click", () => show(at - 1));
document.getElementById("forward").addEventListener("click", () => show(at + 1));
document.getElementById("last").addEventListener("click", () => show(latest));
document.getElementById("at").addEventListener("change", (event) => show(Number(event.target.value)));
document.getElementById("explain").addEventListener("click", explain);
document.getElementById("playback").addEventListener("click", playBack);
document.getElementById("round").addEventListener("change", (event) => jumpToRound(Number(event.target.value)));
document.getElementById("round").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && event.target.value) jumpToRound(Number(event.target.value));
});
document.getElementById("phase-back").addEventListener("click", () => stepPhase(-1));
document.getElementById("phase-on").addEventListener("click", () => stepPhase(1));
document.getElementById("what-if").addEventListener("submit", whatIf);
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT") return;
  const moves = { ArrowLeft: () => show(at - 1), ArrowRight: () => show(at + 1), Home: () => show(1),
    End: () => show(latest), ArrowUp: () => stepPhase(-1), ArrowDown: () => stepPhase(1) };
  if (moves[event.key]) { event.preventDefault(); moves[event.key](); }
});

// The perspectives the token may read the game as, offered when there is more than its holder's own.
function showPerspectives(offered) {
  const select = document.getElementById("perspective");
  document.getElementById("perspective-label").hidden = !offered.length;
  const values = ["", ...offered];
  if (select.options.length !== values.length || [...select.options].some((option, index) => option.value !== values[index])) {
    select.replaceChildren(...values.map((value) => element("option", { value }, value || "as this token's holder")));
  }
  select.value = values.includes(perspective) ? perspective : "";
}

document.getElementById("perspective").addEventListener("change", (event) => {
  perspective = event.target.value;
  start().catch((error) => { document.getElementById("headline").textContent = error.message; });
});

async function start() {
  document.body.dataset.ready = "false";
  // A stream opened for another reader (another token, another perspective) goes: live mode starts again as this one.
  if (following) following.abort();
  document.getElementById("live").checked = false;
  views.clear();
  events = [];
  const summary = await api(gamePath(``));
  players = summary.players.map((player) => player.name);
  rounds = Math.max(1, summary.round);
  await loadEvents();
  loadAudit();
  const asked = Number(new URLSearchParams(location.search).get("at")) || latest;
  await show(asked);
  showBroadcast(summary, (await viewAt(at)).perspectives);
  document.body.dataset.ready = "true";
}

// A game broadcast with a delay is not shown before its first event is that old: the page says when that is, as
// the API tells a reader without a token, and looks again meanwhile; nothing else of the game is told before then.
function startOrWait() {
  start().catch((error) => {
    const waits = error.code === "not_yet_broadcast";
    document.getElementById("headline").textContent = waits
      ? "broadcast with a delay: none of it is that old yet" : error.message;
    if (!waits) return;
    const { broadcast_starts_at: starts, broadcast_delay: minutes } = error.problem;
    const note = document.getElementById("broadcast");
    note.hidden = false;
    note.dataset.starts = starts;
    note.textContent = `spectators follow this game ${minutes} minutes behind the table: the broadcast starts at `
      + `${clockWhen(starts)}, and this page shows it then (it looks again every ${WAIT_SECONDS} seconds)`;
    document.body.dataset.ready = "waiting";
    setTimeout(startOrWait, WAIT_SECONDS * 1000);
  });
}

// A time as this device's clock says it, with its day unless it is today.
function clockWhen(iso) {
  const when = new Date(iso);
  const today = when.toDateString() === new Date().toDateString();
  return today ? when.toLocaleTimeString() : when.toLocaleString();
}

// A spectator (a reader the game offers no perspective) of a game broadcast with a delay is told that it sees the
// game as it stood that long ago.
function showBroadcast(summary, perspectives) {
  const note = document.getElementById("broadcast");
  const behind = summary.broadcast_delay > 0 && summary.status === "ongoing" && !perspectives.length;
  note.hidden = !behind;
  delete note.dataset.starts;
  if (behind) {
    note.textContent = `spectators follow this game ${summary.broadcast_delay} minutes behind the table: `
      + "it is shown as it stood then";
  }
}

const WAIT_SECONDS = 5;
setUpTokenForm(() => { perspective = ""; return start(); });
startOrWait();
