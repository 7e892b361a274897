// The service worker (sw.js) and the page's release: the worker is registered, told which
// release this page is (so that it keeps this release's files while the page is open, after the
// server has moved on: sw.js), and a newer release that took over says so, with RELOAD.

import { el } from "./dom.js";

// This page's release, from the address of its own files (/r/<release>/js/update.js).
const RELEASE = new URL(import.meta.url).pathname.split("/")[2] || "";

export function watchForUpdates({ doc, t, language }) {
  const workers = navigator.serviceWorker;
  workers.addEventListener("message", (event) => {
    if (event.data && event.data.type === "release?" && event.ports[0]) event.ports[0].postMessage(RELEASE);
  });
  workers.startMessages();
  // A worker that takes over is asked its release: another than the page's is a new version.
  workers.addEventListener("controllerchange", async () => {
    const theirs = await releaseOf(workers.controller);
    if (theirs && theirs !== RELEASE) showReload(doc, t());
  });
  // (a worker per language: it keeps that language's catalog and rules; of the same release,
  // it says nothing to the page)
  workers.register(`/sw.js?lang=${language}`).then((registration) => {
    // the browser looks for a new worker on navigations; a page left open looks when it is
    // shown again, and every hour
    const look = () => registration.update().catch(() => {});
    doc.addEventListener("visibilitychange", () => { if (doc.visibilityState === "visible") look(); });
    setInterval(look, 60 * 60 * 1000);
  }, () => {});
}

// A worker's release (sw.js answers "release?"), or null when it does not say within 5 s.
function releaseOf(worker) {
  if (!worker) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const late = setTimeout(() => resolve(null), 5000);
    channel.port1.onmessage = (event) => {
      clearTimeout(late);
      resolve(typeof event.data === "string" ? event.data : null);
    };
    worker.postMessage({ type: "release?" }, [channel.port2]);
  });
}

// "A new version is ready" and RELOAD, once, at the top of the page (the page goes on working
// until then: its release's files are still in the worker's cache).
function showReload(doc, t) {
  if (doc.getElementById("update-note")) return;
  // (data-i18n: drawn again in the new words when SETTINGS changes the language)
  const reload = el("button", { type: "button", class: "button small", id: "update-reload", "data-i18n": "update_reload", text: t("update_reload") });
  reload.addEventListener("click", () => location.reload());
  doc.getElementById("app").prepend(el("p", { id: "update-note", class: "update-note", role: "status" },
    el("span", { "data-i18n": "update_ready", text: t("update_ready") }), reload));
}
