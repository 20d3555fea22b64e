/* sessite encrypted site (sessite build --encrypt; sessite/publish/vault.py makes the files).

   Every page's address holds a small unlock page that loads this script. It asks for the
   password once per tab (PBKDF2-SHA256 in WebCrypto, then the site key unwrapped from
   keys.js), keeps the site key in sessionStorage, loads the page's encrypted file
   (x/<HMAC of the URL>.js, a script: it loads from file:// too), decrypts and inflates it,
   and replaces the document with it (document.open/write), so the page's own external
   scripts run under the same CSP, script-src 'self': nothing is evaluated. Pages ask for
   their data scripts (search chunks, parts.js, …) through sessiteVault.script(), which
   decrypts only the one asked for and hands its arguments (JSON) to the page's function
   (sessiteVault.data() gives them instead: the search worker's chunks). */
(function () {
  "use strict";
  if (window.sessiteVault) return; // the 404 page asks at every depth: a shallower copy ran
  var me = document.currentScript;
  if (!me || !me.src) return;
  var ROOT = me.src.replace(/static\/vault\.js(?:[?#].*)?$/, "");
  var WRAP_AAD = "sessite site key v1";
  var CALL = /^\s*(sessite[A-Za-z]*(?:\.[A-Za-z]+)?)\(([\s\S]*)\);?\s*$/;
  var subtle = window.crypto && window.crypto.subtle;
  var enc = new TextEncoder();
  var state = { ring: null, ringLoad: null, key: null, waiting: Object.create(null) };
  var page = (document.body && document.body.getAttribute("data-page")) || pageUrl();

  function pageUrl() {
    var here = location.href.split(/[?#]/)[0];
    if (here.indexOf(ROOT) !== 0) return "index.html";
    var rel = here.slice(ROOT.length);
    if (rel === "" || rel.slice(-1) === "/") rel += "index.html";
    try { return decodeURIComponent(rel); } catch (e) { return rel; }
  }

  function bytes(b64) {
    var s = atob(b64), out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  function b64(buf) {
    var u = new Uint8Array(buf), s = "";
    for (var i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
    return btoa(s);
  }
  function hex(buf) {
    var u = new Uint8Array(buf), s = "";
    for (var i = 0; i < u.length; i++) s += (u[i] < 16 ? "0" : "") + u[i].toString(16);
    return s;
  }

  function addScript(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement("script");
      el.src = src;
      el.async = true;
      el.onload = function () { el.remove(); resolve(); };
      el.onerror = function () { el.remove(); reject(new Error("could not load " + src)); };
      (document.head || document.documentElement).appendChild(el);
    });
  }

  /* ---- keys ---- */
  function ring() {
    if (!state.ringLoad) {
      state.ringLoad = addScript(ROOT + "keys.js").then(function () {
        if (!state.ring) throw new Error("keys.js holds no keys");
        return state.ring;
      });
    }
    return state.ringLoad;
  }
  function storeName() { return "sessite-vault:" + state.ring.salt; }
  function stored() {
    try { return sessionStorage.getItem(storeName()); } catch (e) { return null; }
  }
  function importKey(raw) {
    return Promise.all([
      subtle.importKey("raw", raw.slice(0, 32), { name: "AES-GCM" }, false, ["decrypt"]),
      subtle.importKey("raw", raw.slice(32, 64), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    ]).then(function (keys) { state.key = { content: keys[0], names: keys[1] }; });
  }
  function unwrap(kek, entries, i) {
    if (i >= entries.length) return Promise.resolve(null);
    var wrapped = bytes(entries[i].wrapped);
    return subtle.decrypt({ name: "AES-GCM", iv: wrapped.slice(0, 12), additionalData: enc.encode(WRAP_AAD) },
      kek, wrapped.slice(12)).then(function (raw) { return new Uint8Array(raw); },
      function () { return unwrap(kek, entries, i + 1); });
  }
  function unlock(password) {
    var r = state.ring;
    return subtle.importKey("raw", enc.encode(password.normalize("NFC")), "PBKDF2", false, ["deriveBits"]).then(function (base) {
      return subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: bytes(r.salt), iterations: r.iterations }, base, 256);
    }).then(function (bits) {
      return subtle.importKey("raw", bits, { name: "AES-GCM" }, false, ["decrypt"]);
    }).then(function (kek) { return unwrap(kek, r.keys, 0); }).then(function (raw) {
      if (!raw) return false;
      try { sessionStorage.setItem(storeName(), b64(raw)); } catch (e) { /* this page only */ }
      return importKey(raw).then(function () { return true; });
    });
  }

  /* ---- encrypted files ---- */
  function blob(name) {
    return new Promise(function (resolve, reject) {
      state.waiting[name] = resolve;
      addScript(ROOT + "x/" + name.slice(0, 2) + "/" + name + ".js").then(function () {
        if (state.waiting[name]) { delete state.waiting[name]; reject(new Error("no encrypted copy")); }
      }, function (err) { delete state.waiting[name]; reject(err); });
    });
  }
  function open(url) {
    return subtle.sign("HMAC", state.key.names, enc.encode(url)).then(function (sig) {
      return blob(hex(sig).slice(0, 32));
    }).then(function (data) {
      var sealed = bytes(data);
      return subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, 12), additionalData: enc.encode(url) },
        state.key.content, sealed.slice(12));
    }).then(function (body) {
      var size = new DataView(body).getUint32(0);
      var stream = new Blob([new Uint8Array(body, 4, size)]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      return new Response(stream).arrayBuffer();
    });
  }

  /* The site URL (relative to the root) of an address inside the site, or null (static files, elsewhere). */
  function siteUrl(src) {
    var abs = new URL(src, location.href).href.split(/[?#]/)[0];
    if (abs.indexOf(ROOT) !== 0) return null;
    var rel = abs.slice(ROOT.length);
    if (rel === "" || rel.slice(-1) === "/") rel += "index.html";
    if (/^static\//.test(rel)) return null;
    try { return decodeURIComponent(rel); } catch (e) { return rel; }
  }

  /* A data script of the site, decrypted: its one call's name and JSON arguments, not made
     (the search worker gets them so: sessite/static/search.js). */
  function data(src) {
    var url = siteUrl(src);
    if (url === null || !state.key) return Promise.reject(new Error("not an encrypted file: " + src));
    return open(url).then(function (buf) {
      var m = CALL.exec(new TextDecoder().decode(buf));
      if (!m) throw new Error(url + " is not a data script");
      return { call: m[1], args: JSON.parse("[" + m[2] + "]") };
    });
  }

  /* A data script of the site: decrypted, its one call made with its JSON arguments. */
  function script(src) {
    if (siteUrl(src) === null || !state.key) return addScript(src);
    return data(src).then(function (got) {
      var args = got.args, path = got.call.split(".");
      var self = window, fn = window[path[0]];
      if (path.length === 2) { self = fn; fn = fn && fn[path[1]]; }
      if (typeof fn !== "function") throw new Error(got.call + " is not on this page");
      fn.apply(self, args);
    });
  }

  /* A download of the site (an export): decrypted here and saved under its own name. */
  function download(ev) {
    var a = ev.target && ev.target.closest && ev.target.closest("a[href]");
    if (!a || ev.defaultPrevented || ev.button !== 0) return;
    var url = siteUrl(a.getAttribute("href"));
    if (url === null || (/\.html$/.test(url) && !a.hasAttribute("download"))) return;
    ev.preventDefault();
    open(url).then(function (buf) {
      var link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([buf]));
      link.download = a.getAttribute("download") || url.split("/").pop();
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
    }, function (err) { alert("Could not open " + url + ": " + err.message); });
  }

  function forget() {
    try { sessionStorage.removeItem(storeName()); } catch (e) { /* nothing kept */ }
    location.reload();
  }

  function addForget() {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "vault-forget";
    button.textContent = "Forget password";
    button.title = "Lock this site again in this tab";
    button.addEventListener("click", forget);
    var css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = ROOT + "static/vault.css";
    (document.head || document.documentElement).appendChild(css);
    var nav = document.querySelector(".site-header nav");
    if (nav) nav.appendChild(button); else if (document.body) document.body.appendChild(button);
    document.addEventListener("click", download);
  }

  /* The page's deferred scripts, moved to the end of its body without "defer": a document
     written by document.write may run deferred scripts after DOMContentLoaded, these run in
     order once the body is parsed, as deferred scripts do. (Pages never hold inline scripts,
     and session text is escaped, so only the templates' script tags match.) */
  function undefer(html) {
    var tags = [];
    html = html.replace(/<script src="([^"<>]*)" defer><\/script>\n?/g, function (m, src) {
      tags.push('<script src="' + src + '"></script>');
      return "";
    });
    var at = html.lastIndexOf("</body>");
    return at < 0 ? html + tags.join("\n") : html.slice(0, at) + tags.join("\n") + "\n" + html.slice(at);
  }

  function show(buf) {
    var html = undefer(new TextDecoder().decode(buf));
    document.open();
    document.write(html);
    document.close();
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", addForget);
    else addForget();
  }

  /* ---- the unlock page ---- */
  function message(text) {
    var el = document.querySelector("[data-vault-message]");
    if (el) el.textContent = text;
  }
  function openPage() {
    return open(page).then(show, function () {
      message("This page has no encrypted copy here (it may have been removed); the password is right.");
    });
  }
  function ask() {
    var form = document.querySelector("form[data-vault-form]");
    if (!form) return;
    form.hidden = false;
    var input = form.querySelector("input[type=password]"), button = form.querySelector("button");
    message("");
    input.focus();
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      button.disabled = true;
      message("Opening…");
      unlock(input.value).then(function (ok) {
        button.disabled = false;
        if (!ok) { message("Wrong password: it opens no key of this site."); input.select(); return; }
        return openPage();
      }).catch(function (err) { button.disabled = false; message("Could not open the site: " + err.message); });
    });
  }

  window.sessiteVault = {
    keys: function (data) { if (!state.ring) state.ring = data; },
    blob: function (name, data) {
      var done = state.waiting[name];
      if (done) { delete state.waiting[name]; done(data); }
    },
    script: script,
    data: data,
    forget: forget
  };

  if (!subtle || typeof DecompressionStream === "undefined") {
    message("This browser cannot decrypt here: open the site over https, from a file, or in a newer browser.");
    return;
  }
  ring().then(function () {
    var raw = stored();
    if (!raw) { ask(); return; }
    return importKey(bytes(raw)).then(function () { return open(page); }).then(show, function () {
      try { sessionStorage.removeItem(storeName()); } catch (e) { /* nothing kept */ }
      state.key = null;
      ask(); // a key kept from an earlier build of this site
    });
  }).catch(function (err) { message("Could not open the site: " + err.message); });
})();
