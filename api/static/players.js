// The recording page's players' panel: each player's colour, points and what they hold, read from the state the
// API gives this reader (GET /v1/games/{id}/state; with no connection, the same from the rules on the device, for
// one who records the game). A hand the reader may see is listed by its cards, another's by its count: the state
// gives no more. Each ruleset keeps these in its state its own way; a ruleset this page does not know is shown by
// the view's line for each player.
"use strict";

// Each name once, with how many times it comes, in the order they first come: [["agility", 3], ["size", 1]].
function tallied(names) {
  const counts = new Map();
  for (const name of names) counts.set(name, (counts.get(name) || 0) + 1);
  return [...counts];
}

function cardsCounted(count, kind) { return `${count} ${kind}${count === 1 ? "" : "s"}`; }

// What a player holds: the cards named, each once with its number, and the others by their count.
function holding(named, count, kind) {
  const held = tallied(named).map(([name, times]) => (times > 1 ? `${name} ×${times}` : name));
  const unnamed = count - named.length;
  return { named, held: unnamed > 0 ? [...held, cardsCounted(unnamed, named.length ? `more ${kind}` : kind)] : held };
}

// By ruleset: the player's points and holding, from the state as the reader is given it.
const SEATS_IN_STATE = {
  // players: { NAME: [seat, MP, genes, event cards held, the names of those the reader may see] }
  evo2: (state, name) => {
    const [, mp, , count, named] = state.players[name];
    return { points: `${mp} MP`, ...holding(named, count, "event card") };
  },
  // seats: { NAME: [seat, MP, genes, hand: its cards' names, or their number where the reader may not see them] }
  evo1: (state, name) => {
    const [, mp, , hand] = state.seats[name];
    return { points: `${mp} MP`, ...(Array.isArray(hand) ? holding(hand, hand.length, "event card")
      : holding([], hand, "event card")) };
  },
  // points: { NAME: points }; plays: { NAME: species, once chosen }; species: { SPECIES: { hand: { TRAIT: count },
  // or their number } }
  traits: (state, name) => {
    const species = state.plays[name];
    const hand = species === undefined ? 0 : state.species[species].hand;
    const named = typeof hand === "number" ? [] : Object.entries(hand).flatMap(([trait, count]) => Array(count).fill(trait));
    const count = typeof hand === "number" ? hand : named.length;
    return { points: `${state.points[name]} point${Math.abs(state.points[name]) === 1 ? "" : "s"}`, species,
      ...holding(named, count, "card") };
  },
};

// A player's colour: that of what they own on the board (their species, or themselves) where the board names its
// owners; else their seat's.
function playerColour(layout, players, name, species) {
  if (layout && layout.owners.length) return ownerColour(layout, species ?? name);
  return PLAYER_COLOURS[players.indexOf(name) % PLAYER_COLOURS.length];
}

// A player's points and holding, where the state has them as its ruleset keeps them; else null.
function seatInState(ruleset, state, name) {
  const read = SEATS_IN_STATE[ruleset];
  if (!read || !state) return null;
  try {
    return read(state, name);
  } catch (error) {
    return null; // a state this page does not know: the view's line says it
  }
}

// The panel drawn: a player a row; where the state does not say (none kept with no connection), the view's line.
function drawPlayers(panel, ruleset, state, view, players) {
  panel.replaceChildren(...players.map((name, seat) => {
    const found = seatInState(ruleset, state, name);
    const colour = playerColour(view.layout, players, name, found && found.species);
    const swatch = element("span", { class: "swatch", style: `background: ${colour}`, "aria-hidden": "true" });
    if (!found) return element("li", { class: "player", "data-player": name }, swatch, view.players[seat] || name);
    const { points, species, named, held } = found;
    return element("li", { class: "player", "data-player": name },
      swatch, element("strong", { class: "name" }, name), species ? element("span", { class: "plays" }, species) : "",
      element("span", { class: "points" }, points),
      element("span", { class: "holds", "data-holds": named.join(" ") }, held.length ? `holds ${held.join(", ")}` : "holds nothing"));
  }));
}
