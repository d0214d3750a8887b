// A board as data (GET /v1/games/{id}/view's `layout`: `evo_ledger.rules.boards.BoardLayout`), drawn the same way
// whatever the game, for the replay viewer and the recording page: its spaces on a hex or square grid with the
// pieces on them, its legend, and its panels of lines, cards and tokens. Nothing here knows a game: colours, words
// and what a tap on a space enters all come from the data. A layout's `tags` are written as `data-NAME`
// attributes, for the pages' scripts and their tests.
"use strict";
// The colours dealt to a board's `owners`, in their order; an owner it does not list is grey.
const PLAYER_COLOURS = ["#d62828", "#1d4ed8", "#2a9d8f", "#9b5de5", "#f77f00"];
const NO_OWNER_COLOUR = "#6b7280";
const SVG_NS = "http://www.w3.org/2000/svg";
const CELL = 12; // a hex's radius, half a square's side
const EDGES = ["thick", "dashed"];

function ownerColour(layout, owner) {
  const index = layout && owner !== null && owner !== undefined ? layout.owners.indexOf(owner) : -1;
  return index < 0 ? NO_OWNER_COLOUR : PLAYER_COLOURS[index % PLAYER_COLOURS.length];
}

// Where a space's centre lies, by its grid: flat-topped hexes on axial coordinates, or squares by column and row.
const GRIDS = {
  hex: {
    centre: (space) => [CELL * 1.5 * space.x, CELL * Math.sqrt(3) * (space.y + space.x / 2)],
    shape: (x, y) => {
      const polygon = document.createElementNS(SVG_NS, "polygon");
      polygon.setAttribute("points", Array.from({ length: 6 }, (_, corner) => {
        const angle = (Math.PI / 3) * corner;
        return `${(x + CELL * Math.cos(angle)).toFixed(1)},${(y + CELL * Math.sin(angle)).toFixed(1)}`;
      }).join(" "));
      return polygon;
    },
  },
  square: {
    centre: (space) => [CELL * 2 * space.x, CELL * 2 * space.y],
    shape: (x, y) => {
      const rect = document.createElementNS(SVG_NS, "rect");
      for (const [name, value] of [["x", x - CELL], ["y", y - CELL], ["width", CELL * 2], ["height", CELL * 2]]) {
        rect.setAttribute(name, value.toFixed(1));
      }
      return rect;
    },
  },
};

function svgElement(tag, attributes, text) {
  const made = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  if (text !== undefined) made.textContent = text;
  return made;
}

// The data attributes the pages act on: a tag never stands in for one (a tag `tap` would make a space,
// a card or a line enter its words on a tap).
const OWN_DATA = new Set(["tap", "space", "drawn"]);
const TAG_NAME = /^[a-z][a-z0-9-]*$/;

// A layout's tags as data attributes: those named as `boards.py` says (lower case, digits and hyphens), and none
// of the renderer's own.
function tagged(tags) {
  return Object.fromEntries(Object.entries(tags || {})
    .filter(([name]) => TAG_NAME.test(name) && !OWN_DATA.has(name))
    .map(([name, value]) => [`data-${name}`, value]));
}

function setTags(made, tags) {
  for (const [name, value] of Object.entries(tagged(tags))) made.setAttribute(name, value);
}

// The board: the grid and its pieces, then the panels. A grid's spaces are drawn once a game and changed in place
// at each step (what a page marked on them stays); the pieces are drawn again. `options.playersPanel`: the page
// has a players' panel, so the lines that say what it says are left out. A page with no layout draws nothing.
function drawBoard(board, layout, options = {}) {
  if (!layout) { board.replaceChildren(); return; }
  const parts = [drawnGrid(board, layout), keptPanels(board, layout, options)].filter(Boolean);
  if (parts.length !== board.children.length || parts.some((part, index) => board.children[index] !== part)) {
    board.replaceChildren(...parts);
  }
}

function drawnGrid(board, layout) {
  const grid = GRIDS[layout.grid];
  if (!grid || !layout.spaces.length) return null;
  const key = `${layout.grid} ${layout.spaces.map((space) => space.id).join(" ")}`;
  let svg = board.querySelector("svg.grid");
  if (!svg || svg.dataset.key !== key) svg = newGrid(grid, layout, key);
  const groups = svg.querySelector(".spaces").children;
  layout.spaces.forEach((space, index) => {
    const drawn = JSON.stringify(space);
    if (groups[index].dataset.drawn !== drawn) showSpace(groups[index], space, drawn);
  });
  const pieces = svg.querySelector(".pieces");
  const drawnPieces = JSON.stringify([layout.owners, layout.pieces]);
  if (pieces.dataset.drawn !== drawnPieces) {
    const centres = new Map(layout.spaces.map((space) => [space.id, grid.centre(space)]));
    pieces.replaceChildren(...layout.pieces.flatMap((piece) => drawnPiece(layout, piece, centres)));
    pieces.dataset.drawn = drawnPieces;
  }
  return svg;
}

// The panels as drawn for the step before, where this step's are the same; else drawn anew.
function keptPanels(board, layout, options) {
  const drawn = JSON.stringify([layout.owners, layout.groups, Boolean(options.playersPanel)]);
  const kept = board.querySelector(":scope > .board-panels");
  if (kept && kept.dataset.drawn === drawn) return kept;
  const earlier = new Map(kept ? [...kept.querySelectorAll(".board-panel")].map((panel) => [panel.dataset.drawn, panel]) : []);
  const panels = drawnPanels(layout, options, earlier);
  if (panels) panels.dataset.drawn = drawn;
  return panels;
}

