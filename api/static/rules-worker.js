// The installed rulesets run in the browser (Pyodide, from the package's own copy): the recording page asks this
// worker what the rules answer when the server cannot be reached. Each message has an `id`, and one of:
// - `open`: the JSON text `evo_ledger.rules.judge.Table.of_json` takes: the game kept here from then on;
// - `ask`: the JSON text the kept game's `answer_json` takes (an entry, the position, the next words);
// - `request`: the JSON text `evo_ledger.rules.judge.judged_json` takes;
// - none of them: answered { id, ready: true } once the rules are loaded.
// The answer is { id, answer } (JSON text; `true` for `open`) or { id, error }.
"use strict";
importScripts("/static/pyodide/pyodide.js");

const rules = (async () => {
  const pyodide = await loadPyodide({ indexURL: "/static/pyodide/" });
  const bundle = await fetch("/rules.zip");
  if (!bundle.ok) throw new Error(`the rules could not be loaded: ${bundle.status}`);
  pyodide.unpackArchive(await bundle.arrayBuffer(), "zip", { extractDir: "/rules" });
  pyodide.runPython("import sys; sys.path.insert(0, '/rules')");
  return pyodide.pyimport("evo_ledger.rules.judge");
})();
let table = null;

function answered(judge, { open, ask, request }) {
  if (open !== undefined) {
    if (table) table.destroy();
    table = null;
    table = judge.Table.of_json(open);
    return "true";
  }
  if (ask !== undefined) {
    if (!table) throw new Error("no game is open");
    return table.answer_json(ask);
  }
  return judge.judged_json(request);
}

self.onmessage = async (message) => {
  const { id, open, ask, request } = message.data;
  try {
    const judge = await rules;
    if (open === undefined && ask === undefined && request === undefined) self.postMessage({ id, ready: true });
    else self.postMessage({ id, answer: answered(judge, { open, ask, request }) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
