// The trait-card game's table, drawn from a layout of kind "traits": each location with its fauna and flora as cards
// (their survival tokens on them) and the species' population tokens standing or used there, then each species'
// board: its decks as counts, its hand (as cards only for a reader who may see it), Future Genome, adaptations.
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

function drawSpecies(layout, species) {
  const hand = species.hand_cards.length
    ? element("div", { class: "hand", "data-hand": species.hand_cards.join(" ") },
      ...species.hand_cards.map((trait) => element("span", { class: "card trait" }, trait)))
    : element("div", { class: "hand" }, `hand: ${species.hand} card${species.hand === 1 ? "" : "s"}`);
  const adaptations = species.adaptations.map(([name, tokens]) => `${name} (${tokens})`).join(", ") || "none";
  return element("section", { class: "species", "data-species": species.name,
    style: `border-color: ${speciesColour(layout, species.name)}` },
    element("h3", {}, species.name, species.player ? ` · ${species.player} · ${species.points} points` : ""),
    element("div", { class: "decks" },
      `deck ${species.deck}` + (species.offspring.length ? ` (${species.offspring.join(" ")} face up)` : "") +
      ` · Lost Genome ${species.lost} · reserve ${species.reserve}` + (species.journey ? ` · journey ${species.journey}` : "")),
    hand,
    element("div", { class: "future" }, `Future Genome: ${species.future.join(" ") || "empty"}`),
    element("div", { class: "adaptations" }, `adaptations: ${adaptations}`));
}

function drawTraitsBoard(board, layout) {
  board.replaceChildren(element("div", { class: "traits-board" },
    element("div", { class: "traits-where" }, `millennium ${layout.millennium} · ${layout.phase}` +
      (layout.awaited ? ` · ${layout.awaited}` : "")),
    element("div", { class: "places" }, ...layout.places.map((place) => drawPlace(layout, place))),
    element("div", { class: "species-boards" }, ...layout.species.map((species) => drawSpecies(layout, species)))));
}
