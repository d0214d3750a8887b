// The kit editor (/kits/new, /kits/new?from=NAME-OR-HASH): a kit drawn on a phone. A hex kit's spaces are placed
// by taps on a grid (flat-topped hexes on axial coordinates, as boards.js draws them): a tap on an empty cell adds a
// land space, a tap on a space turns its terrain to the next of the kit's terrains and, after the last, removes
// it; in "start marks" mode a tap marks the space for the seat chosen (a kit of starred beaches: stars it), or
// unmarks it. A kit of trait cards is a table of its traits. The rest of the document is a JSON text per part.
// Every change is checked by the rules worker (rules-worker.js, its `kit` message: the ruleset's own checks, and
// the spaces named by its scheme); a refusal is shown beside the space or the part it names, and a kit refused
// cannot be saved. The draft is kept on the device (localStorage) until saved; a save made with no connection
// waits there and is sent when the connection returns. A photo of the real board, laid under the grid, stays in
// this page's memory: it is never sent.
"use strict";
const DRAFT_KEY = "evo-ledger-kit-draft";
const UNSAVED_KEY = "evo-ledger-kit-unsaved"; // a save asked for with no connection: sent when it returns
const CELL = 12; // a hex's radius, as boards.js draws them
const COLOURS = { yellow: "#f2d16b", green: "#7fb069", brown: "#a47148", white: "#eef1f4", grey: "#9aa0a6" };
// The parts the page edits itself; every other part of a document is a JSON text of its own.
const OWN_PARTS = new Set(["format", "ruleset", "edition", "name", "stand_in", "note", "players", "terrains",
  "islands", "spaces", "start_marks", "start_beaches", "traits", "trait_cards"]);
const RULES_FILES = ["/rules-worker.js", "/rules.zip", ...["pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm",
  "python_stdlib.zip", "pyodide-lock.json"].map((file) => `/static/pyodide/${file}`)];

let kits = []; // GET /v1/kits
let draft = null; // the kit document drawn
let answer = null; // the rules' answer for the draft as it now stands: { problems, kit_hash }
let partProblems = {}; // a part's JSON text that does not parse: part -> message
let checks = 0; // counts the checks asked: an answer to an earlier one is left
let photo = null; // the photo laid under the grid: { url, width, height }, in memory only

const $ = (id) => document.getElementById(id);

// The rules worker, asked one question at a time by id.
let worker = null;
const waiting = new Map();
let asked = 0;

function startRules() {
  worker = new Worker("/rules-worker.js");
  worker.onmessage = (message) => {
    const settle = waiting.get(message.data.id);
    waiting.delete(message.data.id);
    if (settle) settle(message.data);
  };
  worker.onerror = () => showRules("unavailable");
  ask({}).then((ready) => {
    showRules(ready.ready ? "ready" : "unavailable");
    check();
  });
}

function ask(message) {
  const id = ++asked;
  return new Promise((settle) => { waiting.set(id, settle); worker.postMessage({ id, ...message }); });
}

function showRules(state) {
  const status = $("rules-status");
  status.dataset.rules = state;
  status.textContent = { ready: "the rules are ready", unavailable: "the rules could not start here",
    starting: "the rules are starting" }[state];
}

// What the rules worker loads, fetched once through the service worker, which keeps it for use with no connection.
function keepRules() {
  if (!navigator.serviceWorker || !navigator.serviceWorker.controller || document.body.dataset.rulesKept) return;
  Promise.all(RULES_FILES.map((file) => fetch(file)))
    .then(() => { document.body.dataset.rulesKept = "true"; }).catch(() => {});
}

// --- the draft -------------------------------------------------------------------------------------------------

function isHexKit() { return Array.isArray(draft.spaces); }
function marksKey() { return draft.start_marks !== undefined ? "start_marks" : draft.start_beaches !== undefined ? "start_beaches" : null; }

function changed() {
  localStorage.setItem(DRAFT_KEY, JSON.stringify({ draft, from: new URLSearchParams(location.search).get("from") || "" }));
  answer = null;
  show();
  check();
}

