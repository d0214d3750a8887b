// The recording page, made for a phone at the table: the position and what the table awaits, and the next action
// entered a tap a word (GET /v1/games/{id}/choices), a board's space tapped where the action takes one. Each entry
// is sent with the version it was made on and a key of its own, so a retry never stores it twice and an entry
// another device overtook is refused and told. The game's stream brings the other devices' entries.
// With no connection, the page opens from its service worker (sw.js) and its entries wait on the device
// (queue.js), to be sent in order when the connection returns.
"use strict";
const GAME = decodeURIComponent(location.pathname.split("/")[2]);
const RECENT = 8;
let players = [];
let version = 0;
let entered = []; // the words entered so far: { word, forced } (forced: the only word that could come next)
let offered = { next: [], complete: false };
// The entry being sent, kept until it is answered: its text, idempotency key and the time it was entered at the
// table, all sent again as they were if it is sent again.
let pending = null;
let composing = 0;
let recordsGame = false;
let seatsRecord = false; // whether a seat's device records its player's own actions
let recording = false; // an entry of this page's is being sent
let queued = []; // the entries waiting on this device to be sent, the oldest first
let stopped = null; // the waiting entry the server would not take as it stood: { entry, kind, text }
let syncing = false;
// The person is asked whether to send or drop the entries waiting before the device forgets the game, or it is
// forgetting it: nothing is sent unless the person asks.
let forgetting = false;
let reentering = null; // the place in the queue, and the version, of a waiting entry taken back to be entered again
// When the server last answered, kept on the device for the game: a page opened again with no connection says it.
const HEARD = `evo-ledger-heard:${GAME}`;
let lastHeard = Number(localStorage.getItem(HEARD)) ? new Date(Number(localStorage.getItem(HEARD))) : null;
let ruleset = ""; // the game's, which names how its state holds each player's points and hand (players.js)
let seatOnly = false; // the page reads the game as one seat
let shownHere = false; // the page shows the game from the rules on this device
// The rules on this device (rules-worker.js), for a device that records the game: with no connection, an entry
// is judged here, and the position and the next words shown from here, on the game as the server last gave it
// (`setup`) and the entries waiting.
let rulesWorker = null;
let setup = null;
let rulesAsked = 0;
const rulesAnswers = new Map();
let tableHolds = null; // the actions the worker's game holds, once opened
let tableTurn = Promise.resolve(); // the worker's game is asked one question at a time
let tableGeneration = 0; // counts the changes of the worker's game
let keeping = []; // the entries the rules here have applied, while they are being kept on the device
let drawnUnjudged = 0; // entries drawn from an answer ahead that the rules here have not applied yet
// What the rules here answered ahead of a tap, on the worker's game as it stood (`generation`): the choices after
// each word offered (`following`, by the words), and what each complete action would lead to (`ahead`, by its
// text); a tap found here is drawn at once, in the frame that follows it.
let answeredAhead = { generation: -1, following: new Map(), ahead: new Map() };

function gamePath(path) { return `/v1/games/${GAME}${path}`; }
function words() { return entered.map((entry) => entry.word).join(" "); }

// A join link carries the token after `#`, which the browser never sends to a server. The device keeps it for
// this game alone, so that a tab closed and opened again records on, until the time chosen under "this device" (a
// day unless told otherwise); it is copied nowhere else (the game's other pages take a token from their own form).
// A page opened without a link reads and records with the token kept for its game while it has not expired, and
// with no other.
const KEPT = `evo-ledger-record:${GAME}`;
const KEEP_HOURS = 24;
const HOUR_MS = 3600 * 1000;

// What the device keeps for the game: { token, hours, until } (until: a time in ms), or null. A token kept bare,
// as the page once kept it, is kept for a day from now.
function keptToken() {
  const stored = localStorage.getItem(KEPT);
  if (stored === null) return null;
  let kept = null;
  try {
    kept = JSON.parse(stored);
  } catch (error) {
    kept = null;
  }
  if (kept === null || typeof kept !== "object") return keepToken(stored, KEEP_HOURS);
  if (typeof kept.token === "string" && Number.isFinite(kept.until)) return kept;
  localStorage.removeItem(KEPT);
  return null;
}

function keepToken(token, chosen) {
  const hours = Number(chosen) > 0 ? Number(chosen) : KEEP_HOURS;
  const kept = { token, hours, until: Date.now() + hours * HOUR_MS };
  localStorage.setItem(KEPT, JSON.stringify(kept));
  return kept;
}

// The token the page reads and records with: the link's, kept in place of any kept before (whose answers the
// service worker drops), else the one kept for the game, unless its time has passed: then the page reads without a
// token, and the device forgets the game once the person has been shown the entries that wait (`expiredOnOpen`).
let expiredOnOpen = false;
async function takeToken() {
  const found = location.hash.match(/token=([^&]+)/);
  if (found) {
    history.replaceState(null, "", location.pathname + location.search);
    const given = decodeURIComponent(found[1]);
    const before = keptToken();
    if (before && before.token !== given) await dropKeptAnswers();
    keepToken(given, before && before.hours);
  }
  const kept = keptToken();
  if (kept && kept.until <= Date.now()) {
    ownToken = { token: "", until: 0 };
    if ((await queuedEntries(GAME)).length) {
      expiredOnOpen = true;
      return;
    }
    await forgetDevice([]);
    say("this device kept the game's token for as long as it was told, and has forgotten it", "told");
    return;
  }
  ownToken = kept ? { token: kept.token, until: kept.until } : { token: "", until: 0 };
}

// Random enough for a key, and available on a plain-http local address (crypto.randomUUID is not).
function newKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function say(text, kind) {
  const message = document.getElementById("message");
  message.hidden = !text;
  message.textContent = text || "";
  message.className = kind || "";
}

function online(isOnline) {
  const status = document.getElementById("status");
  status.textContent = isOnline ? "online" : "offline";
  status.className = `badge ${isOnline ? "clean" : "damaged"}`;
  if (isOnline) {
    lastHeard = new Date();
    localStorage.setItem(HEARD, String(lastHeard.getTime()));
  }
  showQueue();
}

