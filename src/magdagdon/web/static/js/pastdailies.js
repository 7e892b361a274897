// PAST DAILIES: a month of dailies of a difficulty, newest first: the ones the player played
// (with the score and the coach's), and any other day that is over, playable now on its dice
// as a past daily (outside that day's leaderboard, streaks and leagues: the server keeps it so).
// Imported when the screen first opens (controller.js routes to it); built from what the
// server sent, no rule of its own.

import { ApiError } from "./api.js";
import { dayText } from "./daily.js";
import { button, el } from "./dom.js";
import { DIFFICULTY_NAMES } from "./view.js";

export const SCREENS = ["pastdaily"];

export class PastDailies {
  constructor(controller) {
    this.c = controller;
    this.difficulty = "peaceful";
    this.reset();
  }

  reset() {
    this.month = null; // null: this month (the server's)
    this.data = null;
    this.error = "";
  }

  async load() {
    this.data = null;
    this.error = "";
    if (this.c.game) this.difficulty = this.c.game.difficulty;
    this.c.paint();
    return this.fetch();
  }

  async fetch() {
    const asked = `${this.difficulty}|${this.month}`;
    const query = this.month ? `?month=${encodeURIComponent(this.month)}` : "";
    try {
      const data = await this.c.api.request("GET", `/api/daily/past/${encodeURIComponent(this.difficulty)}${query}`);
      if (asked !== `${this.difficulty}|${this.month}`) return; // asked for another meanwhile
      this.data = data;
      this.error = "";
    } catch (error) {
      this.error = this.c.errorText(error);
    }
    if (this.c.screen === "pastdaily") this.c.paint();
  }

  async handle(intent, data) {
    if (intent === "pastdaily-difficulty") {
      this.difficulty = data.difficulty;
      this.data = null;
      this.c.paint();
      return this.fetch();
    }
    if (intent === "pastdaily-month") {
      this.month = data.month;
      this.data = null;
      this.c.paint();
      return this.fetch();
    }
    if (intent === "pastdaily-play") return this.play(data.date, data.difficulty);
  }

  // PLAY or CONTINUE a past day on the board; one finished meanwhile (another tab) opens its
  // leaderboard, where it is set beside the day.
  async play(date, difficulty) {
    const t = this.c.t;
    let played = false;
    await this.c.run(async () => {
      try {
        const game = await this.c.api.request("POST", `/api/daily/${encodeURIComponent(date)}/${encodeURIComponent(difficulty)}`);
        this.c.close();
        this.data = null; // (its day's state changes as it is played)
        this.c.setGame(game);
        this.c.view.announce(t("announce_past_daily", { number: game.past_daily.number, name: DIFFICULTY_NAMES[difficulty] }));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "daily_played") throw error;
        played = true;
      }
    });
    if (played) await this.c.openLeaderboard(date, difficulty);
    else this.c.focusBoard();
  }

  sheet(screen, t) {
    const title = t("title_past_dailies");
    const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
      ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
        button("pastdaily-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === this.difficulty) })));
    const note = el("p", { class: "note", text: t("past_daily_note") });
    if (this.error) return [title, note, tabs, el("p", { class: "error-text", role: "alert", text: this.error })];
    if (!this.data) return [title, note, tabs, el("p", { text: t("loading") })];
    const data = this.data;
    const monthName = new Date(`${data.month}-01T00:00:00Z`).toLocaleDateString(t.language, { timeZone: "UTC", month: "long", year: "numeric" });
    const months = el("div", { class: "tabs days" },
      button("pastdaily-month", `◂ ${t("previous_month")}`, { "data-month": data.previous || "", "data-focus": "previous-month", disabled: !data.previous }),
      button("pastdaily-month", `${t("next_month")} ▸`, { "data-month": data.next || "", "data-focus": "next-month", disabled: !data.next }));
    const days = [...data.days].reverse().map((d) => this.day(t, d, data.difficulty));
    return [title, note, tabs,
      el("h3", { class: "past-month", text: monthName }),
      el("ul", { class: "daily-list past-days" }, ...days),
      months];
  }

  day(t, d, difficulty) {
    const name = DIFFICULTY_NAMES[difficulty];
    const when = `${t("daily_number", { number: d.number })} · ${dayText(t, d.date)}`;
    const par = d.par !== null && d.par !== undefined ? ` · ${t("past_daily_par", { par: t.number(d.par) })}` : "";
    const label = (action) => `${action}: ${when}, ${name}`;
    let status;
    let action = null;
    switch (d.state) {
      case "played":
        status = t("past_daily_state_played", { score: t.number(d.score) }) + par;
        action = button("leaderboard", t("leaderboard"), { "data-date": d.date, "data-difficulty": difficulty, "aria-label": label(t("leaderboard")) });
        break;
      case "past_played":
        status = t("past_daily_state_past_played", { score: t.number(d.score) }) + par;
        action = button("leaderboard", t("leaderboard"), { "data-date": d.date, "data-difficulty": difficulty, "aria-label": label(t("leaderboard")) });
        break;
      case "past_active":
        status = t("daily_in_progress");
        action = button("pastdaily-play", t("continue"), { className: "button primary", "data-date": d.date, "data-difficulty": difficulty, "aria-label": label(t("continue")) });
        break;
      case "open":
      case "unfinished":
        status = t(d.state === "open" ? "daily_not_played" : "past_daily_state_unfinished");
        action = button("pastdaily-play", t("play"), { className: "button primary", "data-date": d.date, "data-difficulty": difficulty, "aria-label": label(t("play")) });
        break;
      default: // not over: today's daily, or yesterday's still to finish, are on DAILY
        status = t("past_daily_state_not_over");
        action = button("open", t("daily_challenge"), { "data-screen": "daily", "aria-label": label(t("daily_challenge")) });
    }
    return el("li", { class: `daily-item past-day past-${d.state}` },
      el("div", { class: "daily-head" }, el("strong", { text: when }), el("span", { class: "daily-status", text: status })),
      el("div", { class: "daily-buttons" }, action));
  }
}

export { PastDailies as Screens };