async function check() {
  if (!worker || $("rules-status").dataset.rules !== "ready") { show(); return; }
  const number = ++checks;
  const reply = await ask({ kit: JSON.stringify(draft) });
  if (number !== checks) return;
  if (reply.error) {
    answer = { problems: [{ field: null, message: `the rules could not check the kit: ${reply.error}`, ruling: null }], kit_hash: null };
  } else {
    const checked = JSON.parse(reply.answer);
    if (checked.document) draft = checked.document;
    answer = { problems: checked.problems, kit_hash: checked.kit_hash };
    localStorage.setItem(DRAFT_KEY, JSON.stringify({ draft, from: new URLSearchParams(location.search).get("from") || "" }));
  }
  show();
}

function spaceAt(q, r) { return draft.spaces.findIndex((space) => space.q === q && space.r === r); }

function tapCell(q, r) {
  const index = spaceAt(q, r);
  const mode = document.querySelector("input[name=mode]:checked").value;
  if (mode === "marks") {
    if (index >= 0) toggleMark(draft.spaces[index].id);
    return;
  }
  if (index < 0) {
    const space = { id: `new-${q}-${r}`, q, r, terrain: draft.terrains[0] };
    if (Array.isArray(draft.halves)) space.half = $("half").value;
    draft.spaces.push(space);
  } else {
    const space = draft.spaces[index];
    const next = draft.terrains.indexOf(space.terrain) + 1;
    if (next < draft.terrains.length) space.terrain = draft.terrains[next];
    else {
      draft.spaces.splice(index, 1);
      unmark(space.id);
    }
  }
  changed();
}

function toggleMark(id) {
  const key = marksKey();
  if (key === "start_beaches") {
    const marks = draft.start_beaches;
    if (marks.includes(id)) marks.splice(marks.indexOf(id), 1); else marks.push(id);
  } else if (key === "start_marks") {
    const seat = $("seat").value;
    const had = (draft.start_marks[seat] || []).includes(id);
    unmark(id);
    if (!had) draft.start_marks[seat] = [...(draft.start_marks[seat] || []), id];
  }
  changed();
}

function unmark(id) {
  if (Array.isArray(draft.start_beaches)) draft.start_beaches = draft.start_beaches.filter((mark) => mark !== id);
  if (draft.start_marks) {
    for (const seat of Object.keys(draft.start_marks)) draft.start_marks[seat] = draft.start_marks[seat].filter((mark) => mark !== id);
  }
}

// The seats a kit of start marks has: one for each player.
function setPlayers(count) {
  if (typeof draft.players !== "number") return;
  draft.players = count;
  if (draft.start_marks) {
    const marks = {};
    for (let seat = 1; seat <= count; seat += 1) marks[String(seat)] = draft.start_marks[String(seat)] || [];
    draft.start_marks = marks;
  }
}

// --- drawing ---------------------------------------------------------------------------------------------------

const SVG_NS = "http://www.w3.org/2000/svg";
function svg(tag, attributes, text) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== undefined) made.textContent = text;
  return made;
}

const centre = (q, r) => [CELL * 1.5 * q, CELL * Math.sqrt(3) * (r + q / 2)];
function hexPoints(x, y) {
  return Array.from({ length: 6 }, (_, corner) => {
    const angle = (Math.PI / 3) * corner;
    return `${(x + CELL * Math.cos(angle)).toFixed(1)},${(y + CELL * Math.sin(angle)).toFixed(1)}`;
  }).join(" ");
}

// The cells drawn: the spaces and two rings of empty cells round them (a block of cells for an empty island).
function gridCells() {
  const spaces = draft.spaces;
  const qs = spaces.map((space) => space.q), rows = spaces.map((space) => space.r + space.q / 2);
  const [qLow, qHigh] = spaces.length ? [Math.min(...qs) - 2, Math.max(...qs) + 2] : [-3, 3];
  const [rowLow, rowHigh] = spaces.length ? [Math.min(...rows) - 2, Math.max(...rows) + 2] : [-3, 3];
  const cells = [];
  for (let q = qLow; q <= qHigh; q += 1) {
    for (let r = Math.ceil(rowLow - q / 2); r <= Math.floor(rowHigh - q / 2); r += 1) cells.push([q, r]);
  }
  return cells;
}

function markOf(id) {
  if (Array.isArray(draft.start_beaches)) return draft.start_beaches.includes(id) ? "*" : null;
  for (const [seat, marks] of Object.entries(draft.start_marks || {})) if (marks.includes(id)) return seat;
  return null;
}