// How many entries wait, when the server last answered, and the waiting entry it would not take, if any.
function showQueue() {
  const waiting = queued.length ? `${queued.length} waiting` : "nothing waiting";
  const heard = !lastHeard ? "never" : lastHeard.toDateString() === new Date().toDateString()
    ? lastHeard.toLocaleTimeString() : lastHeard.toLocaleString();
  const status = document.getElementById("queue-status");
  status.textContent = `${waiting} · last sync ${heard}`;
  status.dataset.heard = lastHeard ? String(lastHeard.getTime()) : "";
  document.body.dataset.waiting = String(queued.length);
  document.getElementById("queue").hidden = !queued.length && !stopped;
  document.getElementById("queued").replaceChildren(...queued.map((entry) =>
    element("li", { "data-key": entry.key }, entry.text)));
  document.getElementById("stopped").hidden = !stopped;
  if (!stopped) return;
  document.getElementById("stopped-text").textContent = stopped.text;
  document.getElementById("keep-entry").hidden = stopped.kind !== "conflict";
}

// The position and the words that may come next, from the rules on this device with no connection once they are
// ready, else from the server (or the answers its service worker kept).
async function refresh() {
  const kept = entered.some((entry) => !entry.forced) ? entered : [];
  const asked = ++composing;
  let shown = (onDevice() && await positionHere(kept)) || await shownByServer(kept);
  if (recordsGame && !shown.here) keepSetup();
  if (!shown.here && queued.length && !navigator.onLine) shown = await behindTheQueue(shown, kept);
  showPosition(shown, kept, asked);
}

// The position and the words that may follow `kept`, unless the page has asked for others since (`asked`).
function showPosition(shown, kept, asked) {
  shownHere = shown.here;
  document.body.dataset.shown = shown.kept ? "kept" : shownHere ? "here" : "by-server";
  if (shownHere && !kept.length) drawnLast = shown;
  keepDrawnSoon();
  show(shown);
  if (asked !== composing) return;
  entered = kept; // the words forced on the position before are asked again
  offer(shown.choices);
}

async function shownByServer(kept) {
  const [view, legal, recent, choices, state] = await Promise.all([
    api(gamePath("/view")), api(gamePath("/legal")), recentEvents(), choicesAfter(kept), stateRead(),
  ]);
  version = view.version;
  recordsGame = view.perspectives.length > 1; // one who may read as any seat records the game
  seatOnly = view.perspectives.length === 1;
  return { view, legal, recent: recent && recent.events, choices, state, here: false };
}

// The game's state as this reader is given it, for the players' panel; without it, the panel shows the view's lines.
function stateRead() {
  return api(gamePath("/state")).then((read) => read.state, () => null);
}

// The latest events; none with no connection where the service worker kept others (those after another version:
// a page opened again asks after none), so that the position is still shown.
function recentEvents() {
  return api(gamePath(`/events?after=${Math.max(0, version - RECENT)}`)).catch((error) => {
    if (navigator.onLine) throw error;
    return null;
  });
}

function show({ view, legal, recent, state }) {
  const recordsOwn = seatOnly && seatsRecord; // a seat, where the recorder lets seats record
  for (const part of document.querySelectorAll("section.entry, #tools")) part.hidden = !(recordsGame || recordsOwn);
  document.getElementById("headline").textContent = view.headline;
  showWhose(view);
  drawBoard(document.getElementById("board"), view.layout, { playersPanel: true });
  drawLegend(document.getElementById("legend"), view.layout);
  drawPlayers(document.getElementById("players"), ruleset, state, view, players);
  showAdvice(legal.advice);
  document.getElementById("completions").replaceChildren(...legal.actions.map((action) => element("option", { value: action })));
  if (recent) listRecent(recent);
}

function choicesAfter(held) {
  const text = held.map((entry) => entry.word).join(" ");
  return api(gamePath(`/choices?forced=true&words=${encodeURIComponent(text)}`));
}

// The words that may come next; the words that are the only ones possible are entered at once.
async function compose() {
  const asked = ++composing;
  const known = knownAhead("following", words());
  if (known) { offer(known); return; }
  const choices = (onDevice() && await choicesHere(entered)) || await choicesAfter(entered);
  if (asked === composing) offer(choices);
}

function offer(choices) {
  entered.push(...choices.forced.map((word) => ({ word, forced: true })));
  offered = choices;
  showEntry();
  askAhead(choices);
  // A tap's time until what it led to is shown by the rules here, for the benchmark of the page offline.
  if (onDevice() && performance.getEntriesByName("tapped", "mark").length) performance.measure("tap shown here", "tapped");
  performance.clearMarks("tapped");
  document.body.dataset.settled = String(Number(document.body.dataset.settled || 0) + 1); // how many times it was
  document.body.dataset.ready = "true";
}

function showEntry() {
  const shown = document.getElementById("words");
  shown.replaceChildren(...entered.map((entry) => element("span", { class: entry.forced ? "word forced" : "word" }, entry.word)));
  const leadsOn = offered.next.length > 0 || offered.complete;
  document.getElementById("record").disabled = !entered.length || (leadsOn && !offered.complete);
  document.getElementById("back-word").disabled = !entered.some((entry) => !entry.forced);
  document.getElementById("choices").replaceChildren(...offered.next.map((word) =>
    element("button", { class: "choice", "data-word": word }, word)));
  const next = new Set(offered.next);
  for (const space of document.querySelectorAll("#board .space[data-tap]")) {
    space.classList.toggle("offered", tapOffered(space.dataset.tap, next));
  }
}

// The page is busy from a tap until the position and the choices it leads to are shown.
function busy() {
  document.body.dataset.ready = "false";
  performance.mark("tapped");
}

function choose(word) {
  busy();
  entered.push({ word, forced: false });
  say("");
  compose().then(() => {
    if (!offered.next.length && !offered.complete) say(`no legal action begins "${words()}": record it to hear the rules' reason`, "told");
  }).catch(lost);
}

// Takes back the last word chosen, and the words entered with it because they were the only ones possible.
function takeBack() {
  busy();
  while (entered.length && entered[entered.length - 1].forced) entered.pop();
  entered.pop();
  say("");
  compose().catch(lost);
}

