// The recording page's service worker: the page, its assets and the game's latest answers kept on the device, so
// that the page opens and shows the game with no connection. Each is asked of the server first and kept as it
// answers; with no connection, the kept answer is given. A game's answers are kept per reader (by a digest of the
// token asked with), one for each address, so that one reader's answer is never given to another.
"use strict";
const CACHE = "evo-ledger-record-1";
const SHELL = "/static/record.html"; // the recording page, whatever game's address opened it
const ASSETS = [
  SHELL, "/static/common.css", "/static/traits-board.css", "/static/record.css", "/static/favicon.svg",
  "/static/api.js", "/static/queue.js", "/static/traits-board.js", "/static/board.js", "/static/record.js",
];
const RECORD_PAGE = /^\/games\/[^/]+\/record$/;
// The rules as the recording page's worker runs them on the device: kept once the worker has loaded them.
const RULES = /^\/(rules-worker\.js|rules\.zip|static\/pyodide\/[^/]+)$/;
// What the recording page reads of its game; its stream is never kept, nor the choices after words entered (the
// page opened again asks for those after none).
const GAME_READ = /^\/v1\/games\/[^/]+(\/(view|legal|events|choices|co-recorders|setup))?$/;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (RECORD_PAGE.test(url.pathname)) event.respondWith(askedFirst(request, SHELL));
  else if (ASSETS.includes(url.pathname) || RULES.test(url.pathname)) event.respondWith(askedFirst(request, url.pathname));
  else if (GAME_READ.test(url.pathname) && !url.searchParams.get("words")) {
    event.respondWith(readerKey(request).then((key) => askedFirst(request, key, event)));
  }
});

// The server's answer, given at once and kept under `key`; the answer kept, once the writes of its place are done,
// when the server cannot be reached. A place (an address and its reader; for a game's read, whatever the other
// parameters) keeps the latest answer asked for: its writes are made in turn, and one asked before the answer
// already kept is left out.
const places = new Map();

function placeOf(key) {
  const kept = new URL(key, self.location.origin);
  const reader = kept.searchParams.get("kept-for");
  const name = `${kept.pathname} ${reader || ""}`;
  if (!places.has(name)) {
    places.set(name, { path: kept.pathname, reader, asked: 0, kept: 0, writing: Promise.resolve() });
  }
  return places.get(name);
}

async function askedFirst(request, key, event) {
  const place = placeOf(key);
  const turn = ++place.asked;
  let answer;
  try {
    answer = await fetch(request);
  } catch (error) {
    await place.writing;
    const kept = await (await caches.open(CACHE)).match(key);
    if (kept) return kept;
    throw error;
  }
  if (answer.ok) {
    const kept = answer.clone();
    const done = place.writing.then(() => {
      if (turn < place.kept) return undefined;
      place.kept = turn;
      return keep(place, key, kept);
    });
    place.writing = done.catch(() => {});
    if (event) event.waitUntil(done);
    else await done;
  }
  return answer;
}

// The answer kept in its place, in place of any kept there under another address.
async function keep(place, key, answer) {
  const cache = await caches.open(CACHE);
  for (const other of await cache.keys(place.path, { ignoreSearch: true })) {
    if (new URL(other.url).searchParams.get("kept-for") === place.reader) await cache.delete(other);
  }
  await cache.put(key, answer);
}

// The address an answer is kept under: the one asked, and whose answer it is.
async function readerKey(request) {
  const token = request.headers.get("Authorization") || "";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  const reader = Array.from(new Uint8Array(digest).slice(0, 12), (byte) => byte.toString(16).padStart(2, "0")).join("");
  const url = new URL(request.url);
  url.searchParams.set("kept-for", reader);
  return url.pathname + url.search;
}
