// The start page's guard, a classic script (it runs where the game's modules could not): when
// the game's code or its words fail to load (a connection dropped or a network changed while the
// page loaded, as a phone moving from Wi-Fi to mobile data does), the page would stay empty,
// for the browser keeps a failed module for the page's life. Instead it says that it retries,
// waits until the server answers, and loads the page again.
(function () {
  "use strict";
  // the catalogs' "connection_lost" (tests/test_i18n.py holds them equal): the catalog itself
  // may be what failed to load
  var WORDS = {
    en: "Offline: your game is safe on the server. Retrying…",
    et: "Võrguühendus puudub: sinu mäng on serveris alles. Proovin uuesti…",
    sv: "Offline: ditt spel är i säkerhet på servern. Försöker igen…",
  };
  var started = false;
  var RELOADS = 5;
  var KEY = "magdagdon.boot-reloads";

  function remembered() {
    try {
      return sessionStorage.getItem(KEY);
    } catch (e) {
      return null;
    }
  }
  function remember(value) {
    try {
      sessionStorage.setItem(KEY, value);
    } catch (e) {
      // private windows may refuse: the reloads are then not bounded across pages
    }
  }
  function forget() {
    try {
      sessionStorage.removeItem(KEY);
    } catch (e) {
      // nothing kept
    }
  }

  function language() {
    var saved = null;
    try {
      saved = localStorage.getItem("magdagdon.language");
    } catch (e) {
      saved = null;
    }
    if (saved && WORDS[saved]) return saved;
    var wanted = navigator.languages || [navigator.language || "en"];
    for (var i = 0; i < wanted.length; i++) {
      var base = String(wanted[i]).toLowerCase().split("-")[0];
      if (WORDS[base]) return base;
    }
    return "en";
  }

  function loading() {
    var app = document.getElementById("app");
    return !app || app.getAttribute("aria-busy") !== "false";
  }

  function recover() {
    if (started || !loading()) return; // the game runs: its own code says what goes wrong
    started = true;
    var line = document.getElementById("connection");
    if (line) {
      line.textContent = WORDS[language()];
      line.hidden = false;
    }
    // at most RELOADS reloads that did not start the game: a page that fails to load for
    // another reason than the network is not reloaded for ever
    var reloads = Number(remembered() || 0);
    if (reloads >= RELOADS) return;
    var wait = 250;
    function again() {
      fetch("/api/health", { cache: "no-store" }).then(
        function (response) {
          if (!response.ok) return later();
          remember(String(reloads + 1));
          location.reload();
        },
        later
      );
    }
    function later() {
      wait = Math.min(wait * 2, 8000);
      setTimeout(again, wait);
    }
    setTimeout(again, wait);
  }

  var game = document.querySelector('script[type="module"]');
  if (game) game.addEventListener("error", recover); // a module of the game did not load
  // app.js could not fetch the words it awaits first
  window.addEventListener("magdagdon-words-unloaded", recover);
  // the page started: the next failure may reload it again
  var app = document.getElementById("app");
  if (app && window.MutationObserver) {
    new MutationObserver(function () {
      if (!loading()) forget();
    }).observe(app, { attributes: true, attributeFilter: ["aria-busy"] });
  }
})();