// Each entry's time from its tap to the stored receipt is measured in the page (`entry stored`), for the
// recording benchmark. No entry is sent without words: a tap on `record` as the page takes its words away (stored,
// or kept as not recorded) has none left to send.
async function record(text) {
  if (!text.trim()) return;
  recording = true;
  try {
    await send(text);
  } finally {
    recording = false;
  }
}

async function send(text) {
  busy();
  performance.mark("entry tapped");
  if (!pending || pending.text !== text) pending = { text, key: newKey(), at: new Date().toISOString() };
  if (queued.length || reentering || !navigator.onLine) {
    if (!navigator.onLine) online(false);
    await waitBehind(text, !navigator.onLine);
    return;
  }
  let answer;
  try {
    answer = await post(gamePath("/actions"), { actions: [text], expected_version: version, entered_at: pending.at },
      { "Idempotency-Key": pending.key });
  } catch (error) {
    online(false);
    await waitBehind(text, true);
    return;
  }
  online(true);
  const sent = pending;
  pending = null;
  if (answer.ok) {
    performance.measure("entry stored", "entry tapped");
    version = answer.body.version; // the stream's news of this entry is then news already had
    entered = [];
    say(`recorded: ${text}`, "recorded");
  } else if (answer.body.code === "version_conflict") {
    await keepOvertaken(sent, answer.body);
  } else {
    const ruling = answer.body.ruling ? ` [${answer.body.ruling}]` : "";
    say(`refused${ruling}: ${answer.body.message}`, "refused");
  }
  await refresh();
}

// An entry another device's overtook: not stored, and kept on the device as the first entry waiting, stopped
// there until its person keeps it (sent again on the game as it now stands), enters it again or drops it.
async function keepOvertaken(sent, conflict) {
  const seq = queued.length ? queued[0].seq - 1 : Date.now();
  const entry = { key: sent.key, game: GAME, seq, text: sent.text, at: sent.at, expected: conflict.expected_version };
  await keepEntry(entry);
  queued = [entry, ...queued];
  stopped = { entry, kind: "conflict", text: overtakenHere(entry, conflict) };
  entered = [];
  showEntry();
  say(`not recorded: ${entry.text}: another device recorded first: ${recordedBefore(conflict)}. Keep it, re-enter it `
    + "or drop it.", "told");
  showQueue();
  document.getElementById("stopped").scrollIntoView({ block: "nearest" });
}

// What a version conflict says was stored since the version an entry expected, as this device may see it.
function recordedBefore(conflict) {
  if (!conflict.recorded.length) return `nothing after event ${conflict.expected_version} (the game is at event ${conflict.version})`;
  return listed(conflict.recorded) + (conflict.next_after === null ? "" : "; and more");
}

// Events' texts in one sentence (a consequence's own full stop left to the sentence).
function listed(events) {
  return events.map((event) => event.text).join("; ").replace(/\.$/, "");
}

// What the rules worker loads, fetched through the service worker once, so that it keeps them for a time with no
// connection (the worker, started in the background, fetches them through it too).
const RULES_FILES = ["/rules-worker.js", "/rules.zip", ...["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm",
  "python_stdlib.zip", "pyodide-lock.json"].map((file) => `/static/pyodide/${file}`)];
let rulesKept = false;

function keepSetup() {
  if (navigator.onLine || !setup) api(gamePath("/setup")).then((given) => { setup = given; showHereOffline(); }).catch(() => {});
  if (rulesKept || !navigator.serviceWorker || !navigator.serviceWorker.controller) return;
  rulesKept = true;
  Promise.all(RULES_FILES.map((file) => fetch(file)))
    .then(() => { document.body.dataset.rulesKept = "true"; })
    .catch(() => { rulesKept = false; });
}

// The rules started on this device, by a page that records the game: in the background once the page is shown,
// where the page can work with no connection (`mayGoOffline`), else once the connection is lost. Python in the
// browser takes seconds to start: the header says when the rules are ready; with no connection, the page then
// shows the game from them.
function startRules() {
  if (rulesWorker || !recordsGame || !window.Worker) return;
  showRules("starting");
  rulesWorker = new Worker("/rules-worker.js");
  rulesWorker.onmessage = (message) => {
    const settle = rulesAnswers.get(message.data.id);
    rulesAnswers.delete(message.data.id);
    settle(message.data);
  };
  rulesWorker.onerror = () => { // the rules stopped here: every question waiting is answered so, none is asked again
    showRules("unavailable");
    tableHolds = null;
    for (const settle of rulesAnswers.values()) settle({ error: "the rules on this device stopped" });
    rulesAnswers.clear();
  };
  askRules({}).then((answer) => {
    showRules(answer.ready ? "ready" : "unavailable");
    showHereOffline();
  });
}

// Where a service worker can keep the page (over https, or on the machine itself), a page that records the game
// may go on with no connection: its rules start once it is shown, when the browser is idle, behind the first tap.
function mayGoOffline() {
  return window.isSecureContext && "serviceWorker" in navigator;
}

function startRulesInTheBackground() {
  if (!recordsGame || !mayGoOffline() || rulesWorker) return;
  if (window.requestIdleCallback) requestIdleCallback(startRules, { timeout: 2000 });
  else setTimeout(startRules, 0);
}

const RULES_SAID = {
  starting: "rules on this device: starting…",
  ready: "rules on this device: ready for use offline",
  unavailable: "rules on this device: unavailable (entries made offline wait unchecked)",
};

// Where the rules on this device stand (`starting`, `ready`, `unavailable`), said in the header.
function showRules(stands) {
  document.body.dataset.rules = stands;
  const status = document.getElementById("rules-status");
  status.hidden = false;
  status.dataset.rules = stands;
  status.textContent = RULES_SAID[stands];
}

// A seat's device says whose seat it follows: the seat the view was made for.
function showWhose(view) {
  if (!("seat" in view)) return; // drawn by the rules on this device, for one who records the game
  const whose = document.getElementById("whose");
  whose.hidden = !view.seat;
  whose.textContent = view.seat ? `${view.seat}'s seat` : "";
  document.body.dataset.seat = view.seat || "";
}

