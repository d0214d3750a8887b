// The entries a recording page could not send yet, kept on the device (IndexedDB) until the server has them: each
// with its text, its idempotency key, the time it was entered at the table and the version it expects (null: the
// version the entry before it leaves the game at). A page reloaded with no connection finds them again.
"use strict";
const QUEUE_DATABASE = "evo-ledger";
const QUEUE_STORE = "entries";

let queueOpened = null; // the database, opened once for the page

function queueDatabase() {
  queueOpened ??= new Promise((resolve, reject) => {
    const opening = indexedDB.open(QUEUE_DATABASE, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore(QUEUE_STORE, { keyPath: "key" })
      .createIndex("game", "game");
    opening.onsuccess = () => {
      opening.result.onversionchange = () => { opening.result.close(); queueOpened = null; };
      resolve(opening.result);
    };
    opening.onerror = () => { queueOpened = null; reject(opening.error); };
  });
  return queueOpened;
}

function queueRequest(mode, ask) {
  return queueDatabase().then((database) => new Promise((resolve, reject) => {
    const transaction = database.transaction(QUEUE_STORE, mode);
    const asked = ask(transaction.objectStore(QUEUE_STORE));
    transaction.oncomplete = () => resolve(asked.result);
    transaction.onerror = () => reject(transaction.error);
  }));
}

// A game's waiting entries, in the order they were entered.
async function queuedEntries(game) {
  const entries = await queueRequest("readonly", (store) => store.index("game").getAll(game));
  return entries.sort((one, other) => one.seq - other.seq);
}

function keepEntry(entry) { return queueRequest("readwrite", (store) => store.put(entry)); }

function forgetEntry(key) { return queueRequest("readwrite", (store) => store.delete(key)); }