function newGrid(grid, layout, key) {
  const points = layout.spaces.map(grid.centre);
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const margin = CELL * 1.2;
  const box = [Math.min(...xs) - margin, Math.min(...ys) - margin, Math.max(...xs) - Math.min(...xs) + 2 * margin,
    Math.max(...ys) - Math.min(...ys) + 2 * margin];
  const svg = svgElement("svg", { class: `grid ${layout.grid}`, viewBox: box.map((n) => n.toFixed(1)).join(" ") });
  svg.dataset.key = key;
  const spaces = svgElement("g", { class: "spaces" });
  spaces.append(...layout.spaces.map((space, index) => {
    const [x, y] = points[index];
    const group = svgElement("g", {});
    const shape = grid.shape(x, y);
    shape.classList.add("space");
    shape.append(svgElement("title", {}));
    const label = svgElement("text", { x: (x - CELL * 0.55).toFixed(1), y: (y - CELL * 0.35).toFixed(1), class: "label" });
    group.append(shape, label);
    return group;
  }));
  svg.append(spaces, svgElement("g", { class: "pieces" }));
  return svg;
}

// A space's look, words and facts, written on the shape drawn for it (`drawn`: the space's data, kept on its group
// so that a step that leaves it as it was changes nothing).
function showSpace(group, space, drawn) {
  group.dataset.drawn = drawn;
  const [shape, label] = group.children;
  for (const edge of EDGES) shape.classList.toggle(edge, space.edges.includes(edge));
  shape.setAttribute("fill", space.fill || "#eeeeee");
  shape.firstElementChild.textContent = space.title || space.id;
  for (const name of shape.getAttributeNames()) if (name.startsWith("data-")) shape.removeAttribute(name);
  setTags(shape, space.tags);
  shape.dataset.space = space.id;
  if (space.tap !== null) shape.dataset.tap = space.tap;
  label.textContent = space.label;
}

function drawnPiece(layout, piece, centres) {
  const centre = centres.get(piece.space);
  if (!centre) return [];
  const [x, y] = centre;
  const disc = svgElement("circle", { cx: x.toFixed(1), cy: (y + CELL * 0.2).toFixed(1), r: (CELL * 0.45).toFixed(1),
    class: "piece", fill: ownerColour(layout, piece.owner), ...tagged(piece.tags) });
  disc.append(svgElement("title", {}, piece.title || piece.owner));
  disc.dataset.owner = piece.owner;
  disc.dataset.space = piece.space;
  if (!piece.label) return [disc];
  return [disc, svgElement("text", { x: x.toFixed(1), y: (y + CELL * 0.2).toFixed(1), class: "piece-label" }, piece.label)];
}

// The panels, each taken from `earlier` (those drawn for the step before, by their data) where it is the same.
function drawnPanels(layout, options, earlier = new Map()) {
  if (!layout.groups.length) return null;
  return element("div", { class: "board-panels" }, ...layout.groups.map((group) => element("div",
    { class: "board-panel-group", "data-group": group.name },
    ...group.panels.map((panel) => {
      const drawn = JSON.stringify([layout.owners, panel]);
      const made = earlier.get(drawn) || drawnPanel(layout, panel, options);
      earlier.delete(drawn);
      made.dataset.drawn = drawn;
      return made;
    }))));
}

function drawnPanel(layout, panel, options) {
  const edge = panel.owner !== null ? { style: `border-color: ${ownerColour(layout, panel.owner)}` } : {};
  const lines = panel.lines.filter((line) => !(options.playersPanel && line.players_panel));
  return element("section", { class: "board-panel", ...tagged(panel.tags), ...edge },
    element("h3", {}, panel.title, panel.note ? " " : "", panel.note ? element("small", {}, panel.note) : ""),
    ...lines.map((line) => drawnLine(layout, line)));
}

function drawnLine(layout, line) {
  return element("div", { class: "line", ...tagged(line.tags) },
    line.text,
    line.cards.length ? element("div", { class: "cards" }, ...line.cards.map((card) => drawnCard(layout, card))) : "",
    line.tokens.length ? drawnTokens(layout, line.tokens) : "");
}

function drawnCard(layout, card) {
  const small = !card.text && !card.tokens.length;
  const look = [card.fill ? `background: ${card.fill}` : "", card.edge ? `border-color: ${card.edge}` : ""];
  const id = card.id ? { "data-card": card.id } : {};
  return element("div", { class: small ? "card small" : "card", ...tagged(card.tags), ...id,
    style: look.filter(Boolean).join("; ") },
    element("div", { class: "card-title" }, card.title),
    card.text ? element("div", { class: "card-text" }, card.text) : "",
    card.tokens.length ? drawnTokens(layout, card.tokens) : "");
}

function drawnTokens(layout, tokens) {
  return element("div", { class: "tokens" }, ...tokens.map((token) => {
    const colour = ownerColour(layout, token.owner);
    const look = token.look === "solid" ? `background: ${colour}` : `border-color: ${colour}`;
    return element("span", { class: `token ${token.look}`, ...tagged(token.tags), "data-owner": token.owner,
      "data-count": String(token.count), style: look }, token.text);
  }));
}

// The legend beside the board: each entry's swatch and words.
function drawLegend(legend, layout) {
  const keys = layout ? layout.legend : [];
  const drawn = JSON.stringify(keys);
  if (legend.dataset.drawn === drawn) return;
  legend.dataset.drawn = drawn;
  legend.replaceChildren(...keys.map((key) => element("li",
    { class: [key.struck ? "struck" : "", key.wide ? "wide" : ""].filter(Boolean).join(" "), ...tagged(key.tags) },
    key.swatch ? element("span", { class: "swatch", style: `background: ${key.swatch}` }) : "", key.text)));
}

// Whether a tap on a space leads on from the words offered now: its words, or their first, are offered.
function tapOffered(tap, offered) {
  return offered.has(tap) || offered.has(tap.split(" ")[0]);
}
