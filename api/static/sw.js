// The recording page's and the kit editor's service worker: the pages, their assets and the game's latest answers
// kept on the device, so that the recording page opens and shows the game with no connection, and the kit editor
// opens with the kits it copies from. Each is asked of the server first and kept as it
// answers; with no connection, the kept answer is given. A game's answers are kept per reader (by a digest of the
// token asked with), one for each address, so that one reader's answer is never given to another. An answer to a
// token is kept only while the device keeps that token (until the time the page sends with it), sealed under a key
// made from the token, so that a page without it reads nothing of it; it is dropped once that time has passed, and
// every answer of a game is dropped when the device forgets the game (POST /sw/forget?game=ID).
"use strict";
const CACHE = "evo-ledger-record-3"; // the first kept answers to tokens unsealed: dropped as this one starts
const SHELL = "/static/record.html"; // the recording page, whatever game's address opened it
const KIT_EDITOR = "/static/kits.html"; // the kit editor, whatever kit its address copies
const ASSETS = [
  SHELL, "/static/common.css", "/static/boards.css", "/static/record.css", "/static/favicon.svg",
  "/static/api.js", "/static/queue.js", "/static/boards.js", "/static/players.js",
  "/static/record.js", KIT_EDITOR, "/static/kits.css", "/static/kits.js",
];
const RECORD_PAGE = /^\/games\/[^/]+\/record$/;
const KIT_EDITOR_PAGE = "/kits/new";
// The kits the kit editor reads (the list, and each kit's document by its hash): public, kept as any asset.
const KIT_READ = /^\/v1\/kits(\/sha256:[0-9a-f]{64})?$/;
// The rules as the recording page's worker runs them on the device: kept once the worker has loaded them.
const RULES = /^\/(rules-worker\.js|rules\.zip|static\/pyodide\/[^/]+)$/;
// What the recording page reads of its game; its stream is never kept, nor the choices after words entered (the
// page opened again asks for those after none).
const GAME_READ = /^\/v1\/games\/[^/]+(\/(view|state|legal|events|choices|co-recorders|setup))?$/;
const KEPT_UNTIL = "Evo-Ledger-Kept-Until"; // of a request, as the page sends it, and of an answer kept sealed
const FORGET = "/sw/forget";

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => dropKept(pastItsTime))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === FORGET) {
    event.respondWith(forgetGame(url.searchParams.get("game") || "").then(() => new Response(null, { status: 204 })));
    return;
  }
  if (request.method !== "GET") return;
  sweepNowAndThen(event);
  if (RECORD_PAGE.test(url.pathname)) event.respondWith(askedFirst(request, SHELL));
  else if (url.pathname === KIT_EDITOR_PAGE) event.respondWith(askedFirst(request, KIT_EDITOR));
  else if (KIT_READ.test(url.pathname)) event.respondWith(askedFirst(request, url.pathname));
  else if (ASSETS.includes(url.pathname) || RULES.test(url.pathname)) event.respondWith(askedFirst(request, url.pathname));
  else if (GAME_READ.test(url.pathname) && !url.searchParams.get("words")) {
    event.respondWith(readerOf(request).then((reader) => askedFirst(request, reader.key, event, reader)));
  }
});

// The server's answer, given at once and kept under `key` (for a game's read, as its `reader` may keep it); the
// answer kept, once the writes of its place are done, when the server cannot be reached. A place (an address and
// its reader; for a game's read, whatever the other parameters) keeps the latest answer asked for: its writes are
// made in turn, and one asked before the answer already kept is left out, as is one asked before its game was
// forgotten.
const places = new Map();
const forgotten = new Map(); // a game the device forgot: the number of the last read asked before
let asking = 0; // counts the reads asked

function placeOf(key) {
  const kept = new URL(key, self.location.origin);
  const reader = kept.searchParams.get("kept-for");
  const name = `${kept.pathname} ${reader || ""}`;
  if (!places.has(name)) {
    places.set(name, { path: kept.pathname, reader, asked: 0, kept: 0, writing: Promise.resolve() });
  }
  return places.get(name);
}

