// Reads the public /v1 API, with the reader's token for this browser session if one was given.
"use strict";
const TOKEN_KEY = "evo-ledger-token";

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

async function api(path) {
  const headers = token() ? { Authorization: "Bearer " + token() } : {};
  const answer = await fetch(path, { headers });
  const body = await answer.json();
  if (!answer.ok) throw Object.assign(new Error(body.message || answer.statusText), { code: body.code });
  return body;
}

function element(tag, attributes, ...children) {
  const made = document.createElement(tag);
  // A style is set through the CSS object model: the pages' policy refuses style attributes.
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === "style") made.style.cssText = value;
    else made.setAttribute(key, value);
  }
  for (const child of children) made.append(child);
  return made;
}

function resultText(result) {
  return result ? result.map((row) => `${row.rank} ${row.player} ${row.score.join("/")}`).join(", ") : "";
}

function setUpTokenForm(onChange) {
  const input = document.getElementById("token");
  input.value = token();
  document.getElementById("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    onChange();
  });
}
