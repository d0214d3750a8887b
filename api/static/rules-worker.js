// The installed rulesets run in the browser (Pyodide, from the package's own copy): the recording page asks this
// worker what the rules answer when the server cannot be reached. Each message has an `id`, and one of:
// - `open`: the JSON text `evo_ledger.rules.judge.Table.of_json` takes: the game kept here from then on;
// - `ask`: the JSON text the kept game's `answer_json` takes (an entry, the position, the next words);
// - `request`: the JSON text `evo_ledger.rules.judge.judged_json` takes;
// - `kit`: a kit document's JSON text, as the kit editor draws it: answered with what
//   `evo_ledger.rules.hexisland.drafts.checked_json` answers (the document with its spaces named, the ruleset's
//   refusals of it, each naming its field and ruling, and its content hash once the ruleset takes it);
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
  return { judge: pyodide.pyimport("evo_ledger.rules.judge"), drafts: pyodide.pyimport("evo_ledger.rules.hexisland.drafts") };
})();
let table = null;

function answered({ judge, drafts }, { open, ask, request, kit }) {
  if (kit !== undefined) return drafts.checked_json(kit);
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
  const { id, open, ask, request, kit } = message.data;
  try {
    const loaded = await rules;
    if ([open, ask, request, kit].every((value) => value === undefined)) self.postMessage({ id, ready: true });
    else self.postMessage({ id, answer: answered(loaded, { open, ask, request, kit }) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
