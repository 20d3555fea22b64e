/* sessite page behaviour: collapsible output, expand/collapse all, index sort and filter.
   Everything works without this script; it only adds conveniences. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function ready(fn) {
    if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn);
  }

  function setCollapsed(box, collapsed) {
    box.classList.toggle("collapsed", collapsed);
    var button = box.querySelector("[data-expand]");
    if (button) {
      if (!button.dataset.label) button.dataset.label = button.textContent;
      button.textContent = collapsed ? button.dataset.label : "Collapse";
      button.setAttribute("aria-expanded", collapsed ? "false" : "true");
    }
  }

  function initCollapsibles() {
    document.querySelectorAll("[data-collapsible]").forEach(function (box) {
      var button = box.querySelector("[data-expand]");
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
      document.querySelectorAll("details.thinking, details.input, .marker details").forEach(function (d) { d.open = open; });
    });
  }

  function openTarget() {
    // Make sure a permalinked event is visible even inside closed <details>.
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { findPart(id); return; }
    for (var p = el; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    var own = el.querySelector(":scope > details.body, :scope > details.thinking");
    if (own) own.open = true;
    el.scrollIntoView({ block: "start" });
  }

  // A session split into parts (sitegen/site/parts.py) has its events on several pages, and old
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
        if (!/^sessions\/[^:?#]+\.html$/.test(url || "")) return; // only ever a page of this site
        location.replace((document.body.dataset.root || "") + url + location.search + "#" + encodeURIComponent(id));
        return;
      }
    }
    if (window.sessitePartsData) { go(window.sessitePartsData); return; }
    window.sessiteParts = function (data) { window.sessitePartsData = data; go(window.sessitePartsData); };
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
    initIndex();
    openTarget();
    window.addEventListener("hashchange", openTarget);
  });
})();