// With no connection, the game shown from the rules here once they are ready and hold the game.
function showHereOffline() {
  if (navigator.onLine) return;
  startRules();
  if (!onDevice() || shownHere) return;
  busy();
  refresh().catch(lost);
}

function askRules(message) {
  if (document.body.dataset.rules === "unavailable") return Promise.resolve({ error: "the rules on this device stopped" });
  const id = ++rulesAsked;
  return new Promise((resolve) => {
    rulesAnswers.set(id, resolve);
    rulesWorker.postMessage({ id, ...message });
  });
}

function onDevice() {
  return !navigator.onLine && recordsGame && setup !== null && document.body.dataset.rules === "ready";
}

// A question to the game the rules on this device hold, once it holds the game as it stands here: the game as
// the server last gave it and the entries waiting (those behind an entry entered again, not yet). It is opened
// afresh where it holds anything else. Null where the rules cannot answer.
function askTable(question, judging = false) {
  const asked = tableTurn.then(async () => (await tableReady()) ? tableAnswer(question, judging) : null);
  tableTurn = asked.catch(() => null);
  return asked;
}

// The game as it stands here: the setup's actions, the entries waiting (not those behind an entry entered again)
// and the entry being kept.
function tableWanted() {
  return [...setup.actions, ...(reentering ? [] : queued.map((entry) => entry.text)), ...keeping];
}

function startsWith(texts, start) {
  return start.length <= texts.length && start.every((text, at) => text === texts[at]);
}

async function tableReady() {
  const wanted = tableWanted();
  if (!tableHolds || !startsWith(wanted, tableHolds)) {
    const game = { ruleset: setup.ruleset, version: setup.ruleset_version, kit: setup.kit, players: setup.players,
      options: setup.options };
    tableHolds = null;
    const opened = await askRules({ open: JSON.stringify({ setup: game, actions: wanted }) });
    if (opened.error) return false;
    tableHolds = wanted;
    tableGeneration += 1;
    return true;
  }
  for (const text of wanted.slice(tableHolds.length)) {
    const answer = await tableAnswer({ enter: text });
    if (!answer || !("consequences" in answer.enter)) { tableHolds = null; return false; }
  }
  return true;
}

async function tableAnswer(question, judging = false) {
  const answer = await askRules({ ask: JSON.stringify(question) });
  if (answer.error) { // the worker's game may have changed before it failed: opened afresh next time
    tableHolds = null;
    return null;
  }
  const answered = JSON.parse(answer.answer);
  if (answered.enter && "consequences" in answered.enter) {
    tableHolds.push(question.enter);
    tableGeneration += 1;
    if (judging) keeping.push(question.enter);
  }
  return answered;
}

// The choices after each word offered, and what the words would lead to if they are a whole action, asked of
// the rules here behind the page's own questions.
function askAhead(choices) {
  if (!onDevice() || drawnUnjudged) return;
  const held = entered.map((entry) => entry.word);
  const following = choices.next.map((word) => [...held, word]);
  const advice = document.getElementById("advice");
  const ahead = [...(choices.complete ? [held.join(" ")] : []), ...(advice.hidden ? [] : [advice.dataset.action])];
  if (!following.length && !ahead.length) return;
  const asked = tableTurn.then(async () => {
    if (!(await tableReady())) return;
    const generation = tableGeneration;
    const answer = await tableAnswer({ ahead, following });
    if (!answer) return;
    if (answeredAhead.generation !== generation) answeredAhead = { generation, following: new Map(), ahead: new Map() };
    following.forEach((words, at) => answeredAhead.following.set(words.join(" "), answer.following[at]));
    ahead.forEach((text, at) => answeredAhead.ahead.set(text, answer.ahead[at]));
  });
  tableTurn = asked.catch(() => null);
}

// What the rules here answered ahead for `key`, if the worker's game is still the one they answered on and holds
// the game as it stands here.
function knownAhead(kind, key) {
  if (!onDevice() || drawnUnjudged || answeredAhead.generation !== tableGeneration || !tableHolds) return undefined;
  const wanted = tableWanted();
  if (wanted.length !== tableHolds.length || !startsWith(wanted, tableHolds)) return undefined;
  return answeredAhead[kind].get(key);
}

// The rules' answer to `text` here, after the game's actions and the entries waiting before it (`enter`: its
// refusal, `message` and `ruling`, or what it leads to, then applied here), and the position and the words that
// may come next then (`shown`); null where it cannot be judged here.
async function judgedHere(text) {
  if (!setup || document.body.dataset.rules !== "ready") return null;
  const answer = await askTable({ enter: text, position: null, choices: [] }, true);
  return answer && { enter: answer.enter, shown: drawnHere(answer) };
}

async function positionHere(kept) {
  const answer = await askTable({ position: null, choices: kept.map((entry) => entry.word) });
  return answer && drawnHere(answer);
}

function drawnHere(answer) {
  const { actions, advice, state, ...view } = answer.position;
  return { view, legal: { actions, advice }, state, recent: null, choices: answer.choices, here: true };
}

async function choicesHere(held) {
  const answer = await askTable({ choices: held.map((entry) => entry.word) });
  return answer && answer.choices;
}

// What the rules here last drew with no words entered (the position, the state and the words that may come next),
// on the game as the server last gave it and the entries waiting: kept on the device, sealed (AES-GCM) under a key
// made from the game's token, so that a page opened again with no connection shows at once what the entries
// waiting lead to, before its rules are ready again, and a page without the token reads nothing of it.
const DRAWN = `evo-ledger-drawn:${GAME}`;
let drawnLast = null; // the drawing the rules here made last with no words entered
let drawnKeeping = Promise.resolve(); // drawings are kept one at a time, in the order drawn

// The last drawing kept, once nothing under way changes what it follows (an entry judged, kept, or entered again).
function keepDrawnSoon() {
  if (!drawnLast || !shownHere || drawnUnjudged || keeping.length || reentering || !queued.length) return;
  const { view, legal, state, choices } = drawnLast;
  const kept = { version, after: queued.map((entry) => entry.text), shown: { view, legal, state, choices } };
  drawnKeeping = drawnKeeping.then(() => sealDrawn(kept)).catch(() => null);
}

