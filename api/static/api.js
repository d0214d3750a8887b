// Reads the public /v1 API, with the reader's token for this browser session if one was given. A page that holds
// a token of its own (the recording page: the one its device keeps for the game, or none) reads with that one
// alone, never the session's.
"use strict";
const TOKEN_KEY = "evo-ledger-token";
// Sent with a token the device keeps: until when it keeps it (a time in ms), which the service worker keeps the
// answers to that token no longer than.
const KEPT_UNTIL_HEADER = "Evo-Ledger-Kept-Until";
let ownToken = null; // the page's own token, where it has one: { token, until } ("" and 0 for none)

// A kept token whose time has passed is sent no more, whether or not the page has forgotten it yet.
function token() {
  if (!ownToken) return sessionStorage.getItem(TOKEN_KEY) || "";
  return ownToken.until && ownToken.until <= Date.now() ? "" : ownToken.token;
}

function tokenHeaders() {
  if (!token()) return {};
  const until = ownToken && ownToken.until ? { [KEPT_UNTIL_HEADER]: String(ownToken.until) } : {};
  return { Authorization: "Bearer " + token(), ...until };
}

// An answer to a token is its reader's alone: the browser's own cache stores none of them, where a page without the
// token would be given it.
function tokenCache() { return token() ? "no-store" : "default"; }

async function api(path) {
  const answer = await fetch(path, { headers: tokenHeaders(), cache: tokenCache() });
  const body = await answer.json();
  if (!answer.ok) throw Object.assign(new Error(body.message || answer.statusText), { code: body.code, problem: body });
  return body;
}

// What a recording page kept for a game (`evo-ledger-record:ID`: { token, hours, until }) is dropped, on every page
// of the site, once its time has passed; the recording page of that game forgets its own itself (record.js), with
// the answers kept to it, once the person has been shown the entries waiting.
function dropExpiredKept() {
  const [, games, game, record] = location.pathname.split("/");
  const own = games === "games" && record === "record" ? `evo-ledger-record:${decodeURIComponent(game)}` : null;
  for (let index = localStorage.length - 1; index >= 0; index -= 1) {
    const key = localStorage.key(index);
    if (!key || !key.startsWith("evo-ledger-record:") || key === own) continue;
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(key)); } catch (error) { kept = null; }
    if (kept && typeof kept === "object" && Number.isFinite(kept.until) && kept.until <= Date.now()) {
      const keptGame = key.slice("evo-ledger-record:".length);
      for (const what of ["record", "drawn", "heard"]) localStorage.removeItem(`evo-ledger-${what}:${keptGame}`);
    }
  }
}
dropExpiredKept();

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

// A request that changes something, with the token: its answer's status and body, refusals included.
async function post(path, body, headers, method) {
  const auth = tokenHeaders();
  const answer = await fetch(path, { method: method || "POST", body: JSON.stringify(body), cache: tokenCache(),
    headers: { "Content-Type": "application/json", ...auth, ...(headers || {}) } });
  return { ok: answer.ok, status: answer.status, body: await answer.json() };
}

// A game's stream (server-sent events) read from after event `after`: `onEvent` is called with each event, in
// order, until the stream ends or `signal` aborts it; `onOpen`, if given, once the server has answered. Read
// through fetch, for the token's header.
async function readStream(path, after, onEvent, signal, onOpen) {
  const auth = tokenHeaders();
  const answer = await fetch(path, { headers: { ...auth, "Last-Event-ID": String(after) }, cache: tokenCache(),
    signal });
  if (!answer.ok) throw new Error(`the stream answered ${answer.status}`);
  if (onOpen) onOpen();
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    const messages = buffered.split("\n\n");
    buffered = messages.pop();
    for (const message of messages) {
      const data = message.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n");
      if (!data || message.includes("event: closed")) continue;
      await onEvent(JSON.parse(data));
    }
  }
}
