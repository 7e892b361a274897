// Composition root: the API, the translations, the preferences, the renderer, the dialogs and the
// input, wired together. At /replay/{game_id} the page is the replay viewer (replay.js) instead.
import { Api } from "./api.js";
import { Controller } from "./controller.js";
import { Dialogs } from "./dialogs.js";
import { chooseLanguage, loadCatalog } from "./i18n.js";
import { bindInput } from "./input.js";
import { Preferences } from "./preferences.js";
import { watchForUpdates } from "./update.js";
import { View } from "./view.js";
import { Walkthrough } from "./walkthrough.js";

const connection = document.getElementById("connection");
const preferences = new Preferences(localStorage);
// the language chosen in SETTINGS, else the browser's (not saved: it follows the browser's)
const t = await loadCatalog(chooseLanguage(preferences.language())).catch((error) => {
  // the network failed (a fetch's TypeError): boot.js loads the page again once it is back
  if (error instanceof TypeError) window.dispatchEvent(new Event("magdagdon-words-unloaded"));
  throw error;
});
const replaying = location.pathname.startsWith("/replay/");
let controller = null;
const api = new Api({
  onConnection: (ok) => {
    connection.hidden = ok;
    connection.textContent = replaying ? t("replay_offline") : controller.t("connection_lost");
  },
  onSessionEnded: () => controller?.sessionEnded(),
});
if (replaying) {
  const { startReplay } = await import("./replay.js");
  await startReplay({ api, t, doc: document, preferences, path: location.pathname });
} else {
  const view = new View(document.getElementById("app"));
  const walkthrough = new Walkthrough(document, preferences);
  controller = new Controller({ api, view, dialogs: new Dialogs(document), preferences, t, doc: document, walkthrough });
  bindInput(document, (intent, data) => controller.handle(intent, data));
  await controller.start();
  // the guided first game, on a browser's first visit: on the board of a regular game with no
  // sheet over it (not inside a daily's one attempt)
  if (!controller.screen && !(controller.game && (controller.game.daily || controller.game.past_daily))) walkthrough.maybeStart(controller.t, controller.game);
}
// The page's own files from a cache (sw.js): the installed game opens at once, and offline it
// says so and retries by itself rather than showing the browser's error page.
if ("serviceWorker" in navigator) {
  watchForUpdates({ doc: document, t: () => (controller ? controller.t : t), language: t.language });
}