async function drawnSeal() {
  if (!token() || !window.crypto || !crypto.subtle) return null;
  const made = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`evo-ledger: the drawing kept for ${token()}`));
  return crypto.subtle.importKey("raw", made, "AES-GCM", false, ["encrypt", "decrypt"]);
}

function inBase64(bytes) {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function outOfBase64(text) { return Uint8Array.from(atob(text), (char) => char.charCodeAt(0)); }

async function sealDrawn(kept) {
  const seal = await drawnSeal();
  if (!seal) return;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, seal, new TextEncoder().encode(JSON.stringify(kept)));
  localStorage.setItem(DRAWN, JSON.stringify({ iv: inBase64(iv), body: inBase64(new Uint8Array(body)) }));
  document.body.dataset.drawnKept = String(kept.after.length); // how many entries waiting the drawing kept follows
}

// The drawing kept, if it follows the game as the page has it now: the server's version and every entry waiting.
async function drawnKept() {
  const stored = localStorage.getItem(DRAWN);
  const seal = stored && await drawnSeal();
  if (!seal) return null;
  try {
    const { iv, body } = JSON.parse(stored);
    const opened = await crypto.subtle.decrypt({ name: "AES-GCM", iv: outOfBase64(iv) }, seal, outOfBase64(body));
    const kept = JSON.parse(new TextDecoder().decode(opened));
    const follows = kept.version === version && kept.after.length === queued.length
      && kept.after.every((text, at) => text === queued[at].text);
    return follows ? kept.shown : null;
  } catch (error) {
    return null; // sealed under another token
  }
}

// With no connection and entries waiting, before the rules here are ready: the position the server last gave is
// behind the entries, so the page shows what they lead to as it kept it, or else offers no words until the rules
// are ready (an action typed meanwhile waits unchecked), never words for an entry already waiting.
async function behindTheQueue(shown, kept) {
  const drawn = kept.length ? null : await drawnKept();
  if (drawn) return { ...drawn, recent: null, here: false, kept: true };
  say("the entries waiting here lead on from this position: the words that follow them come once the rules on this "
    + "device are ready; an action typed meanwhile waits unchecked", "told");
  return { ...shown, choices: { words: kept.map((entry) => entry.word), forced: [], next: [], complete: false } };
}

// The entry kept on the device behind those already waiting (its key and time kept too: if the server did store
// it before the connection dropped, sending it again stores nothing more), then the queue sent if it can be.
// With no connection, the rules on this device judge it first (online, the server does).
async function waitBehind(text, offline) {
  if (offline) startRules();
  const known = offline && !reentering ? knownAhead("ahead", text) : undefined;
  const drawn = Boolean(known && "consequences" in known.enter); // what it leads to, drawn at once
  if (drawn) {
    drawnUnjudged += 1; // until the rules here hold the entry, nothing is answered ahead
    showPosition(drawnHere(known), [], ++composing);
  }
  const sending = pending; // the entry's own key from now on: the next entry, even of the same words, has another
  pending = null;
  const judging = offline ? judgedHere(text) : Promise.resolve(null); // asked now: before any question after it
  const turn = entering.then(() => keptHere(text, sending, drawn, judging));
  entering = turn.catch(() => null);
  return turn;
}

let entering = Promise.resolve(); // entries are judged and kept one at a time, in the order they were made

async function keptHere(text, sending, drawn, judging) {
  let judged = null;
  try {
    judged = await judging;
  } finally {
    if (drawn) drawnUnjudged -= 1;
  }
  if (judged && "message" in judged.enter) {
    const ruling = judged.enter.ruling ? ` [${judged.enter.ruling}]` : "";
    say(`refused${ruling}, by the rules on this device: ${judged.enter.message}`, "refused");
    if (drawn) await refresh(); // the position drawn ahead was not the rules' answer here
    else idle();
    return;
  }
  if (drawn && !drawnUnjudged) askAhead(offered);
  const head = reentering || { seq: queued.length ? queued[queued.length - 1].seq + 1 : Date.now(), expected: null };
  const expected = reentering || !queued.length ? (head.expected ?? version) : null;
  const entry = { key: sending.key, game: GAME, seq: head.seq, text, at: sending.at, expected };
  try {
    await keepEntry(entry);
  } finally {
    keeping = keeping.filter((held, at) => at !== keeping.indexOf(text));
  }
  reentering = null;
  queued = [...queued.filter((other) => other.key !== entry.key), entry].sort((one, other) => one.seq - other.seq);
  if (!drawn) entered = []; // once drawn, the words entered since are the next action's
  say(`"${text}" waits on this device and is sent when the connection returns`, "told");
  showQueue();
  await sync();
  const last = queued[queued.length - 1] === entry; // not an entry entered again before others
  if (drawn) {
    keepDrawnSoon(); // what it leads to, drawn ahead, now follows the entries waiting
    return;
  }
  if (judged && last && onDevice()) showPosition(judged.shown, [], ++composing); // what it leads to, drawn here
  else if (onDevice()) await refresh();
  else idle();
}

// The waiting entries sent in order, each with the version it expects (one that followed another expects the
// version that one left): the first the server will not take stops the queue, and the recorder decides.
async function sync(asked = false) {
  if (syncing || stopped || reentering || (forgetting && !asked) || !queued.length || !navigator.onLine) return;
  syncing = true;
  try {
    while (queued.length && !stopped) {
      const entry = queued[0];
      let answer;
      try {
        answer = await post(gamePath("/actions"), { actions: [entry.text], expected_version: entry.expected,
          entered_at: entry.at }, { "Idempotency-Key": entry.key });
      } catch (error) {
        online(false);
        return;
      }
      online(true);
      if (answer.ok) await stored(entry, answer.body.version);
      else stopped = whyStopped(entry, answer);
    }
  } finally {
    syncing = false;
    showQueue();
  }
  await refresh();
}

async function stored(entry, stands) {
  await forgetEntry(entry.key);
  queued.shift();
  version = stands;
  await expectNext(stands);
  say(`recorded: ${entry.text}`, "recorded");
}

