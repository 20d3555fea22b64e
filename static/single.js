/* sessite single file: find in the session. The site's search needs its index files and this
   file has only itself, so the header box finds words on the page instead: every match is
   marked, Enter and the arrows go from one to the next, opening the folded lines and showing
   the kind a filter hides. Page text only ever becomes text nodes and <mark>s, never markup. */
(function () {
  "use strict";

  var MAX_HITS = 5000;

  function ready(fn) {
    if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn);
  }

  // Open whatever hides a node: its <details>, a collapsed long output, a kind filter.
  function reveal(node) {
    var article = document.querySelector("article.session");
    for (var el = node.parentElement; el && el !== document.body; el = el.parentElement) {
      if (el.tagName === "DETAILS" && !el.open) el.open = true;
      if (el.hasAttribute("data-collapsible") && el.classList.contains("collapsed")) {
        var button = el.querySelector(":scope > [data-expand]");
        if (button && !button.hidden) button.click(); else el.classList.remove("collapsed");
      }
      el.classList.forEach(function (cls) {
        if (cls.lastIndexOf("f-", 0) !== 0 || !article || !article.classList.contains("hide-" + cls.slice(2))) return;
        var box = document.querySelector("[data-kind-filters] input[value='" + cls.slice(2) + "']");
        if (box) box.click(); else article.classList.remove("hide-" + cls.slice(2));
      });
    }
  }

  // The text nodes the reader reads: not the outline (it repeats the prompts) nor the toolbar.
  function textNodes(root) {
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: function (n) {
        return n.parentElement.closest("nav.outline, [data-toolbar], button") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      }
    });
    var nodes = [], node;
    while ((node = walker.nextNode())) nodes.push(node);
    return nodes;
  }

  // Every match of ``query`` as a list of <mark>s (one per text node it spans: highlighted code is many nodes).
  function markAll(root, query) {
    var nodes = textNodes(root), starts = [], whole = "";
    nodes.forEach(function (n) { starts.push(whole.length); whole += n.nodeValue; });
    var hay = whole.toLowerCase(), needle = query.toLowerCase();
    if (hay.length !== whole.length) { hay = whole; needle = query; } // a case change that changes lengths
    var found = [], from = 0, pos;
    while (found.length < MAX_HITS && (pos = hay.indexOf(needle, from)) !== -1) {
      found.push([pos, pos + needle.length]);
      from = pos + needle.length;
    }
    var hits = found.map(function () { return []; });
    var pieces = []; // [node index, start, end, hit] in document order
    var k = 0;
    found.forEach(function (span, hit) {
      while (k < nodes.length - 1 && starts[k + 1] <= span[0]) k++;
      for (var j = k; j < nodes.length && starts[j] < span[1]; j++) {
        var a = Math.max(span[0], starts[j]) - starts[j], b = Math.min(span[1], starts[j] + nodes[j].nodeValue.length) - starts[j];
        if (b > a) pieces.push([j, a, b, hit]);
      }
    });
    for (var i = 0; i < pieces.length;) {
      var index = pieces[i][0], node = nodes[index], value = node.nodeValue, last = 0, frag = document.createDocumentFragment();
      for (; i < pieces.length && pieces[i][0] === index; i++) {
        var p = pieces[i];
        if (p[1] > last) frag.appendChild(document.createTextNode(value.slice(last, p[1])));
        var mark = document.createElement("mark");
        mark.className = "find-hit";
        mark.textContent = value.slice(p[1], p[2]);
        frag.appendChild(mark);
        hits[p[3]].push(mark);
        last = p[2];
      }
      if (last < value.length) frag.appendChild(document.createTextNode(value.slice(last)));
      node.parentNode.replaceChild(frag, node);
    }
    return hits;
  }

  function unmarkAll(hits) {
    var parents = [];
    hits.forEach(function (marks) {
      marks.forEach(function (m) {
        var parent = m.parentNode;
        if (!parent) return;
        parent.replaceChild(document.createTextNode(m.textContent), m);
        parents.push(parent);
      });
    });
    parents.forEach(function (p) { p.normalize(); });
  }

  ready(function () {
    var form = document.querySelector("[data-find]");
    var article = document.querySelector("article.session");
    if (!form || !article) return;
    var input = form.querySelector("input[type=search]");
    var count = form.querySelector("[data-find-count]");
    var hits = [], at = -1, timer = null, query = "";
    form.hidden = false;

    function status() {
      if (!query) count.value = "";
      else if (!hits.length) count.value = "no match";
      else count.value = (at + 1) + " of " + hits.length + (hits.length >= MAX_HITS ? "+" : "");
    }

    function go(step) {
      if (!hits.length) return;
      if (at >= 0) hits[at].forEach(function (m) { m.classList.remove("current"); });
      at = (at + step + hits.length) % hits.length;
      reveal(hits[at][0]);
      hits[at].forEach(function (m) { m.classList.add("current"); });
      hits[at][0].scrollIntoView({ block: "center" });
      status();
    }

    function find() {
      timer = null;
      var value = input.value.trim();
      if (value === query) return;
      unmarkAll(hits);
      hits = [];
      at = -1;
      query = value;
      if (query) hits = markAll(article, query);
      status();
      go(1);
    }

    input.addEventListener("input", function () {
      if (timer) clearTimeout(timer);
      timer = setTimeout(find, 200);
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") {
        ev.preventDefault();
        if (timer) { clearTimeout(timer); find(); } else if (input.value.trim() !== query) find(); else go(ev.shiftKey ? -1 : 1);
      } else if (ev.key === "Escape") {
        input.value = "";
        find();
      }
    });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    form.addEventListener("click", function (ev) {
      var step = ev.target && ev.target.getAttribute ? ev.target.getAttribute("data-find-step") : null;
      if (!step) return;
      if (timer) { clearTimeout(timer); find(); }
      go(parseInt(step, 10));
    });
  });
})();
