/* Node side of the search tests: runs the vendored lunr.js and static/search-core.js
   on a built site's index files. Reads one JSON request on stdin, writes one JSON answer.

   {"op": "query", "site": DIR, "queries": [...], "monolithic": FILE?, "top": 10, "patch": true, "filters": false}
   {"op": "tokens", "texts": [...]}
   {"op": "stem", "words": [...]}          -> lunr.js stems and stop-word flags
   {"op": "load", "index": FILE, "patch": false, "terms": [...]}  -> load a serialized index, look terms up
*/
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const REPO = path.resolve(__dirname, "..");
const zlib = require("zlib");
const lunr = require(path.join(REPO, "static/vendor/lunr/lunr.min.js"));
const Core = require(path.join(REPO, "static/search-core.js"));
const Phrase = require(path.join(REPO, "static/search-phrase.js"));

/* A packed term chunk, inflated at once (the browser's inflateJson is a stream). */
function inflateNow(data) { return JSON.parse(zlib.inflateSync(Buffer.from(data, "base64")).toString("utf8")); }

function readRequest() {
  return JSON.parse(fs.readFileSync(0, "utf8"));
}

/* Evaluate a site's search/*.js file with a sessiteSearch that stores what it registers. */
function loadSiteFile(file, sink) {
  const context = vm.createContext({ sessiteSearch: sink });
  vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
}

function siteLoader(site, core) {
  let meta = null, facts;
  const loaded = new Set();
  const bytes = { meta: 0, chunks: 0 };
  const sink = {
    meta: (m) => { meta = m; },
    chunk: (id, entries) => core.addChunk(id, typeof entries === "string" ? inflateNow(entries) : entries),
    frag: () => {},
    facts: (f) => { facts = f; },
  };
  const metaFile = path.join(site, "search", "meta.js");
  loadSiteFile(metaFile, sink);
  bytes.meta = fs.statSync(metaFile).size;
  const packs = new Map();
  return {
    meta,
    bytes,
    /* An event's snippet entry, as the results page reads it (undefined: its file is missing). */
    entryOf(doc, ev) {
      const key = doc + "-" + Math.floor(ev / meta.pack);
      if (!packs.has(key)) {
        const file = path.join(site, "search", "f", String(Math.floor(doc / 1000)), key + ".js");
        let data;
        if (fs.existsSync(file)) loadSiteFile(file, { frag: (d, p, packed) => { data = inflateNow(packed); } });
        packs.set(key, data);
      }
      const pack = packs.get(key);
      if (!pack) return undefined;
      const at = ev - pack.i;
      return at >= 0 && at < pack.ev.length ? pack.ev[at] : undefined;
    },
    facts() {
      const file = path.join(site, "search", "facts.js");
      if (facts === undefined) { facts = null; if (fs.existsSync(file)) loadSiteFile(file, sink); }
      return facts;
    },
    ensure(ids) {
      ids.forEach((id) => {
        if (loaded.has(id)) return;
        const file = path.join(site, "search", "t", id + ".js");
        loadSiteFile(file, sink);
        bytes.chunks += fs.statSync(file).size;
        loaded.add(id);
      });
    },
  };
}

function now() { return Number(process.hrtime.bigint()) / 1e6; }

function opQuery(req) {
  const core = Core.create(lunr, { patch: req.patch !== false });
  const site = siteLoader(req.site, core);
  const top = req.top || 10;
  let mono = null;
  if (req.monolithic) mono = lunr.Index.load(JSON.parse(fs.readFileSync(req.monolithic, "utf8")));
  const out = [];
  for (const q of req.queries) {
    const words = core.parseQuery(q);
    const plan = core.plan(words, site.meta.bounds);
    site.ensure(plan.chunks);
    const t0 = now();
    const found = core.run(words, plan.chunks, site.meta.fields);
    const ms = now() - t0;
    // With "filters": typed filters, as the results page applies them (after ranking).
    const typed = req.filters ? core.syntax(q).filters.map((f) => core.filterTest(f, site.meta, site.facts())) : [];
    // Quoted phrases of several words, checked on the snippet files as the results page checks them.
    // (search-phrase.js loads for a query with a phrase of several words only)
    const phraser = Phrase.create(core);
    const list = words.some((w) => w.chain) ? phraser.phrases(q) : [];
    const checked = phraser.check(found.results, list, site.entryOf);
    const results = checked.filter((r) => typed.every((keep) => keep(r.ref)));
    const item = {
      query: q,
      words: words.map((w) => [w.text, w.exact, w.prefix]),
      chunks: plan.chunks,
      broad: found.broad,
      total: results.length,
      ms,
      top: results.slice(0, top).map((r) => ({
        ref: r.ref, score: r.score, ev: r.ev, terms: r.terms, match: r.match, also: r.also,
        check: r.check || [], phrase: r.phrase === undefined ? null : r.phrase, checked: !!r.checked,
      })),
      nearest: found.nearest || [],
    };
    if (mono) item.mono = core.search(mono, words).slice(0, top).map((r) => ({ ref: r.ref, score: r.score }));
    out.push(item);
  }
  return { results: out, bounds: site.meta.bounds.length };
}

function opTokens(req) {
  const core = Core.create(lunr);
  return {
    tokens: req.texts.map((t) => core.tokens(t)),
    words: req.texts.map((t) => core.parseQuery(t)),
    syntax: req.texts.map((t) => core.syntax(t)),
    phrases: req.texts.map((t) => Phrase.create(core).phrases(t)),
  };
}

function opStem(req) {
  const core = Core.create(lunr);
  return {
    stems: req.words.map((w) => lunr.stemmer(new lunr.Token(w)).toString()),
    stop: req.words.map((w) => core.isStopWord(w)),
  };
}

function opLoad(req) {
  if (req.patch) Core.patchTokenSet(lunr);
  const data = JSON.parse(fs.readFileSync(req.index, "utf8"));
  let idx;
  try {
    idx = lunr.Index.load(data);
  } catch (e) {
    return { error: String(e && e.message || e) };
  }
  const inSet = new Set(idx.tokenSet.toArray());
  const found = {};
  for (const t of req.terms || []) {
    found[t] = idx.query((q) => q.term(t, { usePipeline: false })).map((r) => r.ref);
  }
  const terms = data.invertedIndex.map((e) => e[0]);
  return {
    missing: terms.filter((t) => !inSet.has(t)).length,
    extra: [...inSet].filter((t) => !(t in idx.invertedIndex)).length,
    found,
  };
}

const req = readRequest();
const ops = { query: opQuery, tokens: opTokens, stem: opStem, load: opLoad };
process.stdout.write(JSON.stringify(ops[req.op](req)));