// The waiting entry that followed one now stored (or dropped) expects the version the game stands at.
async function expectNext(stands) {
  if (!queued.length || queued[0].expected !== null) return;
  queued[0].expected = stands;
  await keepEntry(queued[0]);
}

function whyStopped(entry, answer) {
  if (answer.body.code === "version_conflict") return { entry, kind: "conflict", text: overtakenHere(entry, answer.body) };
  const ruling = answer.body.ruling ? ` [${answer.body.ruling}]` : "";
  return { entry, kind: "refused", text: `refused${ruling}: ${entry.text}: ${answer.body.message}` };
}

// An entry another device's overtook, as the entries waiting show it: what the other recorded, and this one, not
// recorded, for its person to decide.
function overtakenHere(entry, conflict) {
  return `another device recorded meanwhile: ${recordedBefore(conflict)}. Waiting here: ${entry.text}, not recorded: `
    + "keep it (sent on the game as it now stands), re-enter it or drop it";
}

// The recorder's answer to a waiting entry the server would not take: keep it (sent again on the game as it now
// stands), enter it again (its words given back to be changed, its place kept), or drop it.
async function resolveStopped(choice) {
  const { entry } = stopped;
  const stands = (await api(gamePath(""))).version;
  version = stands;
  if (choice === "keep") {
    entry.expected = stands;
    await keepEntry(entry);
  } else {
    await forgetEntry(entry.key);
    queued.shift();
    if (choice === "re-enter") {
      reentering = { seq: entry.seq, expected: stands };
      document.getElementById("tools").open = true;
      document.getElementById("typed").value = entry.text;
    } else {
      await expectNext(stands);
    }
  }
  stopped = null;
  say("");
  showQueue();
  await sync();
  await refresh();
}

function idle() { document.body.dataset.ready = "true"; }

async function revise(event) {
  event.preventDefault();
  busy();
  const reason = document.getElementById("reason").value.trim();
  const kind = document.getElementById("revision").value;
  const asked = {
    undo: ["/undo", { count: 1, reason, expected_version: version }],
    correct: ["/correct", { action: words(), reason, expected_version: version, entered_at: new Date().toISOString() }],
    note: ["/notes", { event: version, text: reason, expected_version: version }],
  }[kind];
  const answer = await post(gamePath(asked[0]), asked[1]);
  if (answer.ok) {
    document.getElementById("reason").value = "";
    entered = [];
    say(`${kind === "note" ? "noted" : kind === "undo" ? "undone" : "corrected"}: ${reason}`, "recorded");
  } else {
    const ruling = answer.body.ruling ? ` [${answer.body.ruling}]` : "";
    say(`refused${ruling}: ${answer.body.message}`, "refused");
  }
  await refresh();
}

function showAdvice(advice) {
  const button = document.getElementById("advice");
  button.hidden = !advice;
  if (!advice) return;
  button.textContent = `record the rules' decision: ${advice.actions[0]}`;
  button.dataset.action = advice.actions[0];
  button.title = `${advice.reason} [${advice.ruling}]`;
}

// The latest events, the latest first, each numbered once: by the list, with its own number in the log.
function listRecent(events) {
  const items = events.slice(-RECENT).reverse().map((event) =>
    element("li", { "data-event": String(event.number), value: String(event.number) }, event.text));
  document.getElementById("recent").replaceChildren(...items);
}

// Another device's entry: the position and the choices drawn again; words entered here that no longer lead to a
// legal action are taken back, saying so and what was recorded meanwhile. A tap on `record` (or a word) made since
// the entry arrived is left alone: its own answer is what the page tells.
async function recordedElsewhere(event) {
  if (recording || syncing || event.number <= version) return; // this page's: its answer redraws the page
  busy();
  const before = version;
  await refresh();
  const shown = composing;
  if (recording || !entered.length || offered.next.length || offered.complete) return;
  const meanwhile = await api(gamePath(`/events?after=${before}`));
  if (recording || shown !== composing) return;
  const theirs = listed(meanwhile.events);
  const taken = words();
  entered = [];
  showEntry();
  say(`another device recorded: ${theirs}. No legal action begins "${taken}" now: its words are taken back.`, "told");
  await compose();
}