function drawGrid(refusedSpace) {
  const grid = $("grid");
  const cells = gridCells();
  const points = cells.map(([q, r]) => centre(q, r));
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const box = [Math.min(...xs) - CELL, Math.min(...ys) - CELL, Math.max(...xs) - Math.min(...xs) + 2 * CELL,
    Math.max(...ys) - Math.min(...ys) + 2 * CELL];
  grid.setAttribute("viewBox", box.map((n) => n.toFixed(1)).join(" "));
  grid.classList.toggle("with-photo", Boolean(photo));
  const layers = [];
  if (photo) layers.push(photoImage(box));
  cells.forEach(([q, r], index) => {
    const [x, y] = points[index];
    const found = spaceAt(q, r);
    const space = found >= 0 ? draft.spaces[found] : null;
    const mark = space ? markOf(space.id) : null;
    const label = space ? `${space.id}, ${space.terrain}${space.half ? `, ${space.half}` : ""}${mark ? (mark === "*" ? ", a starred beach" : `, start mark of seat ${mark}`) : ""}`
      : `an empty cell at ${q}, ${r}: add a space`;
    const cell = svg("polygon", { points: hexPoints(x, y), class: space ? "cell" : "cell empty", role: "button",
      tabindex: "0", "aria-label": label, "data-q": q, "data-r": r });
    if (space) {
      cell.setAttribute("fill", COLOURS[space.terrain] || "#c9b6e4");
      cell.dataset.space = space.id;
      cell.dataset.terrain = space.terrain;
      if (mark) cell.dataset.mark = mark;
      if (found === refusedSpace) { cell.classList.add("refused"); cell.setAttribute("aria-describedby", "grid-problem"); }
    }
    layers.push(cell);
    if (space) layers.push(svg("text", { x: (x - CELL * 0.5).toFixed(1), y: (y + 2).toFixed(1) }, space.id));
    if (mark) {
      layers.push(svg("circle", { class: "mark", cx: (x + CELL * 0.45).toFixed(1), cy: (y - CELL * 0.4).toFixed(1), r: "4" }));
      layers.push(svg("text", { class: "mark", x: (x + CELL * 0.3).toFixed(1), y: (y - CELL * 0.2).toFixed(1) }, mark));
    }
  });
  grid.replaceChildren(...layers);
}

// The photo, centred on the grid and as wide as it, then zoomed, turned and moved as its controls say.
function photoImage(box) {
  const zoom = Number($("photo-zoom").value), turn = Number($("photo-rotation").value);
  const width = box[2], height = (photo.height / photo.width) * width;
  const cx = box[0] + box[2] / 2 + Number($("photo-x").value) * box[2], cy = box[1] + box[3] / 2 + Number($("photo-y").value) * box[3];
  return svg("image", { href: photo.url, x: (-width / 2).toFixed(1), y: (-height / 2).toFixed(1), width: width.toFixed(1),
    height: height.toFixed(1), preserveAspectRatio: "none", id: "photo-image",
    transform: `translate(${cx.toFixed(1)} ${cy.toFixed(1)}) rotate(${turn}) scale(${zoom})` });
}

function drawTable() {
  $("trait-rows").replaceChildren(...draft.traits.map((trait, index) => element("tr", { "data-trait": index },
    element("td", {}, element("input", { value: trait, "aria-label": `trait ${index + 1}`, "data-trait-name": index, autocapitalize: "none" })),
    element("td", {}, element("button", { type: "button", "data-remove": index, "aria-label": `remove the trait ${trait}` }, "remove")))));
  $("trait-cards").value = draft.trait_cards;
}

// A JSON text for each part the page does not edit itself; one being typed in is left as it is.
function drawParts() {
  const box = $("sections");
  const parts = Object.keys(draft).filter((part) => !OWN_PARTS.has(part));
  const drawn = [...box.querySelectorAll("textarea")].map((area) => area.dataset.part);
  if (drawn.join() !== parts.join()) {
    box.replaceChildren(...parts.map((part) => element("details", { "data-section": part },
      element("summary", {}, part),
      element("label", { class: "hidden-label", for: `part-${part}` }, `${part}, as JSON`),
      element("textarea", { id: `part-${part}`, "data-part": part, spellcheck: "false", autocapitalize: "none" }),
      element("p", { class: "problem", "data-for": part, role: "alert" }))));
  }
  for (const area of box.querySelectorAll("textarea")) {
    if (document.activeElement !== area && !partProblems[area.dataset.part]) {
      area.value = JSON.stringify(draft[area.dataset.part], null, 1);
    }
  }
}

