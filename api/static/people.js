// The people page: every person the API lists, searched by name or stable id, and a keeper's changes to one of
// them (rename, merge into another, split a stable id out), each sent with the keeper's token, asked for once and
// kept for this browser session. A refusal is shown with the API's own message.
"use strict";
let listed = []; // the people the list shows, as the API gave them
let editing = null; // the person whose changes the panel offers
let waiting = null; // the change held until the keeper's token is given
let asked = 0; // the lists asked for: only the latest one's answer is shown

function showProblem(message) {
  const problem = document.getElementById("problem");
  problem.textContent = message;
  problem.hidden = !message;
}

function personLabel(person) {
  return person.name === person.person_id ? person.name : `${person.name} (${person.person_id})`;
}

function showPeople(people) {
  // Each cell names its column, for a phone's width, where the rows stand as blocks without the table's head.
  document.getElementById("people").replaceChildren(...people.map((person) => {
    const change = element("button", { type: "button", class: "change" }, "change");
    change.addEventListener("click", () => openEditor(person));
    return element("tr", { "data-person": person.person_id },
      element("td", { class: "game", "data-label": "name" }, person.name),
      element("td", { "data-label": "stable ids" }, person.seat_ids.join(", ")),
      element("td", { "data-label": "games" }, String(person.games)),
      element("td", {}, change));
  }));
  document.getElementById("no-people").hidden = people.length > 0;
}

function options(select, entries) {
  select.replaceChildren(...entries.map(([value, text]) => element("option", { value }, text)));
  select.closest("form").hidden = entries.length === 0;
}

function openEditor(person) {
  editing = person;
  document.getElementById("editing").textContent = personLabel(person);
  document.getElementById("new-name").value = person.name;
  const others = listed.filter((other) => other.person_id !== person.person_id);
  options(document.getElementById("merge-into"), others.map((other) => [other.person_id, personLabel(other)]));
  const splittable = person.seat_ids.filter((seatId) => seatId !== person.person_id);
  options(document.getElementById("split-id"), splittable.map((seatId) => [seatId, seatId]));
  const editor = document.getElementById("editor");
  editor.hidden = false;
  editor.scrollIntoView({ block: "nearest" });
}

function closeEditor() {
  editing = null;
  document.getElementById("editor").hidden = true;
}

function askForToken(why) {
  document.getElementById("keeper-why").textContent = why;
  const form = document.getElementById("keeper-form");
  form.hidden = false;
  document.getElementById("keeper-token").focus();
}

// A change to a person, with the keeper's token: asked for first where this session holds none, and again where the
// API refuses the one held as no keeper's. A person the keeper does not keep (an organiser's change to someone not
// seated at its competition's games) is a refusal like any other: the token is kept. Once made, the list is read
// again.
async function change(path, body, method) {
  if (!token()) {
    waiting = () => change(path, body, method);
    askForToken("Changes to people are a keeper's: the admin's token, or a competition organiser's.");
    return;
  }
  document.body.dataset.ready = "false";
  const answer = await post(path, body, {}, method);
  if (answer.status === 401 || (answer.status === 403 && answer.body.code === "token_refused")) {
    sessionStorage.removeItem(TOKEN_KEY);
    waiting = () => change(path, body, method);
    askForToken(answer.body.message);
    document.body.dataset.ready = "true";
    return;
  }
  if (!answer.ok) {
    showProblem(answer.body.message);
    document.body.dataset.ready = "true";
    return;
  }
  showProblem("");
  closeEditor();
  await load();
}

async function load() {
  document.body.dataset.ready = "false";
  const wanted = document.getElementById("search").value.trim();
  const mine = ++asked;
  try {
    const answer = await api("/v1/people" + (wanted ? "?" + new URLSearchParams({ q: wanted }) : ""));
    if (mine !== asked) return;
    listed = answer.people;
    showPeople(listed);
    document.getElementById("freshness").textContent =
      `games counted as far as the read tables have followed the log: ${answer.position} of its ${answer.log_position} events`;
  } catch (error) {
    if (mine !== asked) return;
    showProblem(error.message);
  }
  document.body.dataset.ready = "true";
}

function personPath(suffix) {
  return `/v1/people/${encodeURIComponent(editing.person_id)}${suffix}`;
}

function onSubmit(id, handler) {
  document.getElementById(id).addEventListener("submit", (event) => {
    event.preventDefault();
    handler();
  });
}

onSubmit("search-form", load);
document.getElementById("search").addEventListener("input", load);
onSubmit("rename-form", () => change(personPath(""), { name: document.getElementById("new-name").value }, "PATCH"));
onSubmit("merge-form", () => change(personPath("/merge"), { into: document.getElementById("merge-into").value }));
onSubmit("split-form", () => change(personPath("/split"), { seat_id: document.getElementById("split-id").value }));
onSubmit("keeper-form", () => {
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("keeper-token").value.trim());
  document.getElementById("keeper-token").value = "";
  document.getElementById("keeper-form").hidden = true;
  const held = waiting;
  waiting = null;
  if (held) held();
});
document.getElementById("keeper-cancel").addEventListener("click", () => {
  waiting = null;
  document.getElementById("keeper-form").hidden = true;
});
document.getElementById("close-editor").addEventListener("click", closeEditor);
load();