// The game's stream, followed for as long as the page is open (opened again without the token once its time has
// passed: `streamStop` closes it).
let streamStop = null;
async function follow() {
  for (;;) {
    try {
      const heard = () => online(true);
      streamStop = new AbortController();
      await readStream(gamePath("/stream"), version, (event) => { heard(); return recordedElsewhere(event); },
        streamStop.signal, heard);
    } catch (error) {
      online(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function lost(error) {
  online(false);
  say(`no connection (${error.message}): the words cannot be offered. Type the action under "undo, correct, note, `
    + `type": it waits on this device and is sent when the connection returns.`, "told");
  idle();
}

document.getElementById("choices").addEventListener("click", (event) => {
  const button = event.target.closest("button.choice");
  if (button) choose(button.dataset.word);
});
document.getElementById("board").addEventListener("click", (event) => {
  const space = event.target.closest("[data-tap]");
  if (space) choose(space.dataset.tap);
});
document.getElementById("back-word").addEventListener("click", takeBack);
document.getElementById("record").addEventListener("click", () => record(words()).catch(lost));
document.getElementById("advice").addEventListener("click", (event) => record(event.target.dataset.action).catch(lost));
document.getElementById("typed-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = document.getElementById("typed");
  const text = typed.value.trim();
  if (!text) return;
  typed.value = "";
  record(text).catch(lost);
});
document.getElementById("typed").addEventListener("input", async (event) => {
  const typed = event.target.value;
  const prefix = typed.endsWith(" ") ? typed.trim() : typed.trim().split(/\s+/).slice(0, -1).join(" ");
  const held = prefix ? prefix.split(" ").map((word) => ({ word, forced: false })) : [];
  const choices = (onDevice() && await choicesHere(held)) || await choicesAfter(held);
  const lead = [prefix, ...choices.forced].filter(Boolean).join(" ");
  document.getElementById("completions").replaceChildren(...choices.next.map((word) =>
    element("option", { value: lead ? `${lead} ${word}` : word })));
});
document.getElementById("revise").addEventListener("submit", (event) => revise(event).catch(lost));

// The devices that record the game beside this one: a new one joins by its link or QR code, and is let go.
async function showDevices() {
  if (!recordsGame) return;
  const listed = await api(gamePath("/co-recorders"));
  document.getElementById("devices").hidden = false;
  const seats = document.getElementById("seat");
  if (!seats.options.length) seats.replaceChildren(...players.map((player) => element("option", { value: player }, player)));
  document.getElementById("co-recorders").replaceChildren(...listed.co_recorders.map(({ id, name }) =>
    element("li", { "data-name": name }, `${name} `,
      element("button", { class: "revoke", "data-id": String(id), "data-name": name }, "let go"))));
}

function showJoin(issued, label) {
  document.getElementById("join").hidden = false;
  document.getElementById("join-qr").src = issued.join_qr;
  const link = document.getElementById("join-link");
  link.href = issued.join_link;
  link.textContent = `${label} joins with this link (shown once)`;
}

async function addDevice(event) {
  event.preventDefault();
  const name = document.getElementById("device-name").value.trim();
  const answer = await post(gamePath("/co-recorders"), { name });
  if (!answer.ok) { say(`refused: ${answer.body.message}`, "refused"); return; }
  document.getElementById("device-name").value = "";
  showJoin(answer.body, name);
  say(`${name} may record: open the link or scan the code on that device`, "recorded");
  await showDevices();
}

// A seat's player follows the game on a device of their own, with that seat's hidden facts alone.
async function addSeat(event) {
  event.preventDefault();
  const seat = document.getElementById("seat").value;
  const answer = await post(gamePath(`/seat-tokens/${encodeURIComponent(seat)}`), {});
  if (!answer.ok) { say(`refused: ${answer.body.message}`, "refused"); return; }
  showJoin(answer.body, seat);
  say(`${seat} follows with their own hidden facts: open the link or scan the code on their device`, "recorded");
}

// A co-recorder is let go by its id: a name never goes in the path.
async function letGo(id, name) {
  const answer = await post(gamePath(`/co-recorders/${encodeURIComponent(id)}`), undefined, {}, "DELETE");
  say(answer.ok ? `${name} records no more` : `refused: ${answer.body.message}`, answer.ok ? "recorded" : "refused");
  document.getElementById("join").hidden = true;
  await showDevices();
}

// The admin gives a game a new recorder token for a lost one: every co-recorder the old one let in is let go.
async function replaceRecorderToken() {
  const answer = await post(gamePath("/recorder-token"), {});
  if (!answer.ok) { say(`refused: ${answer.body.message}`, "refused"); return; }
  const count = answer.body.co_recorders_let_go;
  showJoin(answer.body, "the recorder");
  say(`a new recorder token: the old one records no more, and ${count} co-recorder${count === 1 ? "" : "s"} let go`,
    "recorded");
  await showDevices();
}

// A reader without a token (a spectator) follows the game this many minutes behind the table, until it ends.
async function setBroadcastDelay(event) {
  event.preventDefault();
  const minutes = Number(document.getElementById("broadcast-delay").value);
  const answer = await post(gamePath("/broadcast-delay"), { minutes }, {}, "PUT");
  if (!answer.ok) { say(`refused: ${answer.body.message}`, "refused"); return; }
  say(minutes ? `spectators follow ${minutes} minutes behind the table until the game ends` : "spectators follow live", "recorded");
}

// Whether a seat's device records its player's own actions, beside following them.
async function setSeatsRecord(event) {
  const allowed = event.target.checked;
  const answer = await post(gamePath("/seats-record"), { allowed }, {}, "PUT");
  if (!answer.ok) { event.target.checked = !allowed; say(`refused: ${answer.body.message}`, "refused"); return; }
  say(allowed ? "each seat's link records that seat's own actions" : "seats' links follow the game and record nothing", "recorded");
}

document.getElementById("join-form").addEventListener("submit", (event) => addDevice(event).catch(lost));
document.getElementById("seats-record").addEventListener("change", (event) => setSeatsRecord(event).catch(lost));
document.getElementById("broadcast-form").addEventListener("submit", (event) => setBroadcastDelay(event).catch(lost));
document.getElementById("seat-form").addEventListener("submit", (event) => addSeat(event).catch(lost));
document.getElementById("co-recorders").addEventListener("click", (event) => {
  const button = event.target.closest("button.revoke");
  if (button) letGo(button.dataset.id, button.dataset.name).catch(lost);
});
document.getElementById("new-recorder-token").addEventListener("click", () => replaceRecorderToken().catch(lost));

document.getElementById("keep-entry").addEventListener("click", () => resolveStopped("keep").catch(lost));
document.getElementById("reenter-entry").addEventListener("click", () => resolveStopped("re-enter").catch(lost));
document.getElementById("drop-entry").addEventListener("click", () => resolveStopped("drop").catch(lost));
addEventListener("online", () => sync().catch(lost));
addEventListener("offline", () => { online(false); showHereOffline(); });
setInterval(() => sync().catch(() => online(false)), 5000);

// "forget this device": the entries still waiting to be sent are shown first, for the person to send or drop;
// then the device forgets the game, and the page opens again without a token. A token kept past its time, while
// the page is open, is forgotten so too (and the device may not be kept then).
const FORGOTTEN = "evo-ledger-forgotten"; // the game a tab's device has just forgotten, told once it opens again

// The entries shown to the person, read from the device (another tab's among them): only these are then dropped.
let shownToForget = [];
async function askToForget(expired = false) {
  queued = await queuedEntries(GAME);
  shownToForget = queued.map((entry) => entry.key);
  showQueue();
  if (!queued.length) return forgetAndOpenAgain();
  const waiting = queued.length === 1 ? "1 entry waits" : `${queued.length} entries wait`;
  document.getElementById("forgetting-text").textContent = `${waiting} on this device, not sent yet (listed above):`
    + " send or drop them, and the device forgets the game's token";
  document.getElementById("keep-device").hidden = expired;
  document.getElementById("keep-hours").parentElement.hidden = expired; // a token past its time is not kept again
  document.getElementById("send-then-forget").hidden = !token(); // with no token to send them with, drop only
  document.getElementById("forgetting").hidden = false;
  forgetting = true;
  document.body.dataset.device = "asking";
  document.getElementById("queue").scrollIntoView({ block: "nearest" });
}

async function sendThenForget() {
  await sync(true);
  queued = (await queuedEntries(GAME)).filter((entry) => shownToForget.includes(entry.key));
  if (!queued.length) return forgetAndOpenAgain();
  const waiting = queued.length === 1 ? "1 entry still waits" : `${queued.length} entries still wait`;
  say(`${waiting}, not sent${navigator.onLine ? "" : ": there is no connection"}`, "told");
}

function keepDevice() {
  forgetting = false;
  document.getElementById("forgetting").hidden = true;
  document.getElementById("keep-hours").parentElement.hidden = false;
  document.body.dataset.device = "kept";
}

async function forgetAndOpenAgain() {
  forgetting = true;
  await forgetDevice(shownToForget);
  sessionStorage.setItem(FORGOTTEN, GAME);
  location.reload();
}

// The device forgets the game: its token (and the tab's session token), the entries waiting to be sent that the person was shown (`shown`, their
// keys), and every answer of the game the service worker kept.
async function forgetDevice(shown) {
  localStorage.removeItem(KEPT);
  await drawnKeeping;
  localStorage.removeItem(DRAWN);
  localStorage.removeItem(HEARD);
  sessionStorage.removeItem(TOKEN_KEY); // and any token this tab's other pages were given in their form
  ownToken = { token: "", until: 0 };
  for (const key of shown) await forgetEntry(key);
  queued = await queuedEntries(GAME);
  stopped = null;
  await dropKeptAnswers();
}

// Every answer of the game the service worker kept, dropped by the worker once the writes it has under way are
// done (it keeps none asked before), and here too, in every cache of the site, for a worker older than the page.
async function dropKeptAnswers() {
  if (!("caches" in window)) return;
  if (navigator.serviceWorker && navigator.serviceWorker.controller) {
    await fetch(`/sw/forget?game=${encodeURIComponent(GAME)}`, { method: "POST" }).catch(() => null);
  }
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) if (ofThisGame(request.url)) await cache.delete(request);
  }
}

function ofThisGame(address) {
  const [, v1, games, game] = new URL(address).pathname.split("/");
  return v1 === "v1" && games === "games" && decodeURIComponent(game || "") === GAME;
}

// "this device": until when it keeps the game's token, chosen here, and "forget this device".
function showDevice() {
  const kept = keptToken();
  document.getElementById("this-device").hidden = !kept;
  document.body.dataset.device = kept ? "kept" : "none";
  if (!kept) return;
  document.getElementById("keep-hours").value = String(kept.hours);
  document.getElementById("kept-until").textContent = `until ${new Date(kept.until).toLocaleString()}`;
}

function keepFor(hours) {
  const kept = keptToken();
  if (!kept) return;
  if (kept.until <= Date.now()) {
    say("the game's token is past its time: this device forgets it, and keeps it no longer", "told");
    return;
  }
  const again = keepToken(kept.token, hours);
  ownToken = { token: again.token, until: again.until };
  expireWhenDue();
  showDevice();
  say(`this device keeps the game's token until ${new Date(again.until).toLocaleString()}`, "recorded");
}

function expireKept() {
  if (document.body.dataset.device !== "kept" || !ownToken.until || ownToken.until > Date.now()) return;
  if (streamStop) streamStop.abort(); // the stream opened with the token closes; it opens again without it
  document.getElementById("this-device").open = true;
  askToForget(true).catch(lost);
}

// The moment the kept token's time passes, the page forgets it (a timer waits at most about 24 days at once).
let expiryTimer = null;
function expireWhenDue() {
  clearTimeout(expiryTimer);
  if (!ownToken || !ownToken.until) return;
  const left = ownToken.until - Date.now();
  expiryTimer = setTimeout(() => { expireKept(); if (ownToken.until > Date.now()) expireWhenDue(); },
    Math.max(0, Math.min(left + 1, 2 ** 31 - 1)));
}

function toldForgotten() {
  if (sessionStorage.getItem(FORGOTTEN) !== GAME) return;
  sessionStorage.removeItem(FORGOTTEN);
  say("this device has forgotten the game's token: it reads the game as anyone may", "told");
  document.body.dataset.forgotten = "true";
}

document.getElementById("forget-device").addEventListener("click", () => askToForget().catch(lost));
document.getElementById("send-then-forget").addEventListener("click", () => sendThenForget().catch(lost));
document.getElementById("drop-then-forget").addEventListener("click", () => forgetAndOpenAgain().catch(lost));
document.getElementById("keep-device").addEventListener("click", keepDevice);
document.getElementById("keep-hours").addEventListener("change", (event) => keepFor(Number(event.target.value)));
// Another tab of the device forgot the game: this one forgets it too.
addEventListener("storage", (event) => {
  if ((event.key === null || event.key === KEPT) && ownToken && ownToken.token && !keptToken()) location.reload();
});
setInterval(expireKept, 10_000);

async function start() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  await takeToken();
  queued = await queuedEntries(GAME);
  showQueue();
  showDevice();
  toldForgotten();
  expireWhenDue();
  if (expiredOnOpen) {
    say("this device kept the game's token for as long as it was told: drop the entries that wait, and it forgets it",
      "told");
    document.getElementById("this-device").open = true;
    await askToForget(true);
  }
  document.getElementById("replay-link").href = `/games/${encodeURIComponent(GAME)}`;
  const summary = await api(gamePath(""));
  players = summary.players.map((player) => player.name);
  ruleset = summary.ruleset;
  document.getElementById("broadcast-delay").value = String(summary.broadcast_delay);
  document.getElementById("seats-record").checked = seatsRecord = summary.seats_record;
  online(navigator.onLine);
  await refresh();
  showHereOffline();
  startRulesInTheBackground();
  showDevices().catch(lost);
  follow();
  await sync();
}

start().catch((error) => { document.getElementById("headline").textContent = error.message; online(false); });
