// The trait-card game's table, drawn from a layout of kind "traits": each location with its fauna and flora as cards
// (their survival tokens on them) and the species' population tokens standing or used there, then each species'
// board: its decks as counts, its hand (as cards only for a reader who may see it), Future Genome, adaptations.
// Cards of one trait are told once, with their number (`agility ×3`). What the page says elsewhere is not drawn
// again: the headline's millennium, phase and awaited step, and, where the page has a players' panel, each
// species' player, points and hand.
"use strict";

const TRAIT_COLOURS = ["#d62828", "#1d4ed8", "#2a9d8f", "#9b5de5", "#f77f00", "#6b7280"];

function speciesColour(layout, name) {
  const index = layout.species.findIndex((species) => species.name === name);
  return TRAIT_COLOURS[(index < 0 ? TRAIT_COLOURS.length - 1 : index) % TRAIT_COLOURS.length];
}

function tokenMarks(layout, counts, className) {
  return counts.map(([species, count]) => element("span",
    { class: className, "data-species": species, "data-count": String(count), style: `background: ${speciesColour(layout, species)}` },
    `${species} ${count}`));
}

// Each name once, with how many times it comes, in the order they first come: [["agility", 3], ["size", 1]].
function tallied(names) {
  const counts = new Map();
  for (const name of names) counts.set(name, (counts.get(name) || 0) + 1);
  return [...counts];
}

function talliedText(counts) {
  return counts.map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(", ");
}

function drawCard(layout, card) {
  const symbols = card.symbols.length ? card.symbols.join(" ") : card.deck;
  return element("div", { class: `card ${card.deck}`, "data-card": card.id },
    element("div", { class: "card-name" }, card.id),
    element("div", { class: "card-symbols" }, symbols),
    element("div", { class: "card-tokens" }, ...tokenMarks(layout, card.tokens, "survival-token")));
}

function drawPlace(layout, place) {
  const populations = place.populations.flatMap(([species, standing, used]) => [
    ...(standing ? [[species, standing, "standing"]] : []), ...(used ? [[species, used, "used"]] : [])]);
  return element("section", { class: "place", "data-place": place.id },
    element("h3", {}, `${place.id} `, element("small", {}, place.primary)),
    element("div", { class: "place-cards" }, ...place.cards.map((card) => drawCard(layout, card))),
    element("div", { class: "populations" }, ...populations.map(([species, count, state]) => element("span",
      { class: `population ${state}`, "data-species": species, "data-count": String(count), "data-state": state,
        style: `border-color: ${speciesColour(layout, species)}` }, `${species} ${count} ${state}`))));
}

// A hand: as its cards, a trait once with its number, for a reader who may see it; else as a count.
function drawHand(species) {
  if (!species.hand_cards.length) return element("div", { class: "hand" }, `hand: ${species.hand} card${species.hand === 1 ? "" : "s"}`);
  return element("div", { class: "hand", "data-hand": species.hand_cards.join(" ") },
    ...tallied(species.hand_cards).map(([trait, count]) =>
      element("span", { class: "card trait", "data-count": String(count) }, count > 1 ? `${trait} ×${count}` : trait)));
}

// With `panel`, the page's players' panel says each species' player, points and hand.
function drawSpecies(layout, species, panel) {
  const adaptations = species.adaptations.map(([name, tokens]) => `${name} (${tokens})`).join(", ") || "none";
  const future = talliedText(tallied(species.future));
  return element("section", { class: "species", "data-species": species.name,
    style: `border-color: ${speciesColour(layout, species.name)}` },
    element("h3", {}, species.name, species.player && !panel ? ` · ${species.player} · ${species.points} points` : ""),
    element("div", { class: "decks" },
      `deck ${species.deck}` + (species.offspring.length ? ` (${talliedText(tallied(species.offspring))} face up)` : "") +
      ` · Lost Genome ${species.lost} · reserve ${species.reserve}` + (species.journey ? ` · journey ${species.journey}` : "")),
    ...(panel ? [] : [drawHand(species)]),
    element("div", { class: "future", "data-cards": String(species.future.length) },
      `Future Genome${species.future.length ? ` (${species.future.length})` : ""}: ${future || "empty"}`),
    element("div", { class: "adaptations" }, `adaptations: ${adaptations}`));
}

function drawTraitsBoard(board, layout, options = {}) {
  board.replaceChildren(element("div", { class: "traits-board" },
    element("div", { class: "places" }, ...layout.places.map((place) => drawPlace(layout, place))),
    element("div", { class: "species-boards" },
      ...layout.species.map((species) => drawSpecies(layout, species, options.panel)))));
}
