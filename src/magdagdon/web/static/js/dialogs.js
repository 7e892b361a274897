// The two dialogs over the game, index.html's <dialog id="sheet"> and <dialog id="confirm">: the
// sheet shows one screen (menu, high scores, settings, rules, about, game over, review; the
// daily challenge and its leaderboard, statistics) built by sheets.js, daily.js and stats.js,
// the question asks yes or no. Both open with showModal(), so the browser keeps focus inside,
// closes them on Escape and gives focus back to what had it before. Which screen is open is the
// controller's state; this only paints the dialogs and reports that the sheet closed.

import { dailySheet, leaderboardSheet } from "./daily.js";
import { el } from "./dom.js";
import * as sheets from "./sheets.js";
import { statsSheet } from "./stats.js";

// screen → [title, ...content] from what the controller knows
const SCREENS = {
  menu: ({ t, game, news }) => sheets.menu(t, { onDaily: Boolean(game && (game.daily || game.challenge || game.past_daily || game.room)), news }),
  scores: ({ t, scores }) => sheets.scores(t, scores),
  settings: ({ t, game, animations }) => sheets.settings(t, { difficulty: game && game.difficulty, language: t.language, animations }),
  rules: ({ t, rules, rulesError }) => sheets.rules(t, rules, rulesError),
  about: ({ t }) => sheets.about(t),
  over: ({ t, game, result, shared }) => sheets.gameOver(t, game, { result, shared }),
  daily: ({ t, game, daily, shared }) => dailySheet(t, { ...daily, onDaily: Boolean(game && (game.daily || game.past_daily)), shared }),
  leaderboard: ({ t, leaderboard, daily }) => leaderboardSheet(t, { ...leaderboard, today: daily.info ? daily.info.date : null }),
  stats: ({ t, stats }) => statsSheet(t, stats),
  review: ({ t, reviewed }) => sheets.review(t, reviewed),
  // (account.js is imported when the screen is first opened: account.view until then null)
  account: ({ t, account }) => (account.view ? account.view.accountSheet(t, account) : [t("title_account"),
    account.error ? el("p", { class: "error-text", role: "alert", text: account.error }) : el("p", { text: t("loading") })]),
};

// The screens with modules of their own, imported when one of them first opens: the start of
// their screens' and intents' names → the module's name, its title, and its import.
export const MODULES = {
  challenge: { name: "challenges", title: "title_challenges", load: () => import("./challenges.js") },
  league: { name: "leagues", title: "title_leagues", load: () => import("./leagues.js") },
  puzzle: { name: "puzzles", title: "title_puzzles", load: () => import("./puzzles.js") },
  mygames: { name: "mygames", title: "title_mygames", load: () => import("./mygames.js") },
  pastdaily: { name: "pastdailies", title: "title_past_dailies", load: () => import("./pastdailies.js") },
  room: { name: "rooms", title: "title_room", load: () => import("./rooms.js") },
};

// Which module's screen or intent this is (its MODULES entry), or null.
export function moduleOf(name) {
  if (typeof name !== "string") return null;
  const bare = name.startsWith("submit-") ? name.slice("submit-".length) : name; // a form's
  for (const [prefix, module] of Object.entries(MODULES)) if (bare.startsWith(prefix)) return module;
  return null;
}

// A module's screen: its own sheet once loaded, "Loading…" (or why the module did not come)
// until then.
function moduleScreen(screen) {
  const module = moduleOf(screen);
  if (!module) return null;
  return ({ t, modules }) => (modules[module.name] ? modules[module.name].sheet(screen, t) : [t(module.title),
    modules.error ? el("p", { class: "error-text", role: "alert", text: modules.error }) : el("p", { text: t("loading") })]);
}

export class Dialogs {
  constructor(doc) {
    this.doc = doc;
    this.sheet = doc.getElementById("sheet");
    this.question = doc.getElementById("confirm");
    this.answer = null; // resolves the question's promise while it is open
    this.pendingFocus = null; // a control to focus once it is drawn (see paintSheet)
    this.wantedFocus = null; // a control a screen asked the keyboard to go to (focusAfterPaint)
    this.question.addEventListener("close", () => this.settle(false));
  }

