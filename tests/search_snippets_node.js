/* Node side of the snippet tests and benchmark: ranks queries with the vendored lunr.js and
   static/search-core.js on a built site, then cuts each top result's snippet with
   static/search-snippet.js from the site's own snippet files, as the results page does.

   stdin:  {"site": DIR, "queries": [...], "top": 10, "core": FILE?}
   ("core": another search-core.js, e.g. an older one with its own snippet(text, terms), to compare)
   stdout: {"results": [{"query", "total", "whole", "ms", "top": [{"ref", "ev", "tier", "group", "match", "whole",
            "terms", "marks": [...], "text": "...", "matched": bool}]}]}
*/
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const zlib = require("zlib");

const REPO = path.resolve(__dirname, "..");
const lunr = require(path.join(REPO, "static/vendor/lunr/lunr.min.js"));
const Snippet = require(path.join(REPO, "static/search-snippet.js"));

function load(file, sink) {
  vm.runInContext(fs.readFileSync(file, "utf8"), vm.createContext({ sessiteSearch: sink }), { filename: file });
}

/* A packed index file's data (sessite/search/item.py ``packed``), inflated at once. */
function unpack(data) { return JSON.parse(zlib.inflateSync(Buffer.from(data, "base64")).toString("utf8")); }

function main() {
  const req = JSON.parse(fs.readFileSync(0, "utf8"));
  const core = require(path.resolve(req.core || path.join(REPO, "static/search-core.js"))).create(lunr);
  const snippets = core.snippet
    ? { snippet: (event, terms) => core.snippet(event[2], terms) } // an older core cuts its own snippets
    : Snippet.create(core);
  let meta = null;
  const frags = {};
  const sink = {
    meta: (m) => { meta = m; },
    chunk: (id, entries) => core.addChunk(id, typeof entries === "string" ? unpack(entries) : entries),
    frag: (doc, pack, data) => { frags[doc + "-" + pack] = data; },
  };
  load(path.join(req.site, "search", "meta.js"), sink);
  const loaded = new Set();
  function frag(doc, pack) {
    const key = doc + "-" + pack;
    if (!(key in frags)) load(path.join(req.site, "search", "f", String(Math.floor(doc / 1000)), key + ".js"), sink);
    if (typeof frags[key] === "string") frags[key] = unpack(frags[key]);
    return frags[key];
  }
  const out = [];
  for (const q of req.queries) {
    const words = core.parseQuery(q);
    const plan = core.plan(words, meta.bounds);
    plan.chunks.forEach((id) => {
      if (!loaded.has(id)) { load(path.join(req.site, "search", "t", id + ".js"), sink); loaded.add(id); }
    });
    const t0 = Number(process.hrtime.bigint()) / 1e6;
    const results = core.run(words, plan.chunks, meta.fields).results;
    const ms = Number(process.hrtime.bigint()) / 1e6 - t0;
    const top = results.slice(0, req.top || 10).map((r) => {
      const f = frag(r.ref, Math.floor(r.ev / meta.pack));
      const event = f.ev[r.ev - f.i] || f.ev[0];
      const snip = snippets.snippet(event, r.terms, r.weights, r.words);
      const also = (r.also || []).map((a) => {
        const g = frag(r.ref, Math.floor(a.ev / meta.pack));
        const keep = r.terms.map((t, i) => (r.words[i] || []).some((k) => a.keys.includes(k)));
        const pick = (list) => list.filter((_, i) => keep[i]);
        const cut = snippets.snippet(g.ev[a.ev - g.i], pick(r.terms), pick(r.weights), pick(r.words));
        return cut.pieces.filter((p) => p[1]).map((p) => p[0]);
      });
      return {
        ref: r.ref,
        ev: r.ev,
        tier: r.tier || 0,
        group: r.group || 0,
        match: r.match,
        whole: r.whole !== false,
        terms: r.terms,
        marks: snip.pieces.filter((p) => p[1]).map((p) => p[0]),
        also: also, // marks of the snippets from the other events shown
        text: snip.pieces.map((p) => p[0]).join(""),
        matched: snip.matched,
        title: f.t,
      };
    });
    out.push({ query: q, total: results.length, whole: results.filter((r) => r.whole).length, ms, top });
  }
  process.stdout.write(JSON.stringify({ results: out }));
}

main();
