/* sessite search UI: the header search box on every page, the results page
   (search.html), and highlighting of the matched words on a session page
   opened from a result. Session text only ever reaches the page through
   textContent and text nodes, never as markup.

   Index files are scripts that call window.sessiteSearch.*(), so they load
   from file:// as well as over HTTP. Over HTTP the lunr work runs in a Web
   Worker; where workers are unavailable (file://) it runs on the page,
   after yielding so the status can paint. */
(function () {
  "use strict";

  var PAGE = 20;
  var root = "";

  /* After every deferred script (lunr and search-core come after this one on
     the search page): DOMContentLoaded, or load, or now if already complete. */
  function ready(fn) {
    var done = false;
    function once() { if (!done) { done = true; fn(); } }
    if (document.readyState === "complete") once();
    else {
      document.addEventListener("DOMContentLoaded", once);
      window.addEventListener("load", once);
    }
  }

  function params() {
    try { return new URLSearchParams(location.search); } catch (e) { return { get: function () { return null; } }; }
  }

  var scripts = Object.create(null);
  function loadScript(src) {
    if (!scripts[src] && window.sessiteVault) { // an encrypted site (static/vault.js): decrypted on demand
      scripts[src] = window.sessiteVault.script(src).catch(function (err) { delete scripts[src]; throw err; });
    }
    if (!scripts[src]) {
      scripts[src] = new Promise(function (resolve, reject) {
        var el = document.createElement("script");
        el.src = src;
        el.async = true;
        el.onload = function () { resolve(); };
        el.onerror = function () { delete scripts[src]; reject(new Error("could not load " + src)); };
        document.head.appendChild(el);
      });
    }
    return scripts[src];
  }

  /* ---- registration target of the index files ---- */
  var registry = { meta: null, facts: null, frags: Object.create(null), chunkSink: null, pendingChunks: Object.create(null) };
  window.sessiteSearch = {
    meta: function (data) { registry.meta = data; },
    facts: function (data) { registry.facts = data; },
    chunk: function (id, entries) {
      if (registry.chunkSink) registry.chunkSink(id, entries); else registry.pendingChunks[id] = entries;
    },
    frag: function (doc, pack, data) { registry.frags[doc + "-" + pack] = data; }
  };

  /* ---- header box: CSP forbids form submission, so navigate instead ---- */
  function initHeaderBox() {
    var q = params().get("q") || "";
    document.querySelectorAll("form[data-site-search]").forEach(function (form) {
      var input = form.querySelector("input[type=search]");
      if (input && document.body.classList.contains("search-page")) input.value = q;
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var value = input ? input.value.trim() : "";
        location.href = root + "search.html" + (value ? "?q=" + encodeURIComponent(value) : "");
      });
    });
  }

  /* ---- the engine: worker over HTTP, page fallback elsewhere ---- */
  /* The search worker, started as soon as a query is known: it loads lunr and the core while
     the page loads the index's meta (over HTTP only: file:// cannot start workers). */
  function startWorker() {
    if (!/^https?:$/.test(location.protocol) || typeof Worker !== "function") return null;
    try {
      var worker = new Worker(root + "static/search-worker.js");
      // (an error before the engine takes it, its script not loading: the engine runs on the page)
      worker.onerror = function (ev) { if (ev && ev.preventDefault) ev.preventDefault(); worker.failed = true; };
      return worker;
    } catch (e) {
      return null;
    }
  }

  function Engine(core, meta, worker) {
    this.core = core;
    this.meta = meta;
    this.worker = null;
    this.pending = Object.create(null);
    this.nextId = 1;
    var self = this;
    registry.chunkSink = function (id, entries) { core.addChunk(id, entries); };
    Object.keys(registry.pendingChunks).forEach(function (id) { core.addChunk(Number(id), registry.pendingChunks[id]); });
    registry.pendingChunks = Object.create(null);
    this.sent = Object.create(null); // encrypted site: the chunks the worker holds (decrypted here, sent there)
    if (worker && worker.failed) worker.terminate();
    else if (worker) {
      try {
        this.worker = worker;
        this.worker.onmessage = function (ev) {
          var job = self.pending[ev.data.id];
          if (!job) return;
          delete self.pending[ev.data.id];
          if (ev.data.error) job.reject(new Error(ev.data.error));
          else job.resolve({ results: ev.data.results, broad: ev.data.broad, nearest: ev.data.nearest, runMs: ev.data.ms });
        };
        this.worker.onerror = function (ev) {
          if (ev && ev.preventDefault) ev.preventDefault();
          self.dropWorker();
        };
      } catch (e) {
        this.worker = null;
      }
    }
  }

  Engine.prototype.dropWorker = function () {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    var jobs = this.pending, self = this;
    this.pending = Object.create(null);
    Object.keys(jobs).forEach(function (id) { self.onPage(jobs[id].words, jobs[id].chunks).then(jobs[id].resolve, jobs[id].reject); });
  };

  Engine.prototype.onPage = function (words, chunks) {
    var core = this.core, fields = this.meta.fields;
    return Promise.all(chunks.map(function (id) {
      return core.hasChunk(id) ? null : loadScript(root + "search/t/" + id + ".js");
    })).then(function () {
      return core.ready(chunks);
    }).then(function () {
      return new Promise(function (resolve, reject) {
        setTimeout(function () {
          try {
            var t = Date.now(), found = core.run(words, chunks, fields);
            found.runMs = Date.now() - t;
            resolve(found);
          } catch (e) { reject(e); }
        }, 0);
      });
    });
  };

  /* On an encrypted site the worker has no key (and sealed files are no scripts it could import):
     the page decrypts the chunks the query needs (static/vault.js) and sends their arguments. */
  Engine.prototype.packed = function (chunks) {
    var vault = window.sessiteVault, sent = this.sent;
    if (!vault || !vault.data) return Promise.resolve([]);
    return Promise.all(chunks.filter(function (id) { return !sent[id]; }).map(function (id) {
      return vault.data(root + "search/t/" + id + ".js").then(function (got) {
        if (got.call !== "sessiteSearch.chunk") throw new Error("not a search chunk");
        sent[id] = true;
        return got.args;
      });
    }));
  };

  Engine.prototype.search = function (words, chunks) {
    if (!this.worker) return this.onPage(words, chunks);
    var self = this, id = this.nextId++;
    return this.packed(chunks).then(function (given) {
      return new Promise(function (resolve, reject) {
        self.pending[id] = { resolve: resolve, reject: reject, words: words, chunks: chunks };
        self.worker.postMessage({ id: id, words: words, chunks: chunks, given: given, fields: self.meta.fields, base: new URL(root || "./", location.href).href });
      });
    });
  };

  /* ---- results page ---- */
  function text(tag, cls, value) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (value != null) el.textContent = value;
    return el;
  }

  // A snippet pack comes as base64 of its deflated JSON (see packed in sessite/search/item.py).
  function inflate(data) {
    if (typeof data !== "string") return Promise.resolve(data);  // already inflated (a promise) or missing
    return SessiteSearchCore.inflateJson(data);
  }

  function loadFragment(doc, pack) {
    var key = doc + "-" + pack;
    var known = registry.frags[key];
    if (known) return (registry.frags[key] = Promise.resolve(inflate(known)));
    return loadScript(root + "search/f/" + Math.floor(doc / 1000) + "/" + key + ".js").then(function () {
      return (registry.frags[key] = inflate(registry.frags[key]));
    });
  }

  function initSearchPage() {
    var form = document.querySelector("form[data-search-form]");
    if (!form) return;
    var status = document.querySelector("[data-search-status]");
    var list = document.querySelector("[data-search-results]");
    var more = document.querySelector("[data-search-more]");
    var p = params();
    var query = (p.get("q") || "").trim();
    form.elements.q.value = query;
    ["agent", "project"].forEach(function (name) {
      var value = p.get(name);
      if (value && Array.prototype.some.call(form.elements[name].options, function (o) { return o.value === value; })) form.elements[name].value = value;
    });

    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      location.href = root + "search.html?" + urlParams(form.elements.q.value.trim());
    });

    function urlParams(q) {
      var parts = ["q=" + encodeURIComponent(q)];
      if (form.elements.agent.value) parts.push("agent=" + encodeURIComponent(form.elements.agent.value));
      if (form.elements.project.value) parts.push("project=" + encodeURIComponent(form.elements.project.value));
      return parts.join("&");
    }

    function say(message, state) {
      status.textContent = message;
      status.dataset.state = state || "";
    }

    if (!query) return;
    if (typeof lunr === "undefined" || typeof SessiteSearchCore === "undefined" || typeof SessiteSearchSnippet === "undefined") {
      say("Search could not start: its scripts did not load.", "error");
      return;
    }
    say("Searching for “" + query + "”…", "busy");
    var core = SessiteSearchCore.create(lunr);
    var snippets = SessiteSearchSnippet.create(core);
    var words = core.parseQuery(query);
    var parsed = core.syntax(query);
    var chained = words.some(function (w) { return w.chain; }), phraser = null; // a phrase of several words
    var results = [], broad = [], nearest = [], shown = 0, renderToken = 0, meta = null;
    showChips();
    var worker = words.length ? startWorker() : null;

    loadScript(root + "search/meta.js").then(function () {
      meta = registry.meta;
      if (!meta) throw new Error("the search index is missing");
      if (!words.length) return [];
      var plan = core.plan(words, meta.bounds);
      var engine = new Engine(core, meta, worker);
      var started = Date.now();
      return engine.search(words, plan.chunks).then(function (found) {
        return Promise.resolve(checkPhrases(found.results)).then(function (checked) {
          found.results = checked;
          return found;
        });
      }).then(function (found) {
        status.dataset.engine = engine.worker ? "worker" : "page";
        status.dataset.ms = String(Date.now() - started); // chunk loading (and the phrase check) included
        status.dataset.runMs = String(found.runMs); // index rebuild + lunr query + ranking, data loaded
        results = found.results;
        nearest = found.nearest || [];
        broad = plan.broad.concat(found.broad.filter(function (w) { return plan.broad.indexOf(w) < 0; }));
      });
    }).then(function () {
      // The start days, models and tools of the sessions: loaded only when the query filters by them.
      var needsFacts = parsed.filters.some(function (f) { return ["model", "tool", "after", "before"].indexOf(f.key) >= 0; });
      return needsFacts ? loadScript(root + "search/facts.js") : null;
    }).then(function () {
      form.elements.agent.addEventListener("change", refilter);
      form.elements.project.addEventListener("change", refilter);
      refilter();
    }).catch(function (err) {
      say("Search failed: " + (err && err.message ? err.message : err), "error");
    });

    /* Quoted phrases of several words checked (static/search-phrase.js, loaded for them only). */
    function checkPhrases(found) {
      if (!chained) return found;
      return loadScript(root + "static/search-phrase.js").then(function () {
        phraser = SessiteSearchPhrase.create(core);
        return phraser.run(query, found, meta.pack, loadFragment);
      });
    }

    function filtered() {
      var agent = form.elements.agent.value, project = form.elements.project.value;
      var typed = parsed.filters.map(function (f) { return core.filterTest(f, meta, registry.facts); });
      if (!agent && !project && !typed.length) return results;
      var a = agent ? meta.agents.indexOf(agent) : -1, pr = project ? meta.projects.indexOf(project) : -1;
      return results.filter(function (r) {
        return (!agent || meta.docs[2 * r.ref] === a) && (!project || meta.docs[2 * r.ref + 1] === pr) &&
          typed.every(function (keep) { return keep(r.ref); });
      });
    }

    /* The query without one of its parts (a chip's remove button, "search without"), or with
       ``instead`` in place of one of its words (a suggested index term). */
    function queryWithout(kind, index, instead) {
      var out = [];
      parsed.text.forEach(function (t, n) { if (kind !== "text" || n !== index) out.push(t); else if (instead) out.push(instead); });
      parsed.phrases.forEach(function (t, n) { if (kind !== "phrase" || n !== index) out.push("\"" + t + "\""); });
      parsed.exclude.forEach(function (t, n) { if (kind !== "exclude" || n !== index) out.push("-" + (/\s/.test(t) ? "\"" + t + "\"" : t)); });
      parsed.filters.forEach(function (f, n) { if (kind !== "filter" || n !== index) out.push(f.raw); });
      return out.join(" ");
    }

    function searchHref(q) { return root + "search.html?" + urlParams(q); }

    /* Filters, phrases and exclusions of the query as chips, each with a button that removes it. */
    function showChips() {
      var box = document.querySelector("[data-search-chips]");
      if (!box) return;
      box.textContent = "";
      var chips = [];
      parsed.filters.forEach(function (f, n) { chips.push({ kind: "filter", n: n, label: f.key + ": " + f.value, type: f.key }); });
      parsed.phrases.forEach(function (t, n) { chips.push({ kind: "phrase", n: n, label: "“" + t + "”", type: "phrase" }); });
      parsed.exclude.forEach(function (t, n) { chips.push({ kind: "exclude", n: n, label: "not " + t, type: "exclude" }); });
      chips.forEach(function (c) {
        var li = text("li", "search-chip");
        li.dataset.chip = c.type;
        li.appendChild(text("span", null, c.label));
        var remove = text("a", "search-chip-remove", "×");
        remove.href = searchHref(queryWithout(c.kind, c.n));
        remove.setAttribute("aria-label", "Remove " + c.label);
        remove.title = "Remove " + c.label;
        li.appendChild(remove);
        box.appendChild(li);
      });
      box.hidden = !chips.length;
    }

    /* "No results": the index's nearest words, and the query without each of its words. */
    function suggest() {
      var box = text("li", "search-suggest");
      var any = false;
      nearest.forEach(function (n) {
        var line = text("p", null, "Not in the index: “" + n.word + "”. Nearest words it has: ");
        var at = -1;
        parsed.text.forEach(function (t, k) {
          if (at < 0 && SessiteSearchCore.rawTokens(t).some(function (r) { return r.toLowerCase() === n.word; })) at = k;
        });
        n.terms.forEach(function (term, i) {
          var a = text("a", null, term);
          a.href = searchHref(at >= 0 ? queryWithout("text", at, term) : term);
          if (i) line.appendChild(document.createTextNode(", "));
          line.appendChild(a);
        });
        box.appendChild(line);
        any = true;
      });
      var droppable = parsed.text.length + parsed.phrases.length + parsed.exclude.length + parsed.filters.length;
      if (droppable > 1) {
        var drop = text("p", null, "Search without: ");
        var first = true;
        function offer(kind, n, label) {
          var a = text("a", null, label);
          a.href = searchHref(queryWithout(kind, n));
          if (!first) drop.appendChild(document.createTextNode(", "));
          drop.appendChild(a);
          first = false;
        }
        parsed.text.forEach(function (t, n) { offer("text", n, "“" + t + "”"); });
        parsed.phrases.forEach(function (t, n) { offer("phrase", n, "“" + t + "”"); });
        parsed.exclude.forEach(function (t, n) { offer("exclude", n, "-" + t); });
        parsed.filters.forEach(function (f, n) { offer("filter", n, f.raw); });
        box.appendChild(drop);
        any = true;
      }
      if (any) list.appendChild(box);
    }

    function plural(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); }

    function count(list, match) { return list.filter(function (r) { return r.match === match; }).length; }

    function listed(items) {
      return items.length < 2 ? items.join("") : items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
    }

    /* "stream and queue apart": the parts of the query's identifiers. */
    function apartText() {
      var parts = [];
      words.forEach(function (w) { if (w.parts && !w.optional) Array.prototype.push.apply(parts, w.pieces); });
      return parts.length < 2 ? "its words apart" : listed(parts) + " apart";
    }

    /* "“stream_queue”": the query's identifiers, as typed. */
    function identifiers() {
      var raws = SessiteSearchCore.rawTokens(query);
      var names = raws.filter(function (raw) { return words.some(function (w) { return w.parts && !w.optional && w.text === raw.toLowerCase(); }); });
      return listed(names.map(function (n) { return "“" + n + "”"; }));
    }

    var current = [], dividerShown = false, partialShown = false, phraseShown = false;
    function refilter() {
      try { history.replaceState(null, "", "search.html?" + urlParams(query)); } catch (e) { /* file:// may refuse */ }
      current = filtered();
      list.textContent = "";
      shown = 0;
      dividerShown = false;
      partialShown = false;
      phraseShown = false;
      renderToken++;
      if (!words.length && (parsed.filters.length || parsed.exclude.length) && !parsed.text.length && !parsed.phrases.length) {
        say("Type a word to look for with these filters.", "empty");
      } else if (!words.length) {
        say("“" + query + "” has only very common words or single letters; try a more specific word.", "empty");
      } else if (!current.length) {
        var hidden = results.length - current.length;
        say("No results for “" + query + "”" + (hidden ? " with these filters (" + hidden + " without them)." : "."), "empty");
        suggest();
      } else {
        var note = current.length === results.length ? "" : " (" + (results.length - current.length) + " more without the filters)";
        var whole = count(current, "whole"), apart = count(current, "apart"), partial = count(current, "partial");
        var every = whole === 0 && apart + partial > 0 ? "No session matches every word of “" + query + "”"
          : plural(whole, "session") + (whole === 1 ? " matches" : " match") + (partial ? " every word of" : "") + " “" + query + "”";
        var more = [];
        if (apart) more.push(apart + " more only with " + apartText());
        if (partial) more.push((whole || apart ? partial + " more match" : plural(partial, "session") + (partial === 1 ? " matches" : " match")) + " some of the words");
        say(every + (more.length ? "; " + more.join("; ") : "") + note + "." + (phraser ? phraser.note(current) : ""), "done");
        if (broad.length) status.appendChild(document.createTextNode(" “" + broad.join("”, “") + "” matched as a whole word only: too many words start with it."));
      }
      renderMore();
    }

    function renderMore() {
      var token = renderToken, batch = current.slice(shown, shown + PAGE);
      shown += batch.length;
      more.hidden = true;
      var first = shown - batch.length;
      var items = batch.map(function (r, i) {
        if (r.phrase !== undefined && r.phrase !== true && !phraseShown) {
          phraseShown = true;
          if (first + i > 0) { // results from here on hold the phrase's words, not found side by side
            list.appendChild(text("li", "search-divider", phraser.divider())).dataset.divider = "phrase";
            dividerShown = partialShown = false; // the groups start again below it
          }
        }
        if (r.match === "apart" && !dividerShown && first + i > 0) {
          // Results from here on only hold an identifier's parts, not the identifier.
          list.appendChild(text("li", "search-divider", "Sessions with " + apartText() + ", not as " + identifiers() + ":"));
        }
        if (r.match === "partial" && !partialShown && first + i > 0) {
          // Results from here on lack some of the query's words.
          var divider = text("li", "search-divider", "Sessions with only some of the words:");
          divider.dataset.divider = "partial";
          list.appendChild(divider);
        }
        if (r.match !== "whole") dividerShown = true;
        if (r.match === "partial") partialShown = true;
        var li = text("li", "search-result");
        li.dataset.match = r.match;
        if (r.phrase !== undefined) li.dataset.phrase = r.phrase === true ? "yes" : r.phrase === false ? "no" : "unchecked";
        li.appendChild(text("span", "muted", "…"));
        list.appendChild(li);
        return { r: r, li: li };
      });
      Promise.all(items.map(function (item) {
        var evs = [item.r.ev].concat((item.r.also || []).map(function (a) { return a.ev; }));
        return Promise.all(evs.map(function (ev) { return loadFragment(item.r.ref, Math.floor(ev / meta.pack)); })).then(function (frags) {
          if (token === renderToken) fillResult(item.li, item.r, frags);
        }, function () {
          if (token === renderToken) item.li.textContent = "(this result's text could not be loaded)";
        });
      })).then(function () {
        if (token === renderToken) more.hidden = shown >= current.length;
      });
    }

    more.addEventListener("click", renderMore);

    /* The link to one event of a result's session, its words to mark there. */
    function eventHref(frag, event, r) {
      var anchor = event[0];
      var target = event[3] || frag.u; // event[3]: the part of a split session that holds this event
      var page = /^(?:sessions\/[^:?#]+|p\/[0-9a-f]+)\.html$/.test(target) ? target : "index.html"; // never a javascript: or foreign URL
      return root + page + "?hl=" + encodeURIComponent(r.terms.join(" ")) + (anchor ? "#" + encodeURIComponent(anchor) : "");
    }

    /* A result's terms (with weights and words) that show one of these word keys. */
    function termsShowing(r, keys) {
      var out = { terms: [], weights: [], words: [] };
      r.terms.forEach(function (t, i) {
        var of = r.words ? r.words[i] : [];
        if (!of.some(function (k) { return keys.indexOf(k) >= 0; })) return;
        out.terms.push(t); out.weights.push(r.weights[i]); out.words.push(of);
      });
      return out;
    }

    function fillResult(li, r, frags) {
      li.textContent = "";
      var frag = frags[0];
      var event = frag.ev[r.ev - frag.i] || frag.ev[0];
      var label = event[1];
      var href = eventHref(frag, event, r);
      var heading = text("div", "result-title");
      var link = text("a");
      appendPieces(link, snippets.marked(frag.t, r.terms));
      link.href = href;
      heading.appendChild(link);
      li.appendChild(heading);
      var facts = text("div", "result-meta");
      facts.appendChild(text("span", "agent", frag.a));
      if (frag.p) {
        var project = text("span", "result-project");
        appendPieces(project, snippets.marked(frag.p, r.terms)); // a match in the project's name shows there
        facts.appendChild(project);
      }
      if (frag.d) facts.appendChild(text("span", "result-date", frag.d.slice(0, 10)));
      facts.appendChild(text("span", "result-kind", label));
      li.appendChild(facts);
      var para = text("p", "snippet");
      appendPieces(para, snippets.snippet(event, r.terms, r.weights, r.words).pieces);
      li.appendChild(para);
      // Words the event lacks, from the events that have them (a query's words said apart).
      (r.also || []).forEach(function (also, i) {
        var other = frags[i + 1], ev = other && other.ev[also.ev - other.i];
        if (!ev) return;
        var shown = termsShowing(r, also.keys), cut = snippets.snippet(ev, shown.terms, shown.weights, shown.words);
        if (!cut.matched) return;
        var more = text("p", "snippet snippet-also");
        var to = text("a", "snippet-kind", ev[1]);
        to.href = eventHref(other, ev, r);
        more.appendChild(to);
        more.appendChild(document.createTextNode(" "));
        appendPieces(more, cut.pieces);
        li.appendChild(more);
      });
    }

    /* [text, isMatch] pieces as text nodes and <mark>s: session text never becomes markup. */
    function appendPieces(parent, pieces) {
      pieces.forEach(function (piece) {
        parent.appendChild(piece[1] ? text("mark", null, piece[0]) : document.createTextNode(piece[0]));
      });
    }
  }

  /* ---- session page opened from a result: mark the words in the target event ---- */
  function highlight() {
    var hl = (params().get("hl") || "").trim();
    if (!hl || !document.body.classList.contains("session-page")) return;
    var terms = hl.toLowerCase().split(/\s+/).filter(Boolean);
    var id = location.hash ? decodeURIComponent(location.hash.slice(1)) : "";
    var target = id ? document.getElementById(id) : document.querySelector(".session-header");
    if (!target) return;
    var apply = function () {
      var core = window.SessiteSearchCore;
      var tokenRe = /[\p{L}\p{N}_]+/gu;
      function hit(raw) {
        var pieces = core.tokenParts(raw);
        for (var i = 0; i < pieces.length; i++) {
          var low = pieces[i].toLowerCase();
          for (var j = 0; j < terms.length; j++) {
            var t = terms[j];
            if (low.lastIndexOf(t, 0) === 0) return true;
            // stems ending in i come from words ending in y (happy -> happi)
            if (t.length > 2 && t.charAt(t.length - 1) === "i" && low.lastIndexOf(t.slice(0, -1) + "y", 0) === 0) return true;
          }
        }
        return false;
      }
      var walker = document.createTreeWalker(target, NodeFilter.SHOW_TEXT, null);
      var nodes = [], node;
      while ((node = walker.nextNode())) nodes.push(node);
      var first = null;
      nodes.forEach(function (n) {
        var value = n.nodeValue, m, last = 0, frag = null;
        tokenRe.lastIndex = 0;
        while ((m = tokenRe.exec(value)) !== null) {
          if (!hit(m[0])) continue;
          frag = frag || document.createDocumentFragment();
          if (m.index > last) frag.appendChild(document.createTextNode(value.slice(last, m.index)));
          var mark = document.createElement("mark");
          mark.className = "search-hit";
          mark.textContent = m[0];
          frag.appendChild(mark);
          if (!first) first = mark;
          last = m.index + m[0].length;
        }
        if (!frag) return;
        if (last < value.length) frag.appendChild(document.createTextNode(value.slice(last)));
        n.parentNode.replaceChild(frag, n);
      });
      target.classList.add("search-target");
      if (first) {
        for (var el = first; el && el !== document.body; el = el.parentElement) {
          if (el.tagName === "DETAILS") el.open = true;
          if (el.hasAttribute && el.hasAttribute("data-collapsible") && el.classList.contains("collapsed")) {
            var button = el.querySelector(":scope > [data-expand]");
            if (button) button.click(); else el.classList.remove("collapsed");
          }
        }
        first.scrollIntoView({ block: "center" });
      }
    };
    if (window.SessiteSearchCore) apply();
    else loadScript(root + "static/search-core.js").then(apply, function () { /* no highlight */ });
  }

  ready(function () {
    root = document.body.dataset.root || "";
    initHeaderBox();
    initSearchPage();
    highlight();
  });
})();
