/* sessite search core: the query side of sessite/search/ (terms.py, weights.py, index.py).
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
  var EXACT_BOOST = 10, PREFIX_BOOST = 1, PART_BOOST = 1;
  var MAX_PAIRS = 8; // optional identifier words made of two typed words
  var MORE_EVENTS = 2; // events a result shows besides its own, for words its own lacks
  // How well a word matched: its own term, another spelling of it (stream_queue typed,
  // StreamQueue found), a longer term by prefix, an identifier's parts apart.
  // Results rank by the sum of their words' levels first.
  var EXACT = 4, SPELLING = 3, PREFIX = 2, APART = 1;
  // What a word's best term adds to a result's score, by how it matched (of its BM25 weight):
  // a longer term by prefix, or an identifier's parts apart, count for less than the word itself.
  var SHARE = [0, 0.4, 0.5, 0.9, 1];
  var PAIR_SHARE = 0.3; // a two-word identifier guess: a little, never a tier of its own
  var FILLER_SHARE = 0.2; // a question's filler word ("asked", "session"): a little, never required
  // Words people put in questions that say little about which session they mean (lunr's
  // stop words, "what", "did", "how", are dropped already). Stemmed like the index at create().
  var FILLERS = ["ask", "asked", "asking", "tell", "told", "want", "wanted", "need", "needed", "help",
    "please", "thing", "things", "something", "way", "use", "used", "using", "make", "made", "work",
    "worked", "question", "find", "found", "show", "know", "look", "try", "tried", "session", "sessions",
    "chat", "conversation", "talk", "talked", "remember", "earlier", "once", "again", "one"];
  // Match groups, in the order results are listed: every word as a whole, every word but an
  // identifier only through its parts apart, some of the words.
  var WHOLE = 0, APART_ONLY = 1, PARTIAL = 2;
  var MATCHES = ["whole", "apart", "partial"];
  var FILTERS = ["agent", "project", "model", "tool", "after", "before"];
  var WORD_START = /[\p{L}\p{N}_]/u;
  var MAX_EDITS = 2, NEAREST = 3; // "no results" suggests up to 3 index terms within 2 edits of a word
  var MAX_PARTIAL = 200; // results with some of the words kept (the best; they are read from the top)
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

  /* A packed index file's data: base64 of deflated JSON (snippet packs, term chunks). */
  function inflateJson(data) {
    var bin = atob(data), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }

  function create(lunr, options) {
    options = options || {};
    if (options.patch !== false) patchTokenSet(lunr);
    var stems = Object.create(null), termCache = Object.create(null);
    var chunks = Object.create(null), inflating = Object.create(null);
    var inflate = options.inflate || inflateJson;
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

    var fillers = Object.create(null);
    FILLERS.forEach(function (word) { var t = finish(word); if (t) fillers[t] = true; });

    /* The index terms of one raw token (same as terms_for in sessite/search/terms.py). */
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

    /* A search box's syntax: "quoted phrases", -excluded words (or -"phrases"), filters
       (agent:codex, project:volcano, model:, tool:, after:2026-03-01, before:), other words. */
    function syntax(query) {
      var out = { text: [], phrases: [], exclude: [], filters: [] };
      var re = /(-?)"([^"]*)"?|(\S+)/g, m, text = String(query || "");
      while ((m = re.exec(text))) {
        if (m[2] !== undefined) {
          var inner = m[2].trim();
          if (inner) (m[1] ? out.exclude : out.phrases).push(inner);
          continue;
        }
        var token = m[3], f = /^([A-Za-z]+):(.+)$/.exec(token);
        if (f && FILTERS.indexOf(f[1].toLowerCase()) >= 0) out.filters.push({ key: f[1].toLowerCase(), value: f[2], raw: token });
        else if (token.length > 1 && token.charAt(0) === "-" && WORD_START.test(token.charAt(1))) out.exclude.push(token.slice(1));
        else out.text.push(token);
      }
      return out;
    }

    /* The words of a user query. Punctuation never reaches lunr's query
       parser (idx.search("std::vector") throws); every word becomes
       clauses built with idx.query():
         exact: the word's own index term (stemmed like the index), boost 10;
           an identifier's other spellings (stream_queue, streamQueue) too;
         prefix: index terms starting with the word as typed, boost 1;
         parts: an identifier's parts (stream, queue), boost 1.
       A result must match every word: as a whole (exact or prefix), or, for
       an identifier, through all of its parts apart. Two words typed one
       after the other add an optional word, the identifier they make
       ("stream queue": stream_queue, streamqueue): it adds a little to those sessions' score.
       A search box's syntax (``syntax``) comes first: a quoted phrase's words are required
       (``phrase``: a session lacking one is no result; the index keeps no word positions,
       so their order is not checked), a -word excludes the sessions holding it
       (``exclude``), filters (agent:, project:, model:, tool:, after:, before:) are the
       page's to apply. */
    function parseQuery(query) {
      var words = [], pairs = [], seen = Object.create(null);
      function add(list, w) { // the word's index in its list (-1: too many words)
        var key = w.exact + "\u0000" + w.text + (w.exclude ? "\u0000-" : "") + (w.avoid ? "\u0000~" : "");
        if (seen[key] === undefined && words.length + pairs.length < MAX_WORDS) { seen[key] = list.length; list.push(w); }
        else if (seen[key] !== undefined && w.phrase && list[seen[key]]) {
          list[seen[key]].phrase = true;
          if (w.chain) list[seen[key]].chain = true;
        }
        return seen[key] === undefined ? -1 : seen[key];
      }
      function others(candidates, exact) {
        var out = [];
        candidates.forEach(function (c) { var t = finish(c); if (t && t !== exact && out.indexOf(t) < 0) out.push(t); });
        return out;
      }
      function stream(text, phrase) {
        var last = null, lastAt = -1, raws = rawTokens(text), chain = phrase && raws.length > 1;
        raws.forEach(function (raw) {
          var low = raw.toLowerCase();
          if (codePoints(low) > MAX_TERM) {
            termsFor(raw).forEach(function (t) {
              var long = { text: t, exact: t, prefix: false, phrase: phrase };
              if (chain) long.chain = true;
              add(words, long);
            });
            last = null;
            return;
          }
          var exact = finish(raw);
          if (!exact) { last = null; return; }
          var w = { text: low, exact: exact, prefix: codePoints(low) >= PREFIX_MIN };
          if (phrase) w.phrase = true;
          if (chain) w.chain = true; // a word of a phrase of several: its events are checked
          var pieces = tokenParts(raw).slice(1).map(function (p) { return p.toLowerCase(); });
          if (pieces.length >= 2) {
            w.pieces = pieces;
            w.alts = others([pieces.join("_"), pieces.join("")], exact);
            var parts = others(pieces, exact);
            if (parts.length >= 2) w.parts = parts;
          }
          if (fillers[exact] === true && !w.pieces && !phrase) w.filler = true;
          var at = add(words, w);
          if (last && at >= 0 && lastAt >= 0 && pairs.length < MAX_PAIRS) {
            var joined = others([last + "_" + low, last + low], null);
            // joins: the words it is made of (a snippet showing it shows them)
            if (joined.length) add(pairs, { text: last + " " + low, exact: joined[0], alts: joined.slice(1), prefix: false, optional: true, joins: [lastAt, at] });
          }
          last = low;
          lastAt = at;
        });
      }
      var parsed = syntax(query);
      stream(parsed.text.join(" "), false);
      parsed.phrases.forEach(function (phrase) { stream(phrase, true); });
      parsed.exclude.forEach(function (text) {
        // -word, -"word": no session holding it. -"two words": its words are no lunr clause
        // (``avoid``); the sessions where the phrase check finds them side by side are dropped.
        var raws = rawTokens(text), several = raws.length > 1;
        raws.forEach(function (raw) {
          var exact = finish(raw);
          if (!exact) return;
          if (several) add(words, { text: raw.toLowerCase(), exact: exact, prefix: false, avoid: true, chain: true });
          else add(words, { text: raw.toLowerCase(), exact: exact, prefix: false, exclude: true });
        });
      });
      // A query of nothing but fillers means them.
      var sought = words.filter(function (w) { return !w.exclude && !w.avoid; });
      if (sought.every(function (w) { return w.filler; })) sought.forEach(function (w) { delete w.filler; });
      return sought.length ? words.concat(pairs) : [];
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
        [w.exact].concat(w.alts || [], w.parts || []).forEach(function (t) { ids[chunkOf(t, bounds)] = true; });
        if (!w.prefix) return;
        var lo = chunkOf(w.text, bounds), hi = lo;
        while (hi + 1 < bounds.length && bounds[hi + 1].lastIndexOf(w.text, 0) === 0) hi++;
        if (hi - lo + 1 > MAX_PREFIX_CHUNKS) { w.prefix = false; w.broad = true; broad.push(w.text); return; }
        for (var c = lo; c <= hi; c++) ids[c] = true;
      });
      return { chunks: Object.keys(ids).map(Number).sort(function (a, b) { return a - b; }), broad: broad };
    }

    /* A chunk file registers its terms packed (sessite/search/item.py ``packed``): they are
       inflated as they arrive; ``ready`` waits for the ones a query needs. */
    function addChunk(id, entries) {
      if (typeof entries !== "string") { chunks[id] = entries; return; }
      inflating[id] = inflate(entries).then(function (terms) { chunks[id] = terms; delete inflating[id]; });
    }
    function hasChunk(id) { return id in chunks || id in inflating; }
    function ready(ids) { return Promise.all(ids.map(function (id) { return inflating[id]; })); }

    /* A serialized lunr index holding exactly the terms of these chunks. Each
       term keeps its global lunr.py weights, and a query's score only reads
       the field-vector entries of the query's own terms, so scores equal the
       monolithic index's. */
    function serialize(ids, fields, words) {
      var entries = [], keep = words ? wantedBy(words) : null;
      ids.forEach(function (id) {
        var chunk = chunks[id];
        if (!chunk) throw new Error("search chunk " + id + " is not loaded");
        for (var i = 0; i < chunk.length; i++) {
          // Only terms some word can match: others would not change any score.
          if (!keep || keep(chunk[i][0])) entries.push(chunk[i]);
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
          keep = wantedBy(words);
          entries = entries.filter(function (e) { return keep(e[0]); });
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

    /* Does an index term match a word as a whole: its own term, another spelling, or by prefix? */
    function matchesWord(term, w) {
      return term === w.exact || (w.alts !== undefined && w.alts.indexOf(term) >= 0) || (w.prefix && term.lastIndexOf(w.text, 0) === 0);
    }

    function isPart(term, w) { return w.parts !== undefined && w.parts.indexOf(term) >= 0; }

    /* Any term a word's clauses look up: whole-word terms and an identifier's parts. */
    function wanted(term, w) { return matchesWord(term, w) || isPart(term, w); }

    /* wanted() for any of these words, as one test (it runs on every term of a chunk). */
    function wantedBy(words) {
      var exact = Object.create(null), prefixes = [];
      words.forEach(function (w) {
        [w.exact].concat(w.alts || [], w.parts || []).forEach(function (t) { exact[t] = true; });
        if (w.prefix) prefixes.push(w.text);
      });
      return function (term) {
        if (exact[term] === true) return true;
        for (var k = 0; k < prefixes.length; k++) if (term.lastIndexOf(prefixes[k], 0) === 0) return true;
        return false;
      };
    }

    /* How a term matches each word: its level (EXACT, SPELLING, PREFIX or 0) and its part bit
       (1 << the part's number, or 0). */
    function describe(term, words) {
      var levels = [], parts = [];
      for (var i = 0; i < words.length; i++) {
        var w = words[i];
        var level = 0;
        if (w.avoid) { levels.push(0); parts.push(0); continue; } // read for the phrase check only
        if (term === w.exact) level = EXACT;
        else if (w.alts !== undefined && w.alts.indexOf(term) >= 0) level = SPELLING;
        else if (w.prefix && term.lastIndexOf(w.text, 0) === 0) level = PREFIX;
        levels.push(level);
        parts.push(isPart(term, w) ? 1 << w.parts.indexOf(term) : 0);
      }
      return { levels: levels, parts: parts };
    }

    /* Each word's level in one result: that of its best term, APART when an identifier's
       parts are all there, 0 when it did not match. */
    function levelsOf(terms, described, words) {
      var levels = [];
      for (var i = 0; i < words.length; i++) {
        var best = 0, parts = 0, w = words[i];
        for (var t = 0; t < terms.length; t++) {
          var d = described(terms[t]);
          if (d.levels[i] > best) best = d.levels[i];
          parts |= d.parts[i];
        }
        if (!best && w.parts !== undefined && parts === (1 << w.parts.length) - 1) best = APART;
        levels.push(best);
      }
      return levels;
    }

    /* The events a result shows. The first, where it opens: the event where its words' shown
       terms weigh most (a word, or each part of an identifier matched apart, counts once, by
       its best term there), a real event before the session header (0), the earliest of
       equals. Then up to MORE_EVENTS events for words the first one lacks (a query's words
       said in different events), each with the keys it adds. Events per term come from the
       postings' side table; keysOf[t] lists what term t shows (keyOf: a word, or a part). */
    function pickEvents(table, doc, terms, weights, keysOf) {
      var evs = [], rows = []; // rows[n]: [key, weight, key, weight, ...] of event evs[n]
      for (var t = 0; t < terms.length; t++) {
        var side = table[terms[t]];
        if (!side) continue;
        var at = postingOf(side, doc);
        if (at < 0) continue;
        var entry = side.entry, e = entry[5][at], c = 6, keys = keysOf[t];
        for (;;) {
          var n = evs.indexOf(e);
          if (n < 0) { n = evs.length; evs.push(e); rows.push([]); }
          for (var k = 0; k < keys.length; k++) rows[n].push(keys[k], weights[t]);
          if (c >= entry.length || !(entry[c][at] > 0)) break;
          e += entry[c++][at];
        }
      }
      var picked = [], have = [];
      while (picked.length <= MORE_EVENTS) {
        var best = -1, bestScore = 0, bestKeys = null;
        for (var v = 0; v < evs.length; v++) {
          var row = rows[v], seen = [], score = [], sum = 0;
          for (var i = 0; i < row.length; i += 2) {
            var key = row[i];
            if (have.indexOf(key) >= 0) continue;
            var s = seen.indexOf(key);
            if (s < 0) { seen.push(key); score.push(row[i + 1]); } else if (row[i + 1] > score[s]) score[s] = row[i + 1];
          }
          for (i = 0; i < score.length; i++) sum += score[i];
          var ev = evs[v];
          if (sum > bestScore || (sum === bestScore && sum > 0 && ev !== 0 && (best === 0 || ev < best))) { best = ev; bestScore = sum; bestKeys = seen; }
        }
        if (best < 0) break;
        picked.push({ ev: best, keys: bestKeys });
        Array.prototype.push.apply(have, bestKeys);
      }
      return picked.length ? picked : [{ ev: 0, keys: [] }];
    }

    /* What a term shows of a query: word i whole, or part p of word i matched apart. */
    function keyOf(i, part) { return part === undefined ? i * 32 : i * 32 + 1 + part; }

    /* A term's BM25 weight in one session (its title's and its body's, as lunr.py weighed them). */
    function weightIn(index, term, doc, fields) {
      var posting = index.invertedIndex[term];
      if (!posting) return 0;
      var at = posting._index, sum = 0;
      for (var f = 0; f < fields.length; f++) {
        var vector = index.fieldVectors[fields[f] + "/" + doc];
        if (!vector) continue;
        var pos = vector.positionForIndex(at);
        if (vector.elements[pos] === at) sum += vector.elements[pos + 1];
      }
      return sum;
    }

    /* Rank with lunr's postings, group and score the results, pick each result's event.

       Every session holding at least one of the query's words (not only a filler) is a
       result. Results are grouped: every word as a whole first (``match`` "whole"), then
       every word but an identifier only through its parts apart ("apart"), then some of the
       words ("partial"); fillers ("asked", "session") never decide a group. Within the first
       two, the sum of the words' levels (exact, another spelling, prefix) ranks first; then,
       and in the last group alone, the score: per word, the BM25 weight of its best term in
       the session (lunr.py's, length-normalised: a session of a million characters holding
       every word does not outweigh a short one that is about them), times SHARE of how it
       matched, times FILLER_SHARE for a filler and PAIR_SHARE for a two-word identifier
       guess. Each result says which terms to mark (``terms``, with ``weights``: the level they
       matched at), for each term the words (or parts) it shows (``words``: keyOf numbers, for
       the snippet), and the events to show besides ``ev`` (``also``: [{ev, keys}]). */
    function search(index, words) {
      if (!words.some(function (w) { return !w.exclude && !w.avoid; })) return [];
      var hits = index.query(function (q) {
        words.forEach(function (w) {
          if (w.avoid) return;
          if (w.exclude) { q.term(w.exact, { usePipeline: false, presence: lunr.Query.presence.PROHIBITED }); return; }
          q.term(w.exact, { usePipeline: false, boost: EXACT_BOOST });
          (w.alts || []).forEach(function (a) { q.term(a, { usePipeline: false, boost: EXACT_BOOST }); });
          if (w.prefix) q.term(w.text, { usePipeline: false, boost: PREFIX_BOOST, wildcard: lunr.Query.wildcard.TRAILING });
          (w.parts || []).forEach(function (p) { q.term(p, { usePipeline: false, boost: PART_BOOST }); });
        });
      });
      var cache = Object.create(null), fields = index.fields;
      function described(term) { return cache[term] || (cache[term] = describe(term, words)); }
      var out = [], table = index.sessiteEvents || null;
      for (var h = 0; h < hits.length; h++) {
        var hit = hits[h], metadata = hit.matchData.metadata, matched = Object.keys(metadata);
        var doc = Number(hit.ref);
        var levels = levelsOf(matched, described, words), tier = 0, group = WHOLE, content = false, lacks = false;
        for (var i = 0; i < words.length; i++) {
          var w = words[i];
          if (w.optional || w.exclude || w.avoid) continue;
          if (w.phrase && !levels[i]) lacks = true;
          if (levels[i] && !w.filler) content = true;
          if (w.filler) continue;
          if (!levels[i]) group = PARTIAL;
          else if (levels[i] === APART && group === WHOLE) group = APART_ONLY;
          tier += levels[i];
        }
        if (!content || lacks) continue; // nothing but fillers, or a quoted phrase's word missing
        // Per word, the weight of its best term here.
        var best = [];
        for (i = 0; i < words.length; i++) best.push(0);
        for (var t = 0; t < matched.length; t++) {
          var d = described(matched[t]), weight = -1;
          for (i = 0; i < words.length; i++) {
            var share = words[i].exclude ? 0 : d.levels[i] ? SHARE[d.levels[i]] : d.parts[i] && levels[i] === APART ? SHARE[APART] : 0;
            if (!share) continue;
            if (weight < 0) weight = weightIn(index, matched[t], doc, fields);
            if (weight * share > best[i]) best[i] = weight * share;
          }
        }
        var score = 0;
        for (i = 0; i < words.length; i++) score += best[i] * (words[i].optional ? PAIR_SHARE : words[i].filler ? FILLER_SHARE : 1);
        out.push({
          ref: doc, score: score, group: group, match: MATCHES[group], whole: group === WHOLE,
          tier: group === PARTIAL ? 0 : tier, key: Math.round(score * 1e8), levels: levels, matched: matched
        });
      }
      // Scores are sums whose order depends on term numbering: compare them rounded,
      // then by session number, so equal scores always come out in one order.
      out.sort(function (a, b) { return a.group - b.group || b.tier - a.tier || b.key - a.key || a.ref - b.ref; });
      var partials = 0;
      out = out.filter(function (r) { return r.group !== PARTIAL || ++partials <= MAX_PARTIAL; });
      var chained = words.some(function (w) { return w.chain; });
      out.forEach(function (r) {
        explain(r, words, described, table);
        if (chained) r.check = phraseEvents(table, r.ref, words);
      });
      return out;
    }

    /* The events of a session (up to three per term, from the postings' side table) in which
       the words of a phrase of several words occur, and its header (0), ascending: where the
       phrase check reads the text. */
    function phraseEvents(table, doc, words) {
      var evs = [0];
      words.forEach(function (w) {
        if (!w.chain || !table) return;
        var side = table[w.exact], at = side ? postingOf(side, doc) : -1;
        if (at < 0) return;
        var entry = side.entry, e = entry[5][at], c = 6;
        for (;;) {
          if (evs.indexOf(e) < 0) evs.push(e);
          if (c >= entry.length || !(entry[c][at] > 0)) break;
          e += entry[c++][at];
        }
      });
      return evs.sort(function (a, b) { return a - b; });
    }

    /* What a result shows: the terms that made each word match and the events that hold them. */
    function explain(r, words, described, table) {
      var levels = r.levels, matched = r.matched, i, t;
      delete r.levels;
      delete r.matched;
      // The terms that made each word match, at the level they matched: what the snippet marks.
      // A word matched as itself (or another spelling) shows no prefix expansions: the
      // tokens that hold it hold its term anyway, and a common word has hundreds of them.
      var terms = [], weights = [], wordsOf = [];
      for (t = 0; t < matched.length; t++) {
        var dt = described(matched[t]), shown = 0, of = [];
        for (i = 0; i < words.length; i++) {
          var level = levels[i], mine = dt.levels[i];
          var shows = level >= SPELLING ? mine >= SPELLING : level === PREFIX ? mine === PREFIX : level === APART && dt.parts[i] !== 0;
          if (!shows) continue;
          of.push(level === APART ? keyOf(i, words[i].parts.indexOf(matched[t])) : keyOf(i)); // each part counts
          if (words[i].joins) of.push(keyOf(words[i].joins[0]), keyOf(words[i].joins[1]));
          shown = Math.max(shown, level === APART ? APART : mine);
        }
        if (!of.length) continue;
        terms.push(matched[t]); weights.push(shown); wordsOf.push(of);
      }
      var picked = table ? pickEvents(table, r.ref, terms, weights, wordsOf) : [{ ev: 0, keys: [] }];
      r.ev = picked[0].ev;
      r.also = picked.slice(1);
      r.terms = terms;
      r.weights = weights;
      r.words = wordsOf;
    }

    /* Edit distance of two short strings (a query word and an index term). */
    function distance(a, b) {
      var row = [], i, j;
      for (j = 0; j <= b.length; j++) row.push(j);
      for (i = 1; i <= a.length; i++) {
        var diagonal = row[0];
        row[0] = i;
        for (j = 1; j <= b.length; j++) {
          var next = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a.charAt(i - 1) === b.charAt(j - 1) ? 0 : 1));
          diagonal = row[j];
          row[j] = next;
        }
      }
      return row[b.length];
    }

    /* For "no results": per sought word the index lacks, up to NEAREST index terms of the loaded
       chunks within two edits of it (the closest, then the most used), as [{word, terms}]. */
    function nearest(words, ids) {
      var out = [];
      words.forEach(function (w) {
        if (w.exclude || w.optional || w.avoid) return;
        var found = [], known = false;
        ids.forEach(function (id) {
          (chunks[id] || []).forEach(function (entry) {
            var term = entry[0];
            if (matchesWord(term, w)) known = true;
            if (term === w.exact || Math.abs(term.length - w.exact.length) > MAX_EDITS) return;
            var d = distance(term, w.exact);
            if (d <= MAX_EDITS) found.push({ term: term, d: d, n: (entry[1] || []).length + (entry[3] || []).length });
          });
        });
        found.sort(function (a, b) { return a.d - b.d || b.n - a.n || (a.term < b.term ? -1 : 1); });
        if (found.length && !known) out.push({ word: w.text, terms: found.slice(0, NEAREST).map(function (f) { return f.term; }) });
      });
      return out;
    }

    /* Results for a query whose chunks are loaded, and the words matched as whole words only;
       with no result, the index terms nearest its words. */
    function run(words, ids, fields) {
      var results = !words.length || !ids.length ? [] : search(buildIndex(ids, fields, words), words);
      var found = { results: results, broad: words.filter(function (w) { return w.broad; }).map(function (w) { return w.text; }) };
      if (!results.length && words.length) found.nearest = nearest(words, ids);
      return found;
    }

    return {
      lunr: lunr,
      stem: stem,
      isStopWord: isStopWord,
      termsFor: termsFor,
      tokens: tokens,
      parseQuery: parseQuery,
      syntax: syntax,
      filterTest: filterTest,
      plan: plan,
      addChunk: addChunk,
      hasChunk: hasChunk,
      ready: ready,
      serialize: serialize,
      buildIndex: buildIndex,
      search: search,
      run: run,
      nearest: nearest,
      finish: finish,
      rawTokens: rawTokens,
      matchesWord: matchesWord,
      wanted: wanted
    };
  }

  /* Names of a list that a typed filter value means: the same name (any case), else those containing it. */
  function named(names, value) {
    var low = value.toLowerCase(), same = [], holding = [];
    names.forEach(function (name, n) {
      var l = String(name).toLowerCase();
      if (l === low) same.push(n); else if (l.indexOf(low) >= 0) holding.push(n);
    });
    return same.length ? same : holding;
  }

  /* A typed filter (agent:codex, tool:Bash, after:2026-03-01) as a test of a session number, given
     search/meta.js's data and search/facts.js's (null when it did not load: nothing passes unchecked).
     sessite/search/query.py applies the same filters for agents. */
  function filterTest(f, meta, facts) {
    var value = f.value;
    if (f.key === "agent" || f.key === "project") {
      var wanted = named(f.key === "agent" ? meta.agents : meta.projects, value), slot = f.key === "agent" ? 0 : 1;
      return function (ref) { return wanted.indexOf(meta.docs[2 * ref + slot]) >= 0; };
    }
    if (!facts) return function () { return false; };
    if (f.key === "model" || f.key === "tool") {
      var names = named(f.key === "model" ? facts.models : facts.tools, value), lists = f.key === "model" ? facts.m : facts.t;
      return function (ref) { return (lists[ref] || []).some(function (n) { return names.indexOf(n) >= 0; }); };
    }
    // after:/before: a day, a month or a year, compared with the session's start day
    var day = /^\d{4}(-\d{2}){0,2}$/.test(value) ? value : "";
    return function (ref) {
      var start = facts.days[ref] || "";
      if (!day || !start) return false;
      return f.key === "after" ? start.slice(0, day.length) >= day : start.slice(0, day.length) <= day;
    };
  }

  return { create: create, inflateJson: inflateJson, patchTokenSet: patchTokenSet, tokenParts: tokenParts, rawTokens: rawTokens, filterTest: filterTest };
});
