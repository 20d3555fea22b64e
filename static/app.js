/* sessite page behaviour: collapsible output, expand/collapse all, a session's kind filters, outline and
   neighbours, index sort and filter.
   Everything works without this script; it only adds conveniences. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function ready(fn) {
    if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn);
  }

  function setCollapsed(box, collapsed) {
    box.classList.toggle("collapsed", collapsed);
    var button = box.querySelector(":scope > [data-expand]");
    if (button) {
      if (!button.dataset.label) button.dataset.label = button.textContent;
      button.textContent = collapsed ? button.dataset.label : "Collapse";
      button.setAttribute("aria-expanded", collapsed ? "false" : "true");
    }
  }

  function initCollapsibles() {
    document.querySelectorAll("[data-collapsible]").forEach(function (box) {
      var button = box.querySelector(":scope > [data-expand]");
      if (!button) return;
      button.hidden = false;
      button.setAttribute("aria-expanded", "false");
      button.addEventListener("click", function () { setCollapsed(box, !box.classList.contains("collapsed")); });
    });
    var toolbar = document.querySelector("[data-toolbar]");
    if (!toolbar) return;
    toolbar.hidden = false;
    toolbar.addEventListener("click", function (ev) {
      var action = ev.target && ev.target.dataset ? ev.target.dataset.action : null;
      if (!action) return;
      var open = action === "expand-all";
      document.querySelectorAll("[data-collapsible]").forEach(function (box) { setCollapsed(box, !open); });
      // Expand all opens every folded line (runs, calls, thoughts, sub-agents, replies); a call's raw
      // input and an event's metadata stay folded. Collapse all folds everything again.
      document.querySelectorAll("ol.timeline details").forEach(function (d) {
        if (open && (d.classList.contains("input") || d.classList.contains("meta"))) return;
        d.open = open;
      });
    });
  }

  /* ---- the session page: kind filters, find in folded lines, outline, neighbours ---- */

  var KINDS_STORE = "sessite.hiddenKinds";

  // Filters by kind (prompts, answers, thinking, tools, sub-agents, system), remembered across pages.
  // localStorage may be missing or refuse (file:// in some browsers, private modes): then they last a page.
  function storedKinds() {
    try { return JSON.parse(window.localStorage.getItem(KINDS_STORE) || "[]") || []; } catch (e) { return []; }
  }

  // The kinds of sessite/render/timeline.py (FILTERS): every line of the timeline has one f-<kind> class.
  var KINDS = [["prompt", "Prompts"], ["answer", "Answers"], ["thinking", "Thinking"], ["tool", "Tools"],
    ["subagent", "Sub-agents"], ["system", "System"]];

  function initKindFilters() {
    var toolbar = document.querySelector("[data-toolbar]");
    var article = document.querySelector("article.session");
    if (!toolbar || !article || !article.querySelector("ol.timeline")) return;
    var box = document.createElement("fieldset");
    box.className = "kind-filters";
    box.setAttribute("data-kind-filters", "");
    var legend = document.createElement("legend");
    legend.textContent = "Show";
    box.appendChild(legend);
    var inputs = KINDS.map(function (kind) {
      var label = document.createElement("label"), input = document.createElement("input");
      input.type = "checkbox";
      input.name = "kind";
      input.value = kind[0];
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + kind[1]));
      box.appendChild(label);
      return input;
    });
    toolbar.insertBefore(box, toolbar.firstChild);
    function apply(hidden) {
      inputs.forEach(function (input) {
        var off = hidden.indexOf(input.value) !== -1;
        input.checked = !off;
        article.classList.toggle("hide-" + input.value, off);
      });
    }
    apply(storedKinds());
    box.addEventListener("change", function () {
      var hidden = [];
      inputs.forEach(function (input) { if (!input.checked) hidden.push(input.value); });
      apply(hidden);
      try { window.localStorage.setItem(KINDS_STORE, JSON.stringify(hidden)); } catch (e) { /* kept for this page only */ }
    });
  }

  // Open whatever folds hide a node: its <details>, a collapsed long output.
  function reveal(node) {
    for (var el = node && node.nodeType === 1 ? node : node && node.parentElement; el && el !== document.body; el = el.parentElement) {
      if (el.tagName === "DETAILS" && !el.open) el.open = true;
      if (el.hasAttribute("data-collapsible") && el.classList.contains("collapsed")) setCollapsed(el, false);
    }
  }

  // The browser's find opens a closed <details> by itself (and fires "beforematch" on hidden="until-found");
  // a find that only selects the match (window.find, older browsers) is opened here.
  function initFind() {
    document.addEventListener("selectionchange", function () {
      var sel = window.getSelection && window.getSelection();
      if (!sel || sel.isCollapsed || !sel.anchorNode) return;
      var el = sel.anchorNode.nodeType === 1 ? sel.anchorNode : sel.anchorNode.parentElement;
      if (el && el.closest && el.closest("details:not([open]), [data-collapsible].collapsed")) reveal(el);
    });
    document.addEventListener("beforematch", function (ev) { reveal(ev.target); }, true);
  }

  // The outline of the user's prompts: open beside the timeline on wide screens, a menu on narrow
  // ones; marks the prompt the reader is in.
  function initOutline() {
    var nav = document.querySelector("[data-outline]");
    if (!nav) return;
    var box = nav.querySelector("details");
    var here = nav.querySelector("[data-outline-here]");
    var links = Array.prototype.slice.call(nav.querySelectorAll("ol a[href^='#']"));
    var wide = window.matchMedia ? window.matchMedia("(min-width: 64rem)") : { matches: true };
    box.open = wide.matches;
    if (wide.addEventListener) wide.addEventListener("change", function () { box.open = wide.matches; });
    nav.addEventListener("click", function (ev) {
      if (!wide.matches && ev.target.closest && ev.target.closest("a")) box.open = false;
    });
    var marks = [];
    links.forEach(function (a, i) {
      var el = document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)));
      if (el) marks.push({ el: el, link: a, n: i + 1 });
    });
    var current = null, queued = false;
    function update() {
      queued = false;
      var found = null;
      for (var i = 0; i < marks.length; i++) {
        if (marks[i].el.getBoundingClientRect().top > 120) break;
        found = marks[i];
      }
      if (found === current) return;
      if (current) current.link.removeAttribute("aria-current");
      current = found;
      if (here) here.textContent = current ? current.n + " of " + links.length : String(links.length);
      if (!current) return;
      current.link.setAttribute("aria-current", "location");
      if (box.open && wide.matches && nav.scrollHeight > nav.clientHeight) {
        var top = current.link.offsetTop - nav.offsetTop;
        if (top < nav.scrollTop || top > nav.scrollTop + nav.clientHeight - 40) nav.scrollTop = Math.max(0, top - nav.clientHeight / 3);
      }
    }
    window.addEventListener("scroll", function () {
      if (!queued) { queued = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    box.addEventListener("toggle", function () {  // the narrow menu opens at the prompt the reader is in
      var list = box.querySelector("ol");
      if (!box.open || wide.matches || !current || !list) return;
      list.scrollTop += current.link.getBoundingClientRect().top - list.getBoundingClientRect().top - 40;
    });
    update();
  }

  // A compact time ("22:45") shows its full stamp on hover or focus, from its datetime: a title
  // written on every line of a long session would weigh more than the times themselves.
  function initStamps() {
    function show(ev) {
      var el = ev.target && ev.target.closest ? ev.target.closest(".permalink, .when") : null;
      var time = el && !el.title ? el.querySelector("time[datetime]") : null;
      if (!time) return;
      var d = new Date(time.getAttribute("datetime"));
      el.title = isNaN(d) ? time.getAttribute("datetime") : d.toISOString().slice(0, 19).replace("T", " ") + " UTC";
    }
    document.addEventListener("mouseover", show);
    document.addEventListener("focusin", show);
  }

  // Previous and next session of the project, from the project's script (sessite/outputs/neighbours.py).
  function initSessionNav() {
    var navs = document.querySelectorAll("[data-session-nav]");
    if (!navs.length) return;
    var src = navs[0].dataset.sessionNav, me = navs[0].dataset.session;
    var root = document.body.dataset.root || "";
    function link(entry, rel, label) {
      var a = document.createElement("a");
      a.rel = rel;
      a.className = "session-" + rel;
      a.href = root + entry[0];
      a.title = entry[1] + (entry[2] ? " (" + entry[2] + ")" : "");
      var small = document.createElement("span");
      small.className = "muted";
      small.textContent = label;
      var words = document.createElement("span");
      words.className = "session-nav-title";
      words.textContent = entry[1];
      a.appendChild(small);
      a.appendChild(words);
      return a;
    }
    window.sessiteProjectSessions = function (data) {
      var list = (data && data.sessions) || [];
      var at = -1;
      for (var i = 0; i < list.length; i++) if (list[i][0] === me) { at = i; break; }
      if (at === -1 || list.length < 2) return;
      var safe = function (e) { return e && /^(?:sessions\/[^:?#]+|p\/[0-9a-f]+)\.html$/.test(e[0] || ""); };
      navs.forEach(function (nav) {
        nav.textContent = "";
        if (at > 0 && safe(list[at - 1])) nav.appendChild(link(list[at - 1], "prev", "← Previous in project"));
        var pos = document.createElement("span");
        pos.className = "session-nav-here muted";
        pos.textContent = "Session " + (at + 1) + " of " + list.length;
        nav.appendChild(pos);
        if (at < list.length - 1 && safe(list[at + 1])) nav.appendChild(link(list[at + 1], "next", "Next in project →"));
        nav.hidden = false;
      });
    };
    if (window.sessiteVault) { window.sessiteVault.script(src).catch(function () { /* no neighbours */ }); return; }
    var script = document.createElement("script");
    script.src = src;
    document.head.appendChild(script);
  }

  // The commits linked to this session, from its script (sessite/outputs/commit_pages.py, --repo).
  function initSessionCommits() {
    var box = document.querySelector("[data-session-commits]");
    if (!box) return;
    var root = document.body.dataset.root || "";
    window.sessiteSessionCommits = function (data) {
      var list = (data && data.commits) || [];
      var ol = box.querySelector("ol");
      if (!ol || !list.length) return;
      list.forEach(function (c) {
        if (!/^commits\/[0-9a-f]{40}\.html$/.test(c[0] || "")) return;
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = root + c[0];
        a.className = "session-commit";
        var code = document.createElement("code");
        code.textContent = c[1];
        a.appendChild(code);
        li.appendChild(a);
        li.appendChild(document.createTextNode(" " + c[2] + " "));
        var how = document.createElement("span");
        how.className = "muted";
        how.textContent = "(" + (c[3] || []).join(", ") + (typeof c[4] === "number" ? "; wrote " + Math.round(c[4] * 100) + " % of its lines" : "") + ")";
        li.appendChild(how);
        ol.appendChild(li);
      });
      box.hidden = false;
    };
    var script = document.createElement("script");
    script.src = box.dataset.sessionCommits;
    document.head.appendChild(script);
  }

  function openTarget() {
    // Make sure a permalinked event is visible even inside closed <details>.
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { findPart(id); return; }
    for (var p = el; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    var own = el.querySelector(":scope > details");
    if (own) own.open = true;
    el.scrollIntoView({ block: "start" });
  }

  // A session split into parts (sessite/site/paging.py) has its events on several pages, and old
  // links all point at part 1: when the hash is not on this page, ask the session's parts.js
  // (anchors per part) which part holds it and go there, keeping ?hl= and the hash.
  function findPart(id) {
    var article = document.querySelector("article.session[data-parts]");
    if (!article || !id) return;
    var here = parseInt(article.dataset.part, 10) || 1;
    function go(data) {
      var parts = data.parts || [], anchors = data.anchors || [];
      for (var i = 0; i < anchors.length; i++) {
        if (i + 1 === here || anchors[i].indexOf(id) === -1) continue;
        var url = parts[i];
        if (!/^(?:sessions\/[^:?#]+|p\/[0-9a-f]+)\.html$/.test(url || "")) return; // only ever a page of this site
        location.replace((document.body.dataset.root || "") + url + location.search + "#" + encodeURIComponent(id));
        return;
      }
    }
    if (window.sessitePartsData) { go(window.sessitePartsData); return; }
    window.sessiteParts = function (data) { window.sessitePartsData = data; go(window.sessitePartsData); };
    if (window.sessiteVault) { window.sessiteVault.script(article.dataset.parts).catch(function () { /* stay */ }); return; }
    var script = document.createElement("script");
    script.src = article.dataset.parts;
    document.head.appendChild(script);
  }

  // Filters from the address, so every chart figure can link to the sessions it counts:
  // index.html?agent=…&project=…&q=…&tool=…&model=…&file=…&from=YYYY-MM-DD&to=YYYY-MM-DD.
  // Rows carry compact indices (data-t, data-m, data-f) into the lists in the form's data-facets.
  function urlFacets(form, refresh) {
    var params = new URLSearchParams(location.search);
    ["q", "agent", "project"].forEach(function (name) {
      var value = params.get(name), el = form.elements[name];
      if (value === null || !el) return;
      if (el.tagName === "SELECT" && !Array.prototype.some.call(el.options, function (o) { return o.value === value; })) {
        var option = document.createElement("option");
        option.textContent = value;
        el.appendChild(option);
      }
      el.value = value;
    });
    var lists = {};
    try { lists = JSON.parse(form.dataset.facets || "{}"); } catch (e) { lists = {}; }
    var active = [];
    function byIndex(names, attr, list, match, label) {
      var wanted = [];
      (list || []).forEach(function (item, i) { if (match(item)) wanted.push(String(i)); });
      active.push({ names: names, label: label, test: function (r) {
        var have = (r.getAttribute(attr) || "").split(" ");
        return wanted.some(function (w) { return have.indexOf(w) !== -1; });
      } });
    }
    var tool = params.get("tool"), model = params.get("model"), file = params.get("file");
    if (tool) byIndex(["tool"], "data-t", lists.tools, function (t) { return t === tool; }, "Tool: " + tool);
    if (model) byIndex(["model"], "data-m", lists.models, function (m) { return m === model; }, "Model: " + model);
    if (file) {
      var inProject = params.get("project");
      byIndex(["file"], "data-f", lists.files, function (f) { return f[1] === file && (!inProject || f[0] === inProject); }, "Edited: " + file);
    }
    var from = params.get("from"), to = params.get("to");
    if (from || to) {
      var lo = from ? Date.parse(from + "T00:00:00Z") / 1000 : -Infinity;
      var hi = to ? Date.parse(to + "T00:00:00Z") / 1000 + 86400 : Infinity;
      if (isNaN(lo)) lo = -Infinity;
      if (isNaN(hi)) hi = Infinity;
      active.push({ names: ["from", "to"], label: "Started: " + (from === to ? from : (from || "…") + " – " + (to || "…")), test: function (r) {
        var cell = r.querySelector("td.started"), t = cell ? parseFloat(cell.dataset.value) : 0;
        return t > 0 && t >= lo && t < hi;
      } });
    }
    var chips = form.querySelector("[data-facet-chips]");
    function show() {
      if (!chips) return;
      chips.textContent = "";
      chips.hidden = active.length === 0;
      active.forEach(function (f, i) {
        var chip = document.createElement("span");
        chip.className = "chip";
        chip.textContent = f.label + " ";
        var remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "×";
        remove.setAttribute("aria-label", "Remove filter " + f.label);
        remove.addEventListener("click", function () {
          active.splice(i, 1);
          f.names.forEach(function (n) { params.delete(n); });
          try { history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : "") + location.hash); } catch (e) { /* file:// may refuse */ }
          show();
          refresh();
        });
        chip.appendChild(remove);
        chips.appendChild(chip);
      });
    }
    show();
    return function (r) { return active.every(function (f) { return f.test(r); }); };
  }

  function initIndex() {
    var table = document.querySelector("table[data-sortable]");
    if (!table) return;
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var form = document.querySelector("[data-filters]");
    var empty = document.querySelector("[data-empty]");

    table.querySelectorAll("th[data-sort]").forEach(function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("th[data-sort]").forEach(function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var numeric = th.dataset.sort === "num";
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.value, y = b.cells[col].dataset.value;
          var r = numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
          return asc ? r : -r;
        });
        var frag = document.createDocumentFragment();
        rows.forEach(function (r) { frag.appendChild(r); });
        tbody.appendChild(frag);
      });
    });

    if (!form) return;
    var facet = urlFacets(form, function () { apply(); });
    function apply() {
      var q = form.elements.q.value.trim().toLowerCase();
      var agent = form.elements.agent.value, project = form.elements.project.value;
      var shown = 0;
      rows.forEach(function (r) {
        var ok = (!agent || r.dataset.agent === agent) && (!project || r.dataset.project === project) &&
          (!q || r.textContent.toLowerCase().indexOf(q) !== -1) && facet(r);
        r.hidden = !ok;
        if (ok) shown++;
      });
      form.elements.shown.value = shown + " of " + rows.length + " shown";
      if (empty) empty.hidden = shown !== 0;
    }
    form.addEventListener("input", apply);
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    apply();
  }

  ready(function () {
    initCollapsibles();
    initKindFilters();
    initFind();
    initOutline();
    initStamps();
    initSessionNav();
    initSessionCommits();
    initIndex();
    openTarget();
    window.addEventListener("hashchange", openTarget);
  });
})();
