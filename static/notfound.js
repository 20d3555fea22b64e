/* sessite 404 page without a base URL. GitHub Pages serves this one page at any missing
   address, however deep, so links written relative to the site root point into folders that
   do not exist. 404.html asks for this script at static/, ../static/, ../../static/…, in that
   order: the first copy that loads sits in the site root (the deepest folder above this
   address that has it), and only that one runs. It makes every relative link, stylesheet and
   form of the page start at that root, then loads the page's other scripts from there.
   No inline script: the page's CSP stays script-src 'self'. Works over HTTP and from file://. */
(function () {
  "use strict";
  if (window.sessiteNotFoundRoot !== undefined) return; // a shallower copy already ran
  var me = document.currentScript;
  if (!me || !me.src) return;
  var root = me.src.replace(/static\/notfound\.js(?:[?#].*)?$/, "");
  window.sessiteNotFoundRoot = root;
  var here = location.href.split(/[?#]/)[0];
  var dir = here.slice(0, here.lastIndexOf("/") + 1);

  function relative(value) {
    return value !== null && value !== "" && !/^([a-z][a-z0-9+.-]*:|\/|#|\?)/i.test(value);
  }

  if (root !== dir) {
    ["href", "src", "action"].forEach(function (attr) {
      var nodes = document.querySelectorAll("[" + attr + "]:not(script)");
      for (var i = 0; i < nodes.length; i++) {
        var value = nodes[i].getAttribute(attr);
        if (relative(value)) nodes[i].setAttribute(attr, root + value);
      }
    });
  }
  document.body.setAttribute("data-root", root);
  (document.body.getAttribute("data-scripts") || "").split(" ").forEach(function (src) {
    if (!src) return;
    var script = document.createElement("script");
    script.src = root + src;
    document.head.appendChild(script);
  });
})();
