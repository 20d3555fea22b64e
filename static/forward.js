/* sessite: a page that moved (a working directory's git refs, joined to the repository other
   sessions named) forwards to where it went, keeping the fragment. Session pages, rendered
   one at a time, still link the old address. Without this script the page shows the link. */
(function () {
  "use strict";
  var link = document.querySelector("a[data-forward]");
  if (link && link.href) location.replace(link.href + location.hash);
})();
