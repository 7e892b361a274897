// The service worker: the page's own files from a cache, so the installed game opens at once
// and, without a network, shows its offline state instead of the browser's error page. Files are
// served from the cache and refreshed from the network behind it (the next visit gets the new
// ones). Nothing of /api/ is ever cached: the server is the authority on every game.
const CACHE = "magdagdon-shell-v5";
const SHELL = [
  "/", "/css/app.css", "/manifest.webmanifest", "/icons/icon.svg", "/icons/icon-192.png",
  "/js/app.js", "/js/api.js", "/js/controller.js", "/js/daily.js", "/js/dialogs.js", "/js/dom.js",
  "/js/i18n.js", "/js/input.js", "/js/name.js", "/js/preferences.js", "/js/replay.js", "/js/share.js", "/js/sheets.js",
  "/js/stats.js", "/js/view.js", "/js/walkthrough.js",
  "/i18n/en.json", "/i18n/et.json", "/i18n/sv.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/docs")) return; // never cached
  const key = event.request.mode === "navigate" ? "/" : url.pathname;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const cached = await cache.match(key);
      const fresh = fetch(event.request)
        .then((response) => {
          if (response.ok) cache.put(key, response.clone());
          return response;
        })
        .catch(() => cached);
      return cached || fresh;
    }),
  );
});
