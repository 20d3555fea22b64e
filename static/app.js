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
    if (!el) return;
    for (var p = el; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    var own = el.querySelector(":scope > details.body, :scope > details.thinking");
    if (own) own.open = true;
    el.scrollIntoView({ block: "start" });
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
    function apply() {
      var q = form.elements.q.value.trim().toLowerCase();
      var agent = form.elements.agent.value, project = form.elements.project.value;
      var shown = 0;
      rows.forEach(function (r) {
        var ok = (!agent || r.dataset.agent === agent) && (!project || r.dataset.project === project) &&
          (!q || r.textContent.toLowerCase().indexOf(q) !== -1);
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