function show() {
  if (!draft) return;
  const hex = isHexKit();
  $("board-editor").hidden = !hex;
  $("table-editor").hidden = !Array.isArray(draft.traits);
  if (document.activeElement !== $("name")) $("name").value = draft.name || "";
  $("stand-in").checked = Boolean(draft.stand_in);
  $("players-row").hidden = typeof draft.players !== "number";
  if (typeof draft.players === "number" && document.activeElement !== $("players")) $("players").value = draft.players;
  const key = hex ? marksKey() : null;
  $("seat-row").hidden = key !== "start_marks";
  if (key === "start_marks") {
    const seats = Object.keys(draft.start_marks);
    const chosen = $("seat").value;
    if ([...$("seat").options].map((option) => option.value).join() !== seats.join()) {
      $("seat").replaceChildren(...seats.map((seat) => element("option", { value: seat }, `seat ${seat}`)));
      if (seats.includes(chosen)) $("seat").value = chosen;
    }
  }
  $("half-row").hidden = !Array.isArray(draft.halves);
  if (Array.isArray(draft.halves) && [...$("half").options].map((option) => option.value).join() !== draft.halves.join()) {
    $("half").replaceChildren(...draft.halves.map((half) => element("option", { value: half }, half)));
  }
  if (hex) $("terrains").textContent = `a tap on a space turns it: ${draft.terrains.join(", ")}, then removed`;
  const problems = shownProblems();
  if (hex) drawGrid(problems.space);
  if (Array.isArray(draft.traits)) drawTable();
  drawParts();
  showSave(problems.first);
}

