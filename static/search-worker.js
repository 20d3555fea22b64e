/* sessite search worker: loads index chunks and runs lunr off the page's thread.
   Used over HTTP only; pages opened from file:// cannot start workers and run
   the same code (search-core.js) on the page instead. On an encrypted site the page
   decrypts the chunks and sends them with the query (job.given): this never sees a key. */
/* global importScripts, lunr, SessiteSearchCore */
"use strict";
importScripts("vendor/lunr/lunr.min.js", "search-core.js");

var engine = SessiteSearchCore.create(lunr);
self.sessiteSearch = {
  chunk: function (id, entries) { engine.addChunk(id, entries); },
  meta: function () {},
  facts: function () {},
  frag: function () {}
};

self.onmessage = function (ev) {
  var job = ev.data;
  function failed(err) { self.postMessage({ id: job.id, error: String(err && err.message ? err.message : err) }); }
  try {
    (job.given || []).forEach(function (args) { engine.addChunk(args[0], args[1]); }); // decrypted by the page
    job.chunks.forEach(function (id) {
      if (!engine.hasChunk(id)) importScripts(job.base + "search/t/" + id + ".js");
    });
  } catch (err) {
    failed(err);
    return;
  }
  engine.ready(job.chunks).then(function () {
    var started = Date.now(), found = engine.run(job.words, job.chunks, job.fields);
    self.postMessage({ id: job.id, results: found.results, broad: found.broad, nearest: found.nearest || [], ms: Date.now() - started });
  }).catch(failed);
};
