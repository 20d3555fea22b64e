/* sessite search core: the query side of sitegen/search/ (terms.py, weights.py, index.py).
   Normalizes text exactly as the build did, finds the index chunks a query
   needs, rebuilds a small lunr index from them, and ranks with lunr.js 2.3.9.
   Used by the search page, the search worker and the node tests; no DOM here. */
(function (root, factory) {
  "use strict";
  var core = factory();
  if (typeof module === "object" && module.exports) module.exports = core;
  else root.SessiteSearchCore = core;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var TOKEN = /[\p{L}\p{N}_]+/gu; // Python's \w: letters, digits (incl. other numerics), underscore
  var ASCII_WORD = /^[a-z]+$/;
  var MIN_TERM = 2, MAX_TERM = 40;
  var PREFIX_MIN = 3; // shorter words are matched exactly only
  var MAX_PREFIX_CHUNKS = 6; // a prefix spanning more chunks than this is matched exactly only
  var MAX_EXPANSIONS = 100; // ... and so is one that expands to more terms than this
  var EXACT_BOOST = 10, PREFIX_BOOST = 1;
  var MAX_WORDS = 24; // further words of a pasted paragraph are ignored
  var NO_METADATA = Object.freeze({});

  function isLower(c) { return c >= "a" && c <= "z"; }
  function isUpper(c) { return c >= "A" && c <= "Z"; }
  function isDigit(c) { return c >= "0" && c <= "9"; }

  /* Split an identifier piece at camelCase humps, as Python's
     (?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]) does. */
  function humps(s) {
    var out = [], start = 0;
    for (var i = 1; i < s.length; i++) {
      var a = s[i - 1], b = s[i];
      if (((isLower(a) || isDigit(a)) && isUpper(b)) || (isUpper(a) && isUpper(b) && i + 1 < s.length && isLower(s[i + 1]))) {
        out.push(s.slice(start, i));
        start = i;
      }
    }
    out.push(s.slice(start));
    return out;
  }

  /* The raw pieces of one \w+ token: itself, then its _ and camelCase parts when it has any. */
  function tokenParts(raw) {
    var parts = [];
    raw.split("_").forEach(function (piece) {
      if (piece) humps(piece).forEach(function (p) { if (p) parts.push(p); });
    });
    return parts.length === 1 && parts[0] === raw ? [raw] : [raw].concat(parts);
  }

  function codePoints(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c < 0xdc00 || c > 0xdfff) n++;
    }
    return n;
  }

  function rawTokens(text) {
    return String(text).normalize("NFC").match(TOKEN) || [];
  }

  /* lunr.js 2.3.9's TokenSet.toString concatenates edge labels and node ids
     with nothing between them, so a node with edge "1" to node 234 and one
     with edges "1"->2 and "3"->4 get the same key ("01234") and the builder's
     minimizer merges them: terms with digits vanish or appear from nowhere at
     load time (lunr.js issues 503, 314, 279). A separator after every id makes
     the key unambiguous (a label is one UTF-16 code unit, an id is digits). */
  function patchTokenSet(lunr) {
    if (lunr.TokenSet.prototype.toString.sessitePatched) return;
    var fixed = function () {
      if (this._str) return this._str;
      var str = this.final ? "1" : "0", labels = Object.keys(this.edges).sort();
      for (var i = 0; i < labels.length; i++) str += labels[i] + this.edges[labels[i]].id + ",";
      return str;
    };
    fixed.sessitePatched = true;
    lunr.TokenSet.prototype.toString = fixed;
  }

  function create(lunr, options) {
    options = options || {};
    if (options.patch !== false) patchTokenSet(lunr);
    var stems = Object.create(null), termCache = Object.create(null);
    var chunks = Object.create(null);
    var cachedKey = null, cachedIndex = null;

    function stem(word) {
      if (word.length < 3 || !ASCII_WORD.test(word)) return word;
      var s = stems[word];
      if (s === undefined) s = stems[word] = lunr.stemmer(new lunr.Token(word)).toString();
      return s;
    }

    function isStopWord(term) { return lunr.stopWordFilter(term) === undefined; }

    function finish(candidate) {
      var term = candidate.toLowerCase(), n = codePoints(term);
      if (n < MIN_TERM || n > MAX_TERM || isStopWord(term)) return null;
      return ASCII_WORD.test(term) ? stem(term) : term;
    }

    /* The index terms of one raw token (same as terms_for in sitegen/search/terms.py). */
    function termsFor(raw) {
      var hit = termCache[raw];
      if (hit) return hit;
      var out = [];
      tokenParts(raw).forEach(function (c) { var t = finish(c); if (t) out.push(t); });
      return (termCache[raw] = out);
    }

    function tokens(text) {
      var out = [];
      rawTokens(text).forEach(function (raw) { Array.prototype.push.apply(out, termsFor(raw)); });
      return out;
    }

    /* The words of a user query. Punctuation never reaches lunr's query
       parser (idx.search("std::vector") throws); every word becomes
       clauses built with idx.query():
         exact: the word's own index term (stemmed like the index), boost 10;
         prefix: index terms starting with the word as typed, boost 1.
       A result must match every word, through either clause. */
    function parseQuery(query) {
      var words = [], seen = Object.create(null);
      function add(w) {
        var key = w.exact + "\u0000" + w.text;
        if (!seen[key] && words.length < MAX_WORDS) { seen[key] = true; words.push(w); }
      }
      rawTokens(query).forEach(function (raw) {
        var low = raw.toLowerCase();
        if (codePoints(low) > MAX_TERM) {
          termsFor(raw).forEach(function (t) { add({ text: t, exact: t, prefix: false }); });
          return;
        }
        var exact = finish(raw);
        if (exact) add({ text: low, exact: exact, prefix: codePoints(low) >= PREFIX_MIN });
      });
      return words;
    }

    function chunkOf(term, bounds) {
      var lo = 0, hi = bounds.length - 1, found = 0;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (bounds[mid] <= term) { found = mid; lo = mid + 1; } else hi = mid - 1;
      }
      return found;
    }

    /* Which term chunks a query needs. bounds[i] is the first term of chunk i
       (UTF-16 order, the order of JavaScript's < on strings). */
    function plan(words, bounds) {
      var ids = Object.create(null), broad = [];
      if (!bounds.length) return { chunks: [], broad: broad };
      words.forEach(function (w) {
        ids[chunkOf(w.exact, bounds)] = true;
        if (!w.prefix) return;
        var lo = chunkOf(w.text, bounds), hi = lo;
        while (hi + 1 < bounds.length && bounds[hi + 1].lastIndexOf(w.text, 0) === 0) hi++;
        if (hi - lo + 1 > MAX_PREFIX_CHUNKS) { w.prefix = false; w.broad = true; broad.push(w.text); return; }
        for (var c = lo; c <= hi; c++) ids[c] = true;
      });
      return { chunks: Object.keys(ids).map(Number).sort(function (a, b) { return a - b; }), broad: broad };
    }

    function addChunk(id, entries) { chunks[id] = entries; }
    function hasChunk(id) { return id in chunks; }

    /* A serialized lunr index holding exactly the terms of these chunks. Each
       term keeps its global lunr.py weights, and a query's score only reads
       the field-vector entries of the query's own terms, so scores equal the
       monolithic index's. */
    function serialize(ids, fields, words) {
      var entries = [];
      ids.forEach(function (id) {
        var chunk = chunks[id];
        if (!chunk) throw new Error("search chunk " + id + " is not loaded");
        for (var i = 0; i < chunk.length; i++) {
          // Only terms some word can match: others would not change any score.
          if (!words || words.some(function (w) { return matchesWord(chunk[i][0], w); })) entries.push(chunk[i]);
        }
      });
      if (words) {
        // A prefix that expands to very many terms makes every document's score a walk over
        // all of them (lunr's query vector): such a word is matched as a whole word only.
        // A prefix that adds no term beyond the word's own is dropped too (one pass less over its postings).
        var narrowed = words.filter(function (w) {
          if (!w.prefix) return false;
          var n = 0;
          for (var i = 0; i < entries.length; i++) if (entries[i][0] !== w.exact && entries[i][0].lastIndexOf(w.text, 0) === 0) n++;
          if (n > MAX_EXPANSIONS) w.broad = true;
          return n === 0 || n > MAX_EXPANSIONS;
        });
        if (narrowed.length) {
          narrowed.forEach(function (w) { w.prefix = false; });
          entries = entries.filter(function (e) { return words.some(function (w) { return matchesWord(e[0], w); }); });
        }
      }
      // lunr.js needs UTF-16 order, which is what < on JavaScript strings gives.
      entries.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; });
      var inverted = [], vectors = Object.create(null), order = [], events = Object.create(null);
      for (var t = 0; t < entries.length; t++) {
        // [term, title docs, title weights, body docs, body weights, e1, e2?, e3?]
        var entry = entries[t], posting = { _index: t };
        for (var f = 0; f < fields.length; f++) {
          var field = fields[f], deltas = entry[1 + 2 * f] || [], weights = entry[2 + 2 * f] || [];
          var docs = {}, doc = 0, absolute = field === "body" ? [] : null;
          for (var k = 0; k < deltas.length; k++) {
            doc += deltas[k];
            // Postings carry no lunr metadata (lunr would copy it for every match);
            // the events a term occurs in stay in a side table, read for the results only.
            docs[doc] = NO_METADATA;
            if (absolute) absolute.push(doc);
            var ref = field + "/" + doc, vector = vectors[ref];
            if (!vector) { vector = vectors[ref] = []; order.push(ref); }
            vector.push(t, weights[k] / 1000);
          }
          posting[field] = docs;
          if (absolute) events[entry[0]] = { docs: absolute, entry: entry };
        }
        inverted.push([entry[0], posting]);
      }
      return {
        index: {
          version: lunr.version,
          fields: fields,
          fieldVectors: order.map(function (ref) { return [ref, vectors[ref]]; }),
          invertedIndex: inverted,
          pipeline: []
        },
        events: events
      };
    }

    /* Where a session sits in a term's body postings (-1: not there). */
    function postingOf(side, doc) {
      var docs = side.docs, lo = 0, hi = docs.length - 1;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1, d = docs[mid];
        if (d < doc) lo = mid + 1;
        else if (d > doc) hi = mid - 1;
        else return mid;
      }
      return -1;
    }

    function buildIndex(ids, fields, words) {
      var key = ids.join(",") + "|" + (words ? words.map(function (w) { return w.exact + " " + w.text + " " + w.prefix; }).join("|") : "");
      if (key !== cachedKey) {
        var built = serialize(ids, fields, words);
        cachedIndex = lunr.Index.load(built.index);
        cachedIndex.sessiteEvents = built.events;
        cachedKey = key;
      }
      return cachedIndex;
    }

    function matchesWord(term, w) {
      return term === w.exact || (w.prefix && term.lastIndexOf(w.text, 0) === 0);
    }

    /* Rank with lunr, keep results matching every word, pick each result's event. */
    function search(index, words) {
      if (!words.length) return [];
      var hits = index.query(function (q) {
        words.forEach(function (w) {
          q.term(w.exact, { usePipeline: false, boost: EXACT_BOOST });
          if (w.prefix) q.term(w.text, { usePipeline: false, boost: PREFIX_BOOST, wildcard: lunr.Query.wildcard.TRAILING });
        });
      });
      // Which words each matched term satisfies, as a bit mask (terms repeat across hits).
      var masks = Object.create(null), all = (1 << words.length) - 1;
      function maskOf(term) {
        var m = masks[term];
        if (m === undefined) {
          m = 0;
          for (var i = 0; i < words.length; i++) if (matchesWord(term, words[i])) m |= 1 << i;
          masks[term] = m;
        }
        return m;
      }
      var out = [], table = index.sessiteEvents || null, evs = [], masksOf = [];
      for (var h = 0; h < hits.length; h++) {
        var hit = hits[h], metadata = hit.matchData.metadata, terms = Object.keys(metadata), seen = 0;
        for (var t = 0; t < terms.length; t++) seen |= maskOf(terms[t]);
        if (seen !== all) continue;
        var doc = Number(hit.ref), best = 0;
        if (table) {
          // The event where most words occur (the earliest of those); 0 is the session header.
          evs.length = 0;
          masksOf.length = 0;
          for (t = 0; t < terms.length; t++) {
            var side = table[terms[t]];
            if (!side || !metadata[terms[t]].body) continue;
            var at = postingOf(side, doc);
            if (at < 0) continue;
            var entry = side.entry, e = entry[5][at], m = maskOf(terms[t]);
            evs.push(e); masksOf.push(m);
            for (var c = 6; c < entry.length && entry[c][at] > 0; c++) { e += entry[c][at]; evs.push(e); masksOf.push(m); }
          }
          var bestCount = 0;
          best = evs.length ? evs[0] : 0;
          for (var i = 0; i < evs.length; i++) {
            var covered = 0;
            for (var j = 0; j < evs.length; j++) if (evs[j] === evs[i]) covered |= masksOf[j];
            var n = 0;
            for (; covered; covered &= covered - 1) n++;
            if (n > bestCount || (n === bestCount && evs[i] < best)) { best = evs[i]; bestCount = n; }
          }
        }
        out.push({ ref: doc, score: hit.score, ev: best, terms: terms, key: Math.round(hit.score * 1e8) });
      }
      // Scores are sums whose order depends on term numbering: compare them rounded,
      // then by session number, so equal scores always come out in one order.
      out.sort(function (a, b) { return b.key - a.key || a.ref - b.ref; });
      return out;
    }

    /* Results for a query whose chunks are loaded, and the words matched as whole words only. */
    function run(words, ids, fields) {
      var results = !words.length || !ids.length ? [] : search(buildIndex(ids, fields, words), words);
      return { results: results, broad: words.filter(function (w) { return w.broad; }).map(function (w) { return w.text; }) };
    }

    /* A window of text around the first match, as [text, isMatch] pieces
       (the caller turns them into text nodes and <mark>s). */
    function snippet(text, terms, width) {
      width = width || 220;
      text = String(text || "");
      var wanted = Object.create(null);
      terms.forEach(function (t) { wanted[t] = true; });
      var re = new RegExp(TOKEN.source, "gu"), m, hits = [];
      while ((m = re.exec(text)) !== null) {
        var ts = termsFor(m[0].normalize("NFC"));
        for (var i = 0; i < ts.length; i++) if (wanted[ts[i]]) { hits.push([m.index, m.index + m[0].length]); break; }
        if (hits.length && m.index > hits[0][0] + width) break;
      }
      var start = 0;
      if (hits.length && hits[0][0] > width / 3) {
        start = text.lastIndexOf(" ", hits[0][0] - Math.floor(width / 3));
        start = start < 0 ? hits[0][0] - Math.floor(width / 3) : start + 1;
      }
      var end = Math.min(text.length, start + width);
      if (end < text.length) { var cut = text.lastIndexOf(" ", end); if (cut > start + width / 2) end = cut; }
      var pieces = [], pos = start;
      if (start > 0) pieces.push(["…", false]);
      hits.forEach(function (h) {
        if (h[0] < pos || h[1] > end) return;
        if (h[0] > pos) pieces.push([text.slice(pos, h[0]), false]);
        pieces.push([text.slice(h[0], h[1]), true]);
        pos = h[1];
      });
      if (end > pos) pieces.push([text.slice(pos, end), false]);
      if (end < text.length) pieces.push(["…", false]);
      return { pieces: pieces, matched: hits.length > 0 };
    }

    return {
      lunr: lunr,
      stem: stem,
      isStopWord: isStopWord,
      termsFor: termsFor,
      tokens: tokens,
      parseQuery: parseQuery,
      plan: plan,
      addChunk: addChunk,
      hasChunk: hasChunk,
      serialize: serialize,
      buildIndex: buildIndex,
      search: search,
      run: run,
      snippet: snippet,
      matchesWord: matchesWord
    };
  }

  return { create: create, patchTokenSet: patchTokenSet, tokenParts: tokenParts, rawTokens: rawTokens };
});
