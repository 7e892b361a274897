// MY GAMES: every finished game of the player, newest first, a page at a time, with its replay
// and its review one tap away; a difficulty to keep to. Imported when the screen first opens
// (controller.js routes to it); its words come with the puzzles' (i18n/puzzles/<language>.json).

import { button, el, playIcon, replayLink, reviewIcon, withIcon } from "./dom.js";
import { DIFFICULTY_NAMES } from "./view.js";

export const SCREENS = ["mygames"];
const PAGE = 20;

export class MyGames {
  constructor(controller) {
    this.c = controller;
    this.difficulty = "";
    this.reset();
  }

  reset() {
    this.games = null;
    this.next = null;
    this.error = "";
    this.more = false;
  }

  async load() {
    try {
      const words = await import("./puzzles.js");
      await words.loadWordsFor(this.c.t);
    } catch {
      this.error = this.c.t("screen_not_loaded");
      return this.c.paint();
    }
    this.reset();
    this.c.paint();
    return this.page(null);
  }

  async page(before) {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (before) query.set("before", before);
    if (this.difficulty) query.set("difficulty", this.difficulty);
    this.more = Boolean(before);
    try {
      const found = await this.c.api.request("GET", `/api/players/me/games?${query}`);
      this.games = before ? [...(this.games || []), ...found.games] : found.games;
      this.next = found.next;
      this.error = "";
    } catch (error) {
      this.error = this.c.errorText(error);
    }
    this.more = false;
    if (this.c.screen === "mygames") this.c.paint();
  }

  async handle(intent, data) {
    if (intent === "mygames-difficulty") {
      this.difficulty = data.difficulty || "";
      this.games = null;
      this.c.paint();
      return this.page(null);
    }
    if (intent === "mygames-more" && this.next) return this.page(this.next);
  }

  sheet(screen, t) {
    const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
      button("mygames-difficulty", t("mygames_all"), { "data-difficulty": "", "aria-pressed": String(!this.difficulty) }),
      ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
        button("mygames-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === this.difficulty) })));
    let body;
    if (this.error) body = [el("p", { class: "error-text", role: "alert", text: this.error })];
    else if (!this.games) body = [el("p", { text: t("loading") })];
    else if (!this.games.length) body = [el("p", { text: t("mygames_none") })];
    else {
      body = [el("ul", { class: "my-games" }, ...this.games.map((g) => this.row(t, g))),
        this.next ? button("mygames-more", t("mygames_more"), { disabled: this.more, id: "mygames-more" }) : null];
    }
    return [t("title_mygames"), tabs, ...body];
  }

  row(t, g) {
    const when = new Date(g.finished_at).toLocaleDateString(t.language, { day: "numeric", month: "short", year: "numeric" });
    let kind = g.challenge ? t("mygames_challenge") : "";
    if (g.daily) kind = t("mygames_daily", { date: g.daily });
    else if (g.past_daily) kind = t("mygames_past_daily", { date: g.past_daily });
    return el("li", { class: "my-game" },
      el("span", { class: "my-game-score num", text: t.number(g.score) }),
      el("span", { class: "my-game-what" },
        el("strong", { text: DIFFICULTY_NAMES[g.difficulty] }),
        el("span", { text: [when, kind].filter(Boolean).join(" · ") })),
      el("span", { class: "my-game-links" },
        withIcon(button("review", "", { className: "button small", "data-game": g.id, "aria-label": t("mygames_review", { score: g.score, date: when }) }), reviewIcon()),
        replayLink(g.id, "", { className: "button small watch", "aria-label": t("mygames_replay", { score: g.score, date: when }) }, playIcon())));
  }
}

export { MyGames as Screens };