  // Dialogs send "close" later, as a task: by then the sheet may be open again for another
  // screen, so only a sheet that really is closed is reported.
  onSheetClosed(callback) {
    this.sheet.addEventListener("close", () => { if (!this.sheet.open) callback(); });
  }

  // Draws the screen into the sheet, opening it if it is closed. state: {t, game, scores, rules
  // (the rules text in t's language, null until loaded), rulesError (why it did not load),
  // reviewed, animations, daily, leaderboard, stats, result (a finished daily's standing),
  // shared (what SHARE did)}.
  paintSheet(screen, state) {
    const build = SCREENS[screen] || moduleScreen(screen);
    if (!build) return;
    const [title, ...content] = build(state);
    const body = this.doc.getElementById("sheet-body");
    const focused = this.doc.activeElement;
    // (while a screen loads, the control may be missing for a paint: it is looked for again)
    const inside = focused !== body && body.contains(focused);
    const key = this.wantedFocus || (focused === body ? this.pendingFocus : inside ? focusKey(focused) : null);
    // a text field's selection too: a player who selected the name to type over it, as a table
    // arrived, would otherwise type after it (a new field's caret is at its end)
    const selection = inside && !this.wantedFocus && typeof focused.selectionStart === "number"
      ? { value: focused.value, start: focused.selectionStart, end: focused.selectionEnd, direction: focused.selectionDirection }
      : null;
    this.pendingFocus = this.wantedFocus = null;
    this.doc.getElementById("sheet-title").textContent = title;
    body.replaceChildren(...content.filter(Boolean));
    if (!this.sheet.open) this.sheet.showModal();
    // The focus stays where the keyboard was: on the same control drawn again (a tab, PREVIOUS
    // DAY, …), else on the sheet's content, never on <body> (the old control is gone).
    if (key === null) {
      if (inside && !body.contains(focused)) body.focus(); // a control with no name to find again
      return;
    }
    const again = body.querySelector(key);
    if (again && !again.disabled) {
      again.focus();
      if (selection && again.value === selection.value && typeof again.selectionStart === "number") {
        again.setSelectionRange(selection.start, selection.end, selection.direction);
      }
    } else {
      body.focus();
      if (!again) this.pendingFocus = key;
    }
  }

  // The keyboard goes to this control (a selector) when the sheet is next drawn, wherever it was:
  // a puzzle's NEXT PUZZLE once its verdict is shown.
  focusAfterPaint(selector) {
    this.wantedFocus = selector;
  }

  closeSheet() {
    if (this.sheet.open) this.sheet.close();
  }

  // Asks a yes/no question; the promise gives true for yes. A question still open is answered no.
  ask(text, yes) {
    this.doc.getElementById("confirm-text").textContent = text;
    this.doc.getElementById("confirm-yes").textContent = yes;
    this.settle(false);
    this.question.showModal();
    return new Promise((resolve) => { this.answer = resolve; });
  }

  // The player's answer (the question's buttons); closing it otherwise (Escape) answers no.
  reply(value) {
    this.settle(value);
    if (this.question.open) this.question.close();
  }

  settle(value) {
    const answer = this.answer;
    this.answer = null;
    if (answer) answer(value);
  }
}

// A selector for "the same control" in the sheet drawn again: its data-focus name when it has
// one (a control whose other attributes change, like PREVIOUS DAY's date), else its id, else
// its tag with the data attributes that say what it does.
const SAME = ["data-intent", "data-screen", "data-difficulty", "data-scope", "data-game", "data-date", "data-change", "data-replay-link", "data-code", "data-by", "data-member", "data-mode", "data-die", "data-square"];

function focusKey(node) {
  const named = node.getAttribute("data-focus");
  if (named) return `[data-focus="${CSS.escape(named)}"]`;
  if (node.id) return `#${CSS.escape(node.id)}`;
  const parts = SAME.filter((a) => node.hasAttribute(a)).map((a) => `[${a}="${CSS.escape(node.getAttribute(a))}"]`);
  return parts.length ? node.tagName.toLowerCase() + parts.join("") : null;
}
