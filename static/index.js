/* sessite index page: when the filter box finds no session, offer the archive-wide search
   for the same words ("Search all text for …"), keeping the agent and project chosen.
   The filter only reads titles, projects and models; the search reads every event. */
(function () {
  "use strict";

  function init() {
    var form = document.querySelector("form[data-filters]");
    var link = document.querySelector("a[data-search-all]");
    if (!form || !link || !form.elements.q) return;
    var page = link.getAttribute("href");
    var said = link.querySelector("[data-search-q]");

    function update() {
      var q = form.elements.q.value.trim();
      var params = q ? ["q=" + encodeURIComponent(q)] : [];
      ["agent", "project"].forEach(function (name) {
        var el = form.elements[name];
        if (el && el.value) params.push(name + "=" + encodeURIComponent(el.value));
      });
      link.hidden = !q;
      link.href = page + (params.length ? "?" + params.join("&") : "");
      if (said) said.textContent = q;
    }

    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  }

  // base.html loads this after app.js, which fills the form from the address (?q=…) first.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