// Each refusal beside what it concerns: a space's beside the grid (the space outlined), a start mark's beside the
// marks, a part's under its JSON text, the rest under the form. Each names its field and ruling.
function shownProblems() {
  for (const place of document.querySelectorAll(".problem")) {
    place.textContent = "";
    delete place.dataset.field;
    delete place.dataset.ruling;
  }
  document.querySelectorAll("#sections details").forEach((details) => details.classList.remove("refused"));
  const all = [...Object.entries(partProblems).map(([part, message]) => ({ field: part, message: `${part}: ${message}`, ruling: null })),
    ...(answer ? answer.problems : [])];
  let space = -1;
  for (const problem of all) {
    const field = problem.field || "document";
    const head = field.split(/[.[]/)[0];
    let where = "document";
    if (head === "spaces" || head === "islands" || head === "terrains") {
      where = "grid";
      const index = /^spaces\[(\d+)\]/.exec(field);
      if (index) space = Number(index[1]);
    } else if (head === "start_marks" || head === "start_beaches") where = "marks";
    else if (head === "traits" || head === "trait_cards") where = "table";
    else if (["name", "players", "stand_in", "format", "ruleset", "edition"].includes(head)) where = "head";
    else if (document.querySelector(`.problem[data-for="${CSS.escape(head)}"]`)) {
      where = head;
      document.querySelector(`details[data-section="${CSS.escape(head)}"]`).open = true;
    }
    if (!isHexKit() && (where === "grid" || where === "marks")) where = "document";
    const place = document.querySelector(`.problem[data-for="${CSS.escape(where)}"]`);
    if (where === "grid") place.id = "grid-problem";
    place.dataset.field = field;
    if (problem.ruling) place.dataset.ruling = problem.ruling;
    place.textContent = `${problem.message}${problem.ruling ? ` (ruling ${problem.ruling})` : ""}`;
  }
  return { space, first: all[0] || null };
}

function showSave(problem) {
  const save = $("save");
  const why = $("save-why");
  const unsaved = localStorage.getItem(UNSAVED_KEY);
  if (unsaved) {
    save.disabled = true;
    why.textContent = "kept on this device: it is saved when the connection returns";
  } else if (problem) {
    save.disabled = true;
    why.textContent = `it cannot be saved: the rules refuse it (${problem.field || "the document"})`;
  } else if (!answer) {
    save.disabled = true;
    why.textContent = $("rules-status").dataset.rules === "unavailable" ? "it cannot be saved: the rules could not check it here"
      : "it cannot be saved until the rules have checked it";
  } else {
    save.disabled = false;
    why.textContent = `the rules take it: ${answer.kit_hash.slice(0, 19)}…`;
  }
  save.setAttribute("aria-describedby", "save-why");
}

// --- saving ----------------------------------------------------------------------------------------------------

async function save() {
  localStorage.setItem(UNSAVED_KEY, JSON.stringify(draft));
  show();
  await sendUnsaved();
}

let sending = false;
async function sendUnsaved() {
  const unsaved = localStorage.getItem(UNSAVED_KEY);
  if (!unsaved || sending) return;
  sending = true;
  try {
    const stored = await post("/v1/kits", JSON.parse(unsaved));
    localStorage.removeItem(UNSAVED_KEY);
    if (stored.ok) {
      localStorage.removeItem(DRAFT_KEY);
      saved(stored.body, stored.status === 201);
    } else {
      $("save-why").textContent = "";
      const place = document.querySelector('.problem[data-for="document"]');
      place.textContent = `the server refused it: ${stored.body.message}`;
      place.dataset.field = stored.body.code || "";
    }
  } catch (error) { // no connection: it waits on the device
    showConnection();
  } finally {
    sending = false;
    show();
  }
}

let savedKit = null;
function saved(summary, isNew) {
  savedKit = summary;
  document.body.dataset.saved = summary.kit_hash;
  $("saved").hidden = false;
  $("saved-as").textContent = `${isNew ? "saved" : "saved already"} as ${summary.kit_hash}`;
  const count = summary.min_players === summary.max_players ? summary.min_players : `${summary.min_players} to ${summary.max_players}`;
  $("game-players").placeholder = `${count} names, in seat order`;
}

async function startGame(event) {
  event.preventDefault();
  const players = $("game-players").value.split(/[\s,]+/).filter(Boolean).map((name) => ({ name }));
  const started = await post("/v1/games", { kit: savedKit.kit, players });
  if (!started.ok) { $("new-game-message").textContent = started.body.message; return; }
  location.assign(`/games/${started.body.game_id}/record#token=${encodeURIComponent(started.body.recorder_token)}`);
}

function showConnection() {
  $("connection").textContent = navigator.onLine ? "" : "no connection";
  document.body.dataset.online = String(navigator.onLine);
}

// --- starting --------------------------------------------------------------------------------------------------

// A kit's document by its name or hash, as GET /v1/kits lists it.
async function kitDocument(reference) {
  const found = kits.find((kit) => kit.kit === reference || kit.kit_hash === reference);
  if (!found) throw new Error(`no kit ${reference} is on the server`);
  return api(`/v1/kits/${encodeURIComponent(found.kit_hash)}`);
}

// A new kit is the first built-in kit's parts with no spaces and no marks; a copy is the kit named, renamed.
function startingDraft(document, copied) {
  const started = JSON.parse(JSON.stringify(document));
  started.name = copied ? `${document.name}-copy` : "";
  started.stand_in = false;
  delete started.note;
  if (!copied && Array.isArray(started.spaces)) {
    started.spaces = [];
    if (started.start_marks) setStartMarks(started);
    if (started.start_beaches) started.start_beaches = [];
  }
  return started;
}

function setStartMarks(kit) {
  kit.start_marks = Object.fromEntries(Array.from({ length: kit.players }, (_, seat) => [String(seat + 1), []]));
}

async function begin() {
  const from = new URLSearchParams(location.search).get("from");
  const kept = JSON.parse(localStorage.getItem(DRAFT_KEY) || "null");
  kits = (await api("/v1/kits").catch(() => ({ kits: [] }))).kits;
  $("from").replaceChildren(element("option", { value: "" }, "a new island"),
    ...kits.map((kit) => element("option", { value: kit.kit }, `a copy of ${kit.name} (${kit.ruleset})`)));
  $("from").value = from || "";
  if (kept && kept.from === (from || "")) draft = kept.draft;
  else if (from) draft = startingDraft(await kitDocument(from), true);
  else draft = startingDraft(await kitDocument(newKitBase(3)), false);
  show();
  check();
  sendUnsaved();
}

// The built-in island kit a new island takes its climate, tokens and genes from: the 2nd edition's for that player
// count, else its first.
const NEW_ISLAND_RULESET = "evo2";
function newKitBase(players) {
  const islands = kits.filter((kit) => !kit.stored && kit.ruleset === NEW_ISLAND_RULESET);
  const fits = islands.find((kit) => kit.min_players <= players && players <= kit.max_players);
  return (fits || islands[0]).kit;
}

async function playersChanged() {
  const count = Number($("players").value);
  if (!Number.isInteger(count) || count < 1) return;
  const from = new URLSearchParams(location.search).get("from");
  if (!from && isHexKit()) { // a new island takes the parts of the built-in kit for its player count
    const base = await kitDocument(newKitBase(count)).catch(() => null);
    if (base) for (const part of Object.keys(base)) if (!OWN_PARTS.has(part)) draft[part] = base[part];
  }
  setPlayers(count);
  changed();
}

$("grid").addEventListener("click", (event) => {
  const cell = event.target.closest("polygon.cell");
  if (cell) tapCell(Number(cell.dataset.q), Number(cell.dataset.r));
});
$("grid").addEventListener("keydown", (event) => {
  const cell = event.target.closest("polygon.cell");
  if (cell && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); tapCell(Number(cell.dataset.q), Number(cell.dataset.r)); }
});
$("name").addEventListener("input", () => { draft.name = $("name").value.trim(); changed(); });
$("stand-in").addEventListener("change", () => { draft.stand_in = $("stand-in").checked; changed(); });
$("players").addEventListener("change", playersChanged);
$("kit-form").addEventListener("submit", (event) => event.preventDefault());
$("from").addEventListener("change", () => {
  localStorage.removeItem(DRAFT_KEY);
  location.assign($("from").value ? `/kits/new?from=${encodeURIComponent($("from").value)}` : "/kits/new");
});
$("sections").addEventListener("input", (event) => {
  const part = event.target.dataset.part;
  if (!part) return;
  try {
    draft[part] = JSON.parse(event.target.value);
    delete partProblems[part];
  } catch (error) {
    partProblems[part] = `not valid JSON: ${error.message}`;
  }
  changed();
});
$("trait-rows").addEventListener("input", (event) => {
  const index = event.target.dataset.traitName;
  if (index === undefined) return;
  draft.traits[Number(index)] = event.target.value.trim();
  changed();
});
$("trait-rows").addEventListener("click", (event) => {
  const index = event.target.dataset.remove;
  if (index === undefined) return;
  draft.traits.splice(Number(index), 1);
  changed();
});
$("add-trait").addEventListener("click", () => {
  draft.traits.push("");
  changed();
  const inputs = document.querySelectorAll("[data-trait-name]");
  inputs[inputs.length - 1].focus();
});
$("trait-cards").addEventListener("input", () => { draft.trait_cards = Number($("trait-cards").value); changed(); });
$("save").addEventListener("click", save);
$("new-game").addEventListener("submit", (event) => startGame(event).catch((error) => { $("new-game-message").textContent = error.message; }));
$("photo").addEventListener("change", () => {
  const file = $("photo").files[0];
  if (!file) return;
  const reader = new FileReader(); // a data: address, which the pages' policy lets an image load; kept in memory only
  reader.onload = () => {
    const image = new Image();
    image.onload = () => { photo = { url: reader.result, width: image.naturalWidth, height: image.naturalHeight }; show(); };
    image.src = reader.result;
  };
  reader.readAsDataURL(file);
});
for (const control of ["photo-zoom", "photo-rotation", "photo-x", "photo-y"]) $(control).addEventListener("input", show);
$("photo-clear").addEventListener("click", () => { photo = null; $("photo").value = ""; show(); });
window.addEventListener("online", () => { showConnection(); sendUnsaved(); });
window.addEventListener("offline", showConnection);

showConnection();
startRules();
begin().catch((error) => {
  const place = document.querySelector('.problem[data-for="document"]');
  place.textContent = `the kit could not be opened: ${error.message}`;
});
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {});
  navigator.serviceWorker.ready.then(() => {
    if (navigator.serviceWorker.controller) keepRules();
    else navigator.serviceWorker.addEventListener("controllerchange", keepRules);
  });
}
