// The service worker of one release of the game (the server writes the release's hash into
// RELEASE below): the game's files from a cache, so the installed game opens at once and, without a
// network, shows its offline state instead of the browser's error page.
//
// Every file of a release is at /r/<release>/…, so its cache can only ever hold that release's
// files, and a page of one release never loads another's. The game's pages (/ and /replay/…) come
// from the network first, with the cached page when the network does not answer: after an upgrade
// one reload gives the new page, which names only the new release's files. Nothing of /api/ is
// ever cached: the server is the authority on every game. Other navigations (/openapi.json, an
// icon, /docs) are left to the browser.
const RELEASE = "__RELEASE__";
const PREFIX = `/r/${RELEASE}`;
const CACHE = `magdagdon-${RELEASE}`;
const LANGUAGE = new URL(self.location.href).searchParams.get("lang") || "en";
// What the game needs offline, in the page's language ({lang}). The other screens' modules (the
// account's, challenges', leagues') are imported when first opened and kept once loaded: once
// the server has moved on to another release, it still answers this one's files for a page of
// it that is still open (it keeps its last releases' files: store/releases.py). The other
// languages' catalogs and rules are kept once loaded (SETTINGS fetches them when it opens); the
// replay viewer, a page of its own, and the large icons too.
const SHELL = [
  "/css/app.css", "/manifest.webmanifest", "/icons/icon.svg",
  "/js/boot.js", "/js/app.js", "/js/api.js", "/js/controller.js", "/js/daily.js", "/js/dialogs.js", "/js/dom.js",
  "/js/i18n.js", "/js/input.js", "/js/name.js", "/js/preferences.js", "/js/share.js", "/js/sheets.js",
  "/js/stats.js", "/js/view.js", "/js/walkthrough.js", "/js/update.js",
  "/i18n/{lang}.json", "/rules/{lang}.txt",
];
const PAGE_WAIT = 3000; // ms a game page waits for the network before the cached one is shown

const isGamePage = (url) => url.pathname === "/" || url.pathname.startsWith("/replay/");

async function install() {
  const cache = await caches.open(CACHE);
  const page = await fetch("/", { cache: "no-cache" });
  // the server may have moved on to a newer release since this worker was fetched: its page
  // would name other files; this worker is then out of date and installs nothing
  if (!page.ok || !(await page.clone().text()).includes(PREFIX)) throw new Error("another release");
  await cache.put("/", page);
  await cache.addAll(SHELL.map((path) => PREFIX + path.replace("{lang}", LANGUAGE)));
}

self.addEventListener("install", (event) => {
  event.waitUntil(install().then(() => self.skipWaiting()));
});

// a page asks which release this worker is (js/update.js: another than the page's is news)
self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "release?" && event.ports[0]) event.ports[0].postMessage(RELEASE);
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim().then(forgetUnused));
});

// The releases of the game's open pages: each page says its own (app.js answers "release?").
// A page that does not answer within a second (still loading, say) is an unknown: null.
async function releasesOpen() {
  const pages = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  return Promise.all(pages.map((page) => new Promise((resolve) => {
    const channel = new MessageChannel();
    const late = setTimeout(() => resolve(null), 1000);
    channel.port1.onmessage = (event) => {
      clearTimeout(late);
      resolve(typeof event.data === "string" ? event.data : null);
    };
    page.postMessage({ type: "release?" }, [channel.port2]);
  })));
}

// Every other release's cache is deleted once no open page is of that release (while one is,
// its files are there for it: the account's module it has not imported yet, say).
async function forgetUnused() {
  const open = await releasesOpen();
  if (open.includes(null)) return; // (asked again at the next page)
  const keep = new Set([CACHE, ...open.map((release) => `magdagdon-${release}`)]);
  const keys = await caches.keys();
  await Promise.all(keys.filter((key) => key.startsWith("magdagdon-") && !keep.has(key)).map((key) => caches.delete(key)));
}

// A game page: the network's (the current release), else after PAGE_WAIT or offline the cached.
async function gamePage(request) {
  const cache = await caches.open(CACHE);
  const network = fetch(request).then((response) => {
    if (response.ok && new URL(request.url).pathname === "/") cache.put("/", response.clone());
    return response;
  });
  const cached = await cache.match("/");
  if (!cached) return network;
  const late = new Promise((resolve) => setTimeout(() => resolve(cached), PAGE_WAIT));
  return Promise.race([network.catch(() => cached), late]);
}

// A file of this release: from the cache, else from the network and kept (a file of a release
// never changes). A file of another release (a page of it still open) is its cache's, else the
// network's, and never kept here.
async function releaseFile(request, url) {
  if (!url.pathname.startsWith(`${PREFIX}/`)) return (await caches.match(url.pathname)) || fetch(request);
  const cache = await caches.open(CACHE);
  const cached = await cache.match(url.pathname);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) cache.put(url.pathname, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (event.request.mode === "navigate") {
    if (isGamePage(url)) {
      event.respondWith(gamePage(event.request));
      // a page reloaded may have been the last of an older release: its cache may go
      event.waitUntil(new Promise((resolve) => setTimeout(resolve, 5000)).then(forgetUnused));
    }
    return;
  }
  if (url.pathname.startsWith("/r/")) event.respondWith(releaseFile(event.request, url));
});
