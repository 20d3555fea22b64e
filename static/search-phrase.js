/* sessite search phrases: quoted phrases of several words matched as phrases, their words
   side by side and in order.

   The index keeps no word positions (a next-word side file would add over half of it), so
   the results of a query with such a phrase are checked on text the browser can already
   load: the snippet files keep the start of every event a term's postings name and excerpts
   further down, and search-core.js's ``search`` says which of those events hold the phrase's
   words (a result's ``check``). A phrase found there is there; one not found may still be
   further down an event, so such a result is kept, below the ones found, and said to be so.
   Loaded by the results page only for a query with such a phrase: ordinary queries cost
   nothing more. sessite/search/ranking.py (check_phrases) is its Python twin. No DOM here. */
(function (root, factory) {
  "use strict";
  var phrases = factory();
  if (typeof module === "object" && module.exports) module.exports = phrases;
  else root.SessiteSearchPhrase = phrases;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  // Results checked at most: a check loads the snippet files of their phrase words' events.
  var MAX_CHECKED = 60;

  function create(core) {
    var list = [], dropped = 0; // run(): the query's phrases, the results left out for a -"phrase"

    /* A token as the check compares it: its index term (stemmed like the index), or, for what
       the index drops (a stop word, one letter), itself in lower case. */
    function tokenKey(raw) { return core.finish(raw) || raw.toLowerCase(); }

    /* The quoted phrases of a query that are several words (one word needs no check), as token
       keys: [{text, keys, avoid}] (avoid: a -"phrase"). */
    function phrases(query) {
      var parsed = core.syntax(query), out = [];
      function take(list, avoid) {
        list.forEach(function (text) {
          var raws = core.rawTokens(text);
          if (raws.length > 1) out.push({ text: text, keys: raws.map(tokenKey), avoid: avoid });
        });
      }
      take(parsed.phrases, false);
      take(parsed.exclude, true);
      return out;
    }

    /* Does a text hold these token keys one after the other? */
    function holds(text, keys) {
      var toks = core.rawTokens(text), n = keys.length;
      for (var i = 0; i + n <= toks.length; i++) {
        var k = 0;
        while (k < n && tokenKey(toks[i + k]) === keys[k]) k++;
        if (k === n) return true;
      }
      return false;
    }

    /* The snippet packs a check reads: [doc, pack] of the first MAX_CHECKED results' events. */
    function packsToLoad(results, pack) {
      var seen = Object.create(null), out = [];
      results.slice(0, MAX_CHECKED).forEach(function (r) {
        [r.ev].concat(r.check || []).forEach(function (ev) {
          var key = r.ref + "-" + Math.floor(ev / pack);
          if (!seen[key]) { seen[key] = true; out.push([r.ref, Math.floor(ev / pack)]); }
        });
      });
      return out;
    }

    /* The check, on results ranked by ``search`` (their ``check`` events) and the query's
       ``list`` of phrases: for the first MAX_CHECKED results, the text the snippet files keep of
       those events (the start of each, excerpts further down; ``entryOf(doc, event)``, undefined
       when it could not be loaded) is searched for each phrase. A result where a -"phrase" is
       found is dropped. With quoted phrases, each result says ``phrase``: true when every one is
       found (it then opens where the first is), false when one is not, null when it was not
       checked (beyond MAX_CHECKED, or its text did not load); the found ones come first, then the
       others in their order. ``checked``: whether its text was read. */
    function check(results, phraseList, entryOf) {
      var list = phraseList;
      if (!list.length) return results;
      var wanted = list.filter(function (p) { return !p.avoid; }).length, kept = [];
      results.forEach(function (r, n) {
        r.checked = n < MAX_CHECKED;
        if (!r.checked) { if (wanted) r.phrase = null; kept.push(r); return; }
        var found = list.map(function () { return -1; }), missing = false;
        var evs = [r.ev].concat((r.check || [0]).filter(function (ev) { return ev !== r.ev; }));
        evs.forEach(function (ev) {
          var entry = entryOf(r.ref, ev);
          if (entry === undefined) { missing = true; return; }
          if (!entry) return;
          var texts = [String(entry[2] || "")].concat(entry[4] || []);
          list.forEach(function (p, k) {
            if (found[k] < 0 && texts.some(function (t) { return holds(t, p.keys); })) found[k] = ev;
          });
        });
        if (list.some(function (p, k) { return p.avoid && found[k] >= 0; })) return; // holds an excluded phrase
        if (missing) r.checked = false;
        if (wanted) {
          var all = list.every(function (p, k) { return p.avoid || found[k] >= 0; });
          r.phrase = all ? true : r.checked ? false : null;
          var at = -1;
          list.forEach(function (p, k) { if (at < 0 && !p.avoid) at = found[k]; });
          if (all && at !== r.ev) {
            r.ev = at;
            r.also = r.also.filter(function (a) { return a.ev !== at; });
          }
        }
        kept.push(r);
      });
      if (!wanted) return kept;
      return kept.map(function (r, n) { return [r.phrase === true ? 0 : 1, n, r]; })
        .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
        .map(function (x) { return x[2]; });
    }

    function listed(items) {
      return items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
    }
    function quoted(list) { return listed(list.map(function (p) { return "“" + p.text + "”"; })); }
    function plural(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); }

    /* The results page's check: the query's phrases, the snippet packs the check reads (loaded
       with ``load(doc, pack)``, a promise of the pack; one that fails is "not checked"), then
       ``check``. A promise of the results kept, in their new order. */
    function run(query, results, pack, load) {
      list = phrases(query);
      var loaded = Object.create(null);
      return Promise.all(packsToLoad(results, pack).map(function (at) {
        return load(at[0], at[1]).then(function (data) { loaded[at[0] + "-" + at[1]] = data; }, function () { /* not checked */ });
      })).then(function () {
        var kept = check(results, list, function (doc, ev) {
          var data = loaded[doc + "-" + Math.floor(ev / pack)];
          if (!data || !data.ev) return undefined;
          var at = ev - data.i;
          return at >= 0 && at < data.ev.length ? data.ev[at] : undefined;
        });
        dropped = results.length - kept.length;
        return kept;
      });
    }

    /* What ``run`` found among the ``shown`` results, for the status line ("" when nothing to say). */
    function note(shown) {
      var wanted = list.filter(function (p) { return !p.avoid; }), avoided = list.filter(function (p) { return p.avoid; });
      var unchecked = shown.filter(function (r) { return !r.checked; }).length, out = [];
      if (wanted.length) {
        var yes = shown.filter(function (r) { return r.phrase === true; }).length;
        var no = shown.filter(function (r) { return r.phrase === false; }).length;
        out.push((yes ? plural(yes, "session") + (yes === 1 ? " has " : " have ") : "None has ") + quoted(wanted) +
          " word for word" + (yes && no + unchecked ? ", listed first" : ""));
        if (no) out.push(no + (no === 1 ? " has" : " have") + " the words, not side by side in the text the search can check");
      }
      if (avoided.length && dropped) out.push(dropped + " holding " + quoted(avoided) + " left out");
      if (unchecked) out.push(unchecked + " not checked for the phrase" + (list.length > 1 ? "s" : "") + " (only the first " + MAX_CHECKED + " are)");
      return out.length ? " " + out.join("; ") + "." : "";
    }

    /* The divider above the results whose phrase was not found side by side. */
    function divider() {
      return "Sessions with the words of " + quoted(list.filter(function (p) { return !p.avoid; })) + ", not found side by side:";
    }

    return { phrases: phrases, holds: holds, packsToLoad: packsToLoad, check: check, run: run, note: note, divider: divider, maxChecked: MAX_CHECKED };
  }

  return { create: create };
});
