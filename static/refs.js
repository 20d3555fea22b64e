/* sessite git refs index: filter the refs by repository, kind and text (a number, a branch,
   a title), also from the address (?repo=refs/…/index.html&kind=issue&q=login). A repository
   folded because the archive has many refs opens while a filter finds refs in it.
   Without this script the page lists every ref and the form stays hidden. */
(function () {
  "use strict";

  function init() {
    var box = document.querySelector("[data-refs-filter]");
    if (!box) return;
    var form = { elements: {} }; // the controls by name (a plain box, not a form: nothing is ever submitted)
    box.querySelectorAll("[name]").forEach(function (el) { form.elements[el.name] = el; });
    var sections = Array.prototype.slice.call(document.querySelectorAll("section[data-repo]"));
    var empty = document.querySelector("[data-refs-empty]");
    var items = [];
    sections.forEach(function (section) {
      var details = section.querySelector("details");
      section._details = details;
      section._open = details ? details.open : true;
      section.querySelectorAll(".ref-group").forEach(function (group) {
        group.querySelectorAll("li").forEach(function (li) {
          items.push({ li: li, group: group, section: section, text: li.textContent.toLowerCase() });
        });
      });
    });

    var params;
    try { params = new URLSearchParams(location.search); } catch (e) { params = null; }
    ["q", "repo", "kind"].forEach(function (name) {
      var value = params && params.get(name), el = form.elements[name];
      if (!value || !el) return;
      if (el.tagName === "SELECT" && !Array.prototype.some.call(el.options, function (o) { return o.value === value; })) return;
      el.value = value;
    });

    function apply() {
      var q = form.elements.q.value.trim().toLowerCase();
      var repo = form.elements.repo.value, kind = form.elements.kind.value;
      var filtering = !!(q || repo || kind);
      var shown = 0, groups = new Map(), repos = new Map();
      items.forEach(function (it) {
        var ok = (!repo || it.section.dataset.repo === repo) && (!kind || it.group.dataset.kind === kind) &&
          (!q || it.text.indexOf(q) !== -1);
        it.li.hidden = !ok;
        if (ok) {
          shown++;
          groups.set(it.group, true);
          repos.set(it.section, true);
        } else if (!groups.has(it.group)) {
          groups.set(it.group, false);
        }
      });
      groups.forEach(function (any, group) { group.hidden = !any; });
      sections.forEach(function (section) {
        // a repository with no refs of its own (its sessions only) shows when nothing filters it out
        var any = repos.has(section) || (!q && !kind && (!repo || section.dataset.repo === repo) && !section.querySelector(".ref-group"));
        section.hidden = !any;
        if (section._details) section._details.open = filtering ? any : section._open;
      });
      form.elements.shown.value = shown + " of " + items.length + " refs shown";
      if (empty) empty.hidden = shown !== 0 || !filtering;
    }

    box.hidden = false;
    box.addEventListener("input", apply);
    box.addEventListener("change", apply);
    apply();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