async function askedFirst(request, key, event, reader = null) {
  const place = placeOf(key);
  const turn = ++place.asked;
  const asked = ++asking;
  let answer;
  try {
    answer = await fetch(request);
  } catch (error) {
    await place.writing;
    const kept = await keptAnswer(key, reader);
    if (kept) return kept;
    throw error;
  }
  if (answer.ok && mayKeep(reader)) {
    const kept = answer.clone();
    const done = place.writing.then(() => {
      if (turn < place.kept || asked <= (forgotten.get(gameOf(place.path)) || 0)) return undefined;
      place.kept = turn;
      return keep(place, key, kept, reader);
    });
    place.writing = done.catch(() => {});
    if (event) event.waitUntil(done);
    else await done;
  }
  return answer;
}

// A page or an asset, and a game's read without a token, are kept; one with a token only while the device keeps it.
function mayKeep(reader) {
  return !reader || !reader.seal || reader.until > Date.now();
}

// The answer kept in its place, in place of any kept there under another address; sealed, for a token.
async function keep(place, key, answer, reader) {
  const cache = await caches.open(CACHE);
  for (const other of await cache.keys(place.path, { ignoreSearch: true })) {
    if (new URL(other.url).searchParams.get("kept-for") === place.reader) await cache.delete(other);
  }
  await cache.put(key, reader && reader.seal ? await sealed(answer, reader) : answer);
}

// The answer kept under `key`, opened for the reader that asks; one past its time is dropped, not given.
async function keptAnswer(key, reader) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(key);
  if (!kept || !reader || !reader.seal) return kept;
  if (pastItsTime(kept)) {
    await cache.delete(key);
    return undefined;
  }
  return opened(kept, reader.seal);
}

// Whose answer it is: the address it is kept under (the one asked, with a digest of the token asked with), and for
// a token, the key it is sealed under and until when the device keeps the token.
async function readerOf(request) {
  const token = request.headers.get("Authorization") || "";
  const url = new URL(request.url);
  url.searchParams.set("kept-for", hex(await digest(token), 12));
  const key = url.pathname + url.search;
  if (!token) return { key, seal: null, until: 0 };
  return { key, seal: await sealOf(token), until: Number(request.headers.get(KEPT_UNTIL)) || 0 };
}

function digest(text) { return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)); }

function hex(bytes, length) {
  return Array.from(new Uint8Array(bytes).slice(0, length), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

// The key a token's answers are sealed under (AES-GCM), made from the token alone: another digest than the one
// that names its answers' addresses.
async function sealOf(token) {
  const made = await digest(`evo-ledger: the answers kept for ${token}`);
  return crypto.subtle.importKey("raw", made, "AES-GCM", false, ["encrypt", "decrypt"]);
}

async function sealed(answer, reader) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, reader.seal, await answer.arrayBuffer());
  const type = answer.headers.get("Content-Type") || "application/json";
  const headers = { "Content-Type": type, [KEPT_UNTIL]: String(reader.until) };
  return new Response(new Blob([iv, body]), { status: answer.status, headers });
}

async function opened(kept, seal) {
  const bytes = new Uint8Array(await kept.arrayBuffer());
  const body = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, seal, bytes.slice(12));
  return new Response(body, { status: kept.status, headers: { "Content-Type": kept.headers.get("Content-Type") } });
}

// An answer kept for a token whose time has passed.
function pastItsTime(kept) {
  const until = kept ? kept.headers.get(KEPT_UNTIL) : null;
  return until !== null && !(Number(until) > Date.now());
}

// The game's reads kept, in every cache of the site, that `which` picks (given the kept answer), dropped.
async function dropKept(which) {
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (GAME_READ.test(new URL(request.url).pathname) && await which(await cache.match(request), request)) {
        await cache.delete(request);
      }
    }
  }
}

// The answers kept past their time, looked for at most once a minute, as the worker wakes.
let swept = 0;
function sweepNowAndThen(event) {
  if (Date.now() - swept < 60_000) return;
  swept = Date.now();
  event.waitUntil(dropKept(pastItsTime));
}

// Every answer of the game dropped, once the writes under way are done: none asked before is kept after.
async function forgetGame(game) {
  forgotten.set(game, asking);
  const writes = [...places.values()].filter((place) => gameOf(place.path) === game).map((place) => place.writing);
  await Promise.all(writes);
  await dropKept((kept, request) => gameOf(new URL(request.url).pathname) === game);
}

function gameOf(path) {
  const [, v1, games, game] = path.split("/");
  return v1 === "v1" && games === "games" && game ? decodeURIComponent(game) : null;
}
