/* sessite preview only: reload on rebuild, show build problems. Never part of a built site. */
(function () {
  "use strict";
  var overlay = null;

  function render(status) {
    var problems = status.problems || [];
    var failed = status.failed;
    if (!failed && problems.length === 0) {
      if (overlay) { overlay.remove(); overlay = null; }
      return;
    }
    if (!overlay) {
      overlay = document.createElement("aside");
      overlay.id = "sessite-overlay";
      overlay.setAttribute("role", "status");
      overlay.style.cssText = "position:fixed;z-index:2147483647;right:1rem;bottom:1rem;max-width:min(42rem,90vw);max-height:50vh;overflow:auto;" +
        "background:#1f2328;color:#f6f8fa;border:2px solid #cf222e;border-radius:8px;padding:.75rem 1rem;font:13px/1.4 ui-monospace,monospace;box-shadow:0 4px 24px rgba(0,0,0,.4)";
      document.body.appendChild(overlay);
    }
    overlay.textContent = "";
    var head = document.createElement("strong");
    head.textContent = failed ? failed : (status.problem_count + " problem" + (status.problem_count === 1 ? "" : "s") + " in the last build");
    overlay.appendChild(head);
    var close = document.createElement("button");
    close.type = "button";
    close.textContent = "×";
    close.setAttribute("aria-label", "Dismiss");
    close.style.cssText = "float:right;background:none;border:0;color:inherit;font-size:18px;cursor:pointer";
    close.addEventListener("click", function () { overlay.remove(); overlay = null; });
    overlay.insertBefore(close, head);
    var list = document.createElement("ul");
    list.style.cssText = "margin:.5rem 0 0;padding-left:1.2rem";
    problems.forEach(function (p) {
      var li = document.createElement("li");
      li.textContent = p;
      list.appendChild(li);
    });
    overlay.appendChild(list);
  }

  function check() {
    fetch("/__sessite__/status", { cache: "no-store" }).then(function (r) { return r.json(); }).then(render).catch(function () {});
  }

  // The folds the reader opened stay open across a reload (a session being written reloads its
  // page at every line): each open <details> and each expanded long output is remembered by the
  // nearest id around it and its place among the folds there, in sessionStorage, and reopened.
  var FOLDS_KEY = "sessite-folds:" + location.pathname;
  var FOLDS = "details, [data-collapsible]";

  function foldKey(el) {
    var holder = el.parentElement ? el.parentElement.closest("[id]") : null;
    var scope = holder || document;
    var index = Array.prototype.indexOf.call(scope.querySelectorAll(FOLDS), el);
    return (el.id ? "#" + el.id : (holder ? "#" + holder.id : "") + "/" + index);
  }

  function isOpen(el) {
    return el.tagName === "DETAILS" ? el.open : !el.classList.contains("collapsed");
  }

  function rememberFolds() {
    var open = [];
    document.querySelectorAll(FOLDS).forEach(function (el) { if (isOpen(el)) open.push(foldKey(el)); });
    try { sessionStorage.setItem(FOLDS_KEY, JSON.stringify(open)); } catch (e) { /* storage off: nothing kept */ }
  }

  function restoreFolds() {
    var open;
    try {
      open = JSON.parse(sessionStorage.getItem(FOLDS_KEY) || "null");
      sessionStorage.removeItem(FOLDS_KEY);
    } catch (e) { return; }
    if (!Array.isArray(open) || open.length === 0) return;
    var wanted = {};
    open.forEach(function (key) { wanted[key] = true; });
    document.querySelectorAll(FOLDS).forEach(function (el) {
      if (!wanted[foldKey(el)] || isOpen(el)) return;
      if (el.tagName === "DETAILS") { el.open = true; return; }
      var button = el.querySelector(":scope > [data-expand]");
      if (button) button.click(); else el.classList.remove("collapsed");
    });
  }

  // after the page's own scripts (deferred too) have wired the long outputs' buttons
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", restoreFolds); else restoreFolds();

  var source = new EventSource("/__sessite__/events");
  var first = true;
  function currentUrl() {
    var path = decodeURIComponent(location.pathname).replace(/^\/+/, "");
    return path === "" || path.slice(-1) === "/" ? path + "index.html" : path;
  }

  source.addEventListener("reload", function (ev) {
    var status = JSON.parse(ev.data);
    if (status.failed) { render(status); return; }  // keep the last good page, show why
    var changed = status.changed;
    // Reload when this page (or its styles and scripts) changed, or when we cannot tell.
    if (changed === null || changed === undefined || changed.indexOf(currentUrl()) !== -1 ||
        changed.some(function (u) { return u.indexOf("static/") === 0; })) {
      rememberFolds();
      location.reload();
    } else {
      render(status);
    }
  });
  source.addEventListener("open", function () { if (first) { first = false; check(); } });
})();
