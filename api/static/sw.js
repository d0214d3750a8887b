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
// What the recording page reads of its game; its stream is never kept.
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
  else if (GAME_READ.test(url.pathname)) event.respondWith(readerKey(request).then((key) => askedFirst(request, key, url)));
});

// The server's answer, kept under `key`; the answer kept, when the server cannot be reached. A game's answer
// replaces any kept for the same address and reader with other parameters.
async function askedFirst(request, key, url) {
  const cache = await caches.open(CACHE);
  let answer;
  try {
    answer = await fetch(request);
  } catch (error) {
    const kept = await cache.match(key);
    if (kept) return kept;
    throw error;
  }
  if (answer.ok) {
    if (url) await forgetOthers(cache, key);
    await cache.put(key, answer.clone());
  }
  return answer;
}

async function forgetOthers(cache, key) {
  const kept = new URL(key, self.location.origin);
  const reader = kept.searchParams.get("kept-for");
  for (const request of await cache.keys()) {
    const other = new URL(request.url);
    if (other.pathname === kept.pathname && other.searchParams.get("kept-for") === reader) await cache.delete(request);
  }
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
