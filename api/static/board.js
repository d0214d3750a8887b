// The position as a game's rules draw it (GET /v1/games/{id}/view's `layout`), for the replay viewer and the
// recording page: a hex island's spaces and dinosaurs, its climate and auction, or the trait-card game's table.
"use strict";
const TERRAIN_COLOURS = { yellow: "#f3dc7a", green: "#9ccc65", brown: "#b08a5a", grey: "#9e9e9e", white: "#f4f4f4" };
const PLAYER_COLOURS = ["#d62828", "#1d4ed8", "#2a9d8f", "#9b5de5", "#f77f00"];
const HEX = 12;

function hexCorners(x, y) {
  return Array.from({ length: 6 }, (_, corner) => {
    const angle = (Math.PI / 3) * corner;
    return `${(x + HEX * Math.cos(angle)).toFixed(1)},${(y + HEX * Math.sin(angle)).toFixed(1)}`;
  }).join(" ");
}

// A space's centre on flat-topped axial hex coordinates.
function centre(space) { return [HEX * 1.5 * space.q, HEX * Math.sqrt(3) * (space.r + space.q / 2)]; }

// A hex island's spaces are drawn once a game; a step moves only the dinosaurs. A layout of a kind this page does
// not draw leaves the board empty, as a game with no board does. `options` are the trait-card table's.
function drawBoard(board, layout, players, options) {
  if (layout && layout.kind === "traits") { drawTraitsBoard(board, layout, options); return; }
  if (!layout || layout.kind !== "hex-island") { board.replaceChildren(); return; }
  const drawn = board.querySelector("svg");
  if (drawn && drawn.dataset.spaces === String(layout.spaces.length)) { drawDinosaurs(drawn, layout, players); return; }
  const points = layout.spaces.map(centre);
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  const box = [Math.min(...xs) - HEX * 1.2, Math.min(...ys) - HEX * 1.2, Math.max(...xs) - Math.min(...xs) + HEX * 2.4,
    Math.max(...ys) - Math.min(...ys) + HEX * 2.4];
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("viewBox", box.map((n) => n.toFixed(1)).join(" "));
  layout.spaces.forEach((space, index) => {
    const [x, y] = points[index];
    const hex = document.createElementNS(svgNs, "polygon");
    hex.setAttribute("points", hexCorners(x, y));
    hex.setAttribute("class", `space${space.coast ? " coast" : ""}${space.start ? " start" : ""}`);
    hex.setAttribute("fill", TERRAIN_COLOURS[space.terrain] || "#ccc");
    hex.dataset.space = space.id;
    hex.dataset.zone = layout.zones[space.terrain] || "";
    const title = document.createElementNS(svgNs, "title");
    title.textContent = `${space.id}: ${space.terrain}, ${layout.zones[space.terrain] || ""}${space.occupant ? ", " + space.occupant : ""}`;
    hex.append(title);
    svg.append(hex);
    const label = document.createElementNS(svgNs, "text");
    label.setAttribute("x", (x - HEX * 0.55).toFixed(1));
    label.setAttribute("y", (y - HEX * 0.35).toFixed(1));
    label.setAttribute("class", "label");
    label.textContent = space.id;
    svg.append(label);
  });
  svg.dataset.spaces = String(layout.spaces.length);
  svg.append(document.createElementNS(svgNs, "g"));
  board.replaceChildren(svg);
  drawDinosaurs(svg, layout, players);
}

function drawDinosaurs(svg, layout, players) {
  const svgNs = "http://www.w3.org/2000/svg";
  const group = svg.lastElementChild;
  const dinosaurs = [];
  layout.spaces.forEach((space) => {
    if (!space.occupant) return;
    const [x, y] = centre(space);
    const dino = document.createElementNS(svgNs, "circle");
    dino.setAttribute("cx", x.toFixed(1));
    dino.setAttribute("cy", (y + HEX * 0.2).toFixed(1));
    dino.setAttribute("r", (HEX * 0.45).toFixed(1));
    dino.setAttribute("class", "dino");
    dino.setAttribute("fill", PLAYER_COLOURS[players.indexOf(space.occupant) % PLAYER_COLOURS.length]);
    dino.dataset.occupant = space.occupant;
    dino.dataset.space = space.id;
    dinosaurs.push(dino);
  });
  group.replaceChildren(...dinosaurs);
  for (const hex of svg.querySelectorAll("polygon.space")) {
    const occupant = layout.spaces.find((space) => space.id === hex.dataset.space);
    hex.dataset.zone = layout.zones[occupant.terrain] || "";
  }
}

// The climate of the moment: each terrain's colour with the zone it is in, and the auction with its bids.
function drawZones(zones, layout) {
  if (!layout || layout.kind !== "hex-island") { zones.replaceChildren(); return; }
  const swatches = layout.terrains.map((terrain) => element("li", { "data-terrain": terrain, "data-zone": layout.zones[terrain] },
    element("span", { class: "swatch", style: `background: ${TERRAIN_COLOURS[terrain] || "#ccc"}` }),
    `${terrain}: ${layout.zones[terrain]}`));
  const bids = layout.auction.map((item) => element("li", { class: "auction" },
    `${item.place}: ${item.item}` + (item.bids.length ? " — " + item.bids.map(([who, amount]) => `${who} ${amount}`).join(", ") : "")));
  zones.replaceChildren(...swatches, ...bids);
}
