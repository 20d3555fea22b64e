/* sessite search snippets: the text a result shows, cut where its words are.

   A result's event comes from the snippet files as [anchor, label, head,
   page?, excerpts?]: the head is the start of the event's text, excerpts are
   windows further down a long event around words the head does not show
   (sessite/search/excerpts.py). The snippet is the window of that text that
   shows most of the query's words, each by its best match (an exact
   identifier over another spelling, a prefix match, an identifier's parts
   apart), plus up to two short windows for words the first one misses, as
   [text, isMatch] pieces: the page turns them into text nodes and <mark>s,
   never markup. No DOM here. */
(function (root, factory) {
  "use strict";
  var snippets = factory();
  if (typeof module === "object" && module.exports) module.exports = snippets;
  else root.SessiteSearchSnippet = snippets;
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var TOKEN = /[\p{L}\p{N}_]+/gu; // as search-core.js
  var WIDTH = 200; // characters of the main window
  var EXTRA_WIDTH = 120; // ... and of each window for words it misses
  var EXTRAS = 2;
  var CANDIDATES = 400; // windows tried per event at most

  function create(core) {
    /* term -> {w: weight, of: the query words it shows}, from a result's terms, weights and
       words (weight 1 and a word of its own per term when they are not given). */
    function wantedOf(terms, weights, words) {
      var want = Object.create(null);
      terms.forEach(function (t, i) {
        want[t] = { w: weights && weights[i] ? weights[i] : 1, of: words && words[i] ? words[i] : ["t" + i] };
      });
      return want;
    }

    /* Every token of text that gives a wanted term: {s, e, t: the heaviest such term, w: its weight}. */
    function hitsIn(text, want) {
      var re = new RegExp(TOKEN.source, "gu"), m, out = [];
      while ((m = re.exec(text)) !== null) {
        var terms = core.termsFor(m[0].normalize("NFC")), best = null;
        for (var i = 0; i < terms.length; i++) {
          var w = want[terms[i]];
          if (w && (!best || w.w > best.w)) best = w;
        }
        if (best) out.push({ s: m.index, e: m.index + m[0].length, w: best.w, of: best.of });
      }
      return out;
    }

    /* A window of about width characters of text showing hit k a little after its start,
       cut at spaces. Its value: per query word not yet ``covered``, the weight of the best
       hit showing it. */
    function windowAt(segment, k, width, covered) {
      var text = segment.text, hits = segment.hits, anchor = hits[k].s;
      var start = Math.max(0, anchor - Math.floor(width / 4));
      if (start > 0) {
        var space = text.indexOf(" ", start);
        start = space >= 0 && space < anchor ? space + 1 : start;
      }
      var end = Math.min(text.length, start + width);
      if (end - start < width && start > 0) { // near the end: show more before the hit instead
        start = Math.max(0, end - width);
        var gap = start > 0 ? text.indexOf(" ", start) : -1;
        if (gap >= 0 && gap < anchor) start = gap + 1;
      }
      if (end < text.length) {
        var cut = text.lastIndexOf(" ", end);
        if (cut > Math.max(start + width / 2, hits[k].e)) end = cut;
      }
      var best = Object.create(null), shown = 0, i = k;
      while (i > 0 && hits[i - 1].s >= start) i--;
      for (; i < hits.length && hits[i].s < end; i++) {
        if (hits[i].e > end) break;
        shown++;
        hits[i].of.forEach(function (word) {
          if (!covered[word] && (best[word] || 0) < hits[i].w) best[word] = hits[i].w;
        });
      }
      var value = 0;
      for (var word in best) value += best[word];
      return { segment: segment, start: start, end: end, words: best, value: value, shown: shown };
    }

    /* The window over all segments that shows the most of the words not yet covered (null: none). */
    function bestWindow(segments, width, covered) {
      var best = null, tried = 0;
      for (var s = 0; s < segments.length; s++) {
        var hits = segments[s].hits;
        for (var k = 0; k < hits.length && tried < CANDIDATES; k++, tried++) {
          var w = windowAt(segments[s], k, width, covered);
          if (!best || w.value > best.value || (w.value === best.value && w.shown > best.shown)) best = w;
        }
      }
      return best && best.value > 0 ? best : null;
    }

    /* Pieces of one window: its text, the hits in it marked, "…" where the text goes on. */
    function piecesOf(win, pieces) {
      var text = win.segment.text, pos = win.start;
      if (win.start > 0 || win.segment.excerpt) pieces.push(["…", false]);
      win.segment.hits.forEach(function (h) {
        if (h.s < pos || h.e > win.end) return;
        if (h.s > pos) pieces.push([text.slice(pos, h.s), false]);
        pieces.push([text.slice(h.s, h.e), true]);
        pos = h.e;
      });
      if (win.end > pos) pieces.push([text.slice(pos, win.end), false]);
      if (win.end < text.length || win.segment.excerpt) pieces.push(["…", false]);
    }

    /* The snippet of a result: {pieces, matched, words (the query words it shows)}. */
    function snippet(event, terms, weights, words) {
      var want = wantedOf(terms, weights, words);
      var head = String((event && event[2]) || "");
      var segments = [{ text: head, excerpt: false }];
      ((event && event[4]) || []).forEach(function (text) { segments.push({ text: String(text), excerpt: true }); });
      segments.forEach(function (segment) { segment.hits = hitsIn(segment.text, want); });
      var covered = Object.create(null);
      var first = bestWindow(segments, WIDTH, covered);
      if (!first) {
        var end = Math.min(head.length, WIDTH), cut = head.lastIndexOf(" ", end);
        if (end < head.length && cut > WIDTH / 2) end = cut;
        var plain = [[head.slice(0, end), false]];
        if (end < head.length) plain.push(["…", false]);
        return { pieces: plain, matched: false, words: [] };
      }
      var windows = [first];
      Object.assign(covered, first.words);
      for (var n = 0; n < EXTRAS; n++) {
        var more = bestWindow(segments, EXTRA_WIDTH, covered);
        if (!more) break;
        windows.push(more);
        Object.assign(covered, more.words);
      }
      windows.sort(function (a, b) { return segments.indexOf(a.segment) - segments.indexOf(b.segment) || a.start - b.start; });
      var merged = [];
      windows.forEach(function (win) {
        var before = merged[merged.length - 1];
        if (before && before.segment === win.segment && win.start <= before.end + 1) before.end = Math.max(before.end, win.end);
        else merged.push(win);
      });
      var pieces = [];
      merged.forEach(function (win) {
        var mine = [];
        piecesOf(win, mine);
        if (pieces.length && mine.length && mine[0][0] === "…" && pieces[pieces.length - 1][0] === "…") mine.shift();
        Array.prototype.push.apply(pieces, mine);
      });
      return { pieces: pieces, matched: true, words: Object.keys(covered) };
    }

    /* A whole short text (a title) as pieces, its wanted tokens marked. */
    function marked(text, terms) {
      text = String(text || "");
      var pieces = [], pos = 0;
      hitsIn(text, wantedOf(terms)).forEach(function (h) {
        if (h.s > pos) pieces.push([text.slice(pos, h.s), false]);
        pieces.push([text.slice(h.s, h.e), true]);
        pos = h.e;
      });
      if (pos < text.length) pieces.push([text.slice(pos), false]);
      return pieces;
    }

    return { snippet: snippet, marked: marked };
  }

  return { create: create };
});
