// The installed rulesets run in the browser (Pyodide, from the package's own copy): the recording page asks this
// worker what the rules answer to its entries when the server cannot be reached. Each message is
// { id, request }, `request` the JSON text `evo_ledger.rules.judge.judged_json` takes; the answer is { id, answer }
// (its JSON text) or { id, error }. { id, ready: true } once the rules are loaded.
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

self.onmessage = async (message) => {
  const { id, request } = message.data;
  try {
    const judge = await rules;
    if (request === undefined) self.postMessage({ id, ready: true });
    else self.postMessage({ id, answer: judge.judged_json(request) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
};
