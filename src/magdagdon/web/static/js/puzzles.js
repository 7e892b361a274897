// Puzzles: a turn of a real game where one plan stands out, played as a game's turn (stage and
// CONFIRM, a power, a RUIN) and graded by the coach on the server. Its screen: the mode (RATED,
// STREAK, DAILY, YOURS), the difficulty and theme asked, the puzzle's board and dice, and once
// the plan is sent, whether it was the best with both expected scores, the best plan on the board
// and the rating's change. Imported when the screen first opens (controller.js routes to it),
// with its words (i18n/puzzles/<language>.json) and styles; every rule and every score is the
// server's: each action goes to the server, which answers the turn's view.

import { ApiError } from "./api.js";
import { dayText, shareNote } from "./daily.js";
import { button, el, svg } from "./dom.js";
import { share } from "./share.js";
import { miniBoard } from "./sheets.js";
import { DIFFICULTY_NAMES, capitalized, describePlan, dieFace, lineSum, ruinIcon, squareAt } from "./view.js";

if (!document.querySelector("link[data-puzzles]")) {
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../css/puzzles.css", import.meta.url).href, "data-puzzles": "" }));
}

export const SCREENS = ["puzzles"];
const MODES = ["rated", "streak", "daily", "own"];
const THEMES = ["straight", "four", "two_pairs", "keeps_straight", "keeps_four", "keeps_two_pairs", "fewer_dice", "increase", "decrease", "reroll", "rescue", "ruin", "keep_power", "last_squares"];
const OWN_WAIT = 3000; // ms between asks while the player's games are searched
const KEPT = "magdagdon-puzzle"; // this tab's puzzle in play (a reload goes on with it)

// The module's words, loaded once per language into the page's translator.
const loaded = new Set();
async function loadWords(t) {
  if (loaded.has(t.language)) return;
  const response = await fetch(new URL(`../i18n/puzzles/${t.language}.json`, import.meta.url));
  if (!response.ok) throw new Error(`puzzles' words: ${response.status}`);
  t.extend(await response.json());
  loaded.add(t.language);
}

// (MY GAMES's words are the puzzles' too)
export const loadWordsFor = loadWords;

// The rating's history as a line (STATISTICS shows it too).
export function ratingChart(t, history) {
  if (history.length < 2) return null;
  const ratings = history.map((h) => h.rating);
  const low = Math.min(...ratings) - 20;
  const high = Math.max(...ratings) + 20;
  const width = 300;
  const height = 90;
  const x = (i) => (i / (history.length - 1)) * (width - 8) + 4;
  const y = (r) => height - 4 - ((r - low) / (high - low)) * (height - 8);
  const d = ratings.map((r, i) => `${i ? "L" : "M"}${x(i).toFixed(1)} ${y(r).toFixed(1)}`).join("");
  const last = ratings[ratings.length - 1];
  return el("figure", { class: "rating-chart" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("puzzle_chart_label", { n: history.length, first: Math.round(ratings[0]), last: Math.round(last) }) },
      svg("path", { d, fill: "none", stroke: "currentColor", "stroke-width": 2.5, "stroke-linejoin": "round" }),
      ...history.map((h, i) => svg("circle", { cx: x(i).toFixed(1), cy: y(h.rating).toFixed(1), r: 2.6, class: h.solved ? "won" : "lost" }))),
    el("figcaption", { text: t("puzzle_chart_caption", { low: Math.round(Math.min(...ratings)), high: Math.round(Math.max(...ratings)) }) }));
}

export class Puzzles {
  constructor(controller) {
    this.c = controller;
    this.mode = "rated";
    this.difficulty = controller.game ? controller.game.difficulty : "peaceful";
    this.theme = "";
    this.clear();
  }

  // What was shown of the player is dropped (signed in, out, deleted), this tab's puzzle too.
  reset() {
    this.clear();
    try { sessionStorage.removeItem(KEPT); } catch { /* storage refused: nothing kept */ }
  }

  clear() {
    this.puzzle = null; // the puzzle's view from the server
    this.view = null; // the turn as a game view, after this.actions
    this.actions = [];
    this.selected = null;
    this.reroll = false;
    this.chosen = new Set();
    this.ruin = null;
    this.focus = 0; // the board's square the keyboard is on (arrows move it)
    this.result = null;
    this.summary = null;
    this.error = "";
    this.empty = false; // none left to give
    this.busy = false;
    clearTimeout(this.ownTimer);
  }

  get t() { return this.c.t; }

  // STATISTICS's chart of the rating's history: a function of the translator, words loaded.
  async chart(history) {
    await loadWords(this.c.t);
    return (t) => ratingChart(t, history);
  }

  request(method, path, body) { return this.c.api.request(method, path, body); }

  async load() {
    this.error = "";
    try {
      await loadWords(this.t);
    } catch {
      this.error = this.t("screen_not_loaded");
      return this.c.paint();
    }
    // the rating's line first: the puzzle is then drawn once, not again under a tap
    await this.loadSummary(false);
    if (!this.puzzle) {
      let kept = null;
      try { kept = sessionStorage.getItem(KEPT); } catch { /* none */ }
      if (kept) await this.show(() => this.request("GET", `/api/puzzles/${encodeURIComponent(kept)}`), true);
      else await this.next();
    } else this.c.paint();
  }

  async loadSummary(paint = true) {
    try {
      this.summary = await this.request("GET", "/api/players/me/puzzles");
    } catch { /* the line stays as it was */ }
    if (paint && this.c.screen === "puzzles") this.c.paint();
  }

  async next() {
    const query = new URLSearchParams();
    if (this.mode === "daily") return this.show(() => this.request("GET", "/api/puzzles/daily"));
    query.set("mode", this.mode);
    if (this.mode !== "own") query.set("difficulty", this.difficulty); // (yours: any difficulty)
    if (this.theme && this.mode === "rated") query.set("theme", this.theme);
    return this.show(() => this.request("GET", `/api/puzzles/next?${query}`));
  }

  // A puzzle asked for (ask: the request), drawn once it comes.
  async show(ask, again = false) {
    const ticket = this.asked = (this.asked || 0) + 1; // only the last ask is drawn
    this.result = null;
    this.puzzle = this.view = null;
    this.actions = [];
    this.selected = this.ruin = null;
    this.askRuin = false;
    this.focus = 0;
    this.reroll = false;
    this.chosen.clear();
    this.empty = false;
    this.error = "";
    this.c.paint();
    try {
      const puzzle = await ask();
      if (ticket !== this.asked) return;
      this.puzzle = puzzle;
      this.view = puzzle.view;
      if (puzzle.mode !== "own" && puzzle.mode !== "daily") this.difficulty = puzzle.difficulty;
      try { sessionStorage.setItem(KEPT, String(this.puzzle.id)); } catch { /* not kept */ }
    } catch (error) {
      if (ticket !== this.asked) return;
      if (again) {
        try { sessionStorage.removeItem(KEPT); } catch { /* none */ }
        return this.next();
      }
      if (error instanceof ApiError && error.code === "puzzle_not_found") this.empty = true;
      else this.error = this.c.errorText(error);
      if (this.empty && this.mode === "own") this.waitForOwn();
    }
    if (this.c.screen === "puzzles") this.c.paint();
  }

  // YOURS with none waiting: the player's games may be searched now; ask again when done.
  waitForOwn() {
    clearTimeout(this.ownTimer);
    this.ownTimer = setTimeout(async () => {
      if (this.c.screen !== "puzzles" || this.mode !== "own") return;
      await this.loadSummary();
      const own = this.summary && this.summary.own;
      if (own && own.left > 0) return this.next();
      if (own && own.searching) this.waitForOwn();
    }, OWN_WAIT);
  }

  // --- what the player does -------------------------------------------------------------------

  async handle(intent, data) {
    if (this.busy) return;
    switch (intent) {
      case "puzzle-mode": this.mode = MODES.includes(data.mode) ? data.mode : "rated"; return this.next();
      case "puzzle-difficulty": this.difficulty = DIFFICULTY_NAMES[data.value] ? data.value : "peaceful"; return this.next();
      case "puzzle-theme": this.theme = THEMES.includes(data.value) ? data.value : ""; return this.next();
      case "puzzle-next": this.shared = null; return this.next();
      case "puzzle-share": return this.shareDaily();
      case "puzzle-key": return this.key(data);
      case "puzzle-die": return this.tapDie(Number(data.die));
      case "puzzle-square": return this.tapSquare(Number(data.square));
      case "puzzle-adjust": return this.act({ type: "adjust", die: Number(data.die), delta: Number(data.delta) });
      case "puzzle-take-back":
        if (this.view.staged.length) return this.act({ type: "unstage_all" });
        return;
      case "puzzle-reroll-mode":
        this.reroll = !this.reroll;
        this.chosen.clear();
        this.selected = null;
        return this.c.paint();
      case "puzzle-reroll":
        if (this.chosen.size) return this.send({ type: "reroll", dice: [...this.chosen].sort() });
        return;
      case "puzzle-confirm":
        if (this.ruin !== null) return this.send({ type: "accept_magdagdon", cell: this.ruin });
        if (this.view.phase === "magdagdon") { // no square chosen yet: the keyboard goes to one
          this.askRuin = true;
          this.c.view.announce(this.t("choose_ruin"));
          return this.focusSquare(this.view.ruin_choices.includes(this.focus) ? this.focus : this.view.ruin_choices[0]);
        }
        if (this.view.can_confirm) return this.send({ type: "confirm" });
        return;
    }
  }

  // The game board's keys on the puzzle's (input.js): 1–4 a die (the keyboard goes to the first
  // square that takes it), arrows between squares, Enter CONFIRM unless on a control (a square
  // is a button: Enter places there), Backspace takes the last die back, C confirms.
  key({ command, die, by }) {
    if (this.result || !this.view) return;
    switch (command) {
      case "die": {
        this.tapDie(Number(die));
        const chosen = this.selected !== null ? this.view.dice[this.selected] : null;
        if (chosen && chosen.legal_cells.length) this.focusSquare(chosen.legal_cells[0]);
        return;
      }
      case "move-focus": {
        const r = Math.min(3, Math.max(0, Math.floor(this.focus / 4) + by[0]));
        const c = Math.min(3, Math.max(0, (this.focus % 4) + by[1]));
        return this.focusSquare(4 * r + c);
      }
      case "take-back-last": {
        const staged = this.view.staged;
        if (staged.length) return this.act({ type: "unstage", die: staged[staged.length - 1] });
        return;
      }
      case "enter": case "confirm": return this.handle("puzzle-confirm", {});
    }
  }

  // The keyboard on that square of the board (the board is one stop of Tab: its square).
  focusSquare(square) {
    this.focus = square;
    this.c.paint();
    this.c.doc.querySelector(`#sheet .puzzle-board [data-square="${square}"]`)?.focus();
  }

  tapDie(die) {
    if (this.result || !this.view) return;
    const found = this.view.dice[die];
    if (!found) return;
    if (this.reroll) {
      if (!found.can_reroll) return;
      if (this.chosen.has(die)) this.chosen.delete(die);
      else this.chosen.add(die);
      return this.c.paint();
    }
    if (found.cell !== null) return this.act({ type: "unstage", die });
    this.selected = this.selected === die ? null : die;
    return this.c.paint();
  }

  tapSquare(square) {
    if (this.result || !this.view) return;
    const view = this.view;
    this.focus = square;
    if (view.phase === "magdagdon") {
      if (!view.ruin_choices.includes(square)) return;
      this.ruin = this.ruin === square ? null : square;
      return this.c.paint();
    }
    const staged = view.dice.find((d) => d.cell === square);
    if (staged) return this.act({ type: "unstage", die: staged.index });
    if (this.selected === null) {
      // the only die that can go there, or the first with a square
      const free = view.dice.filter((d) => d.cell === null && d.legal_cells.includes(square));
      if (free.length !== 1) return;
      this.selected = free[0].index;
    }
    const die = view.dice[this.selected];
    if (!die || !die.legal_cells.includes(square)) return;
    return this.act({ type: "stage", die: this.selected, cell: square });
  }

  // An action inside the turn: the server answers the turn's view after it.
  async act(action) {
    if (this.result || !this.puzzle) return;
    this.busy = true;
    try {
      const actions = [...this.actions, action];
      this.view = await this.request("POST", `/api/puzzles/${this.puzzle.id}/view`, { actions });
      this.actions = actions;
      this.selected = null;
      this.ruin = null;
      this.error = "";
      if (action.type === "adjust") this.c.view.announce(this.t("puzzle_power_used"));
    } catch (error) {
      this.error = this.c.errorText(error);
    } finally {
      this.busy = false;
    }
    this.c.paint();
  }

  // The action that ends the turn: the whole plan is graded.
  async send(action) {
    if (this.result || !this.puzzle) return;
    this.streakBefore = this.summary ? this.summary.rating.streak : 0; // (an ended STREAK says its length)
    this.busy = true;
    this.c.paint();
    try {
      this.result = await this.request("POST", `/api/puzzles/${this.puzzle.id}/attempts`, { actions: [...this.actions, action] });
      this.result.plan = [...this.actions, action];
      try { sessionStorage.removeItem(KEPT); } catch { /* none */ }
      this.error = "";
      this.c.view.announce(this.t(this.result.solved ? "puzzle_solved" : "puzzle_missed"));
      await this.loadSummary(false); // (the rating's line with the verdict, in one paint)
      this.c.dialogs.focusAfterPaint("#puzzle-next"); // (the verdict is said: the way on has the keys)
    } catch (error) {
      this.error = this.c.errorText(error);
    } finally {
      this.busy = false;
    }
    this.c.paint();
  }

  // --- drawing ---------------------------------------------------------------------------------

  sheet(screen, t) {
    if (!loaded.has(t.language)) {
      loadWords(t).then(() => this.c.screen === "puzzles" && this.c.paint(), () => {});
      return [t("title_puzzles"), el("p", { text: t("loading") })];
    }
    return [t("title_puzzles"), this.modeBar(t), this.chooser(t), ...this.body(t)];
  }

  modeBar(t) {
    return el("div", { class: "tabs puzzle-modes", role: "group", "aria-label": t("puzzle_mode") },
      ...MODES.map((mode) => button("puzzle-mode", t(`puzzle_mode_${mode}`), { "data-mode": mode, "aria-pressed": String(mode === this.mode) })));
  }

  chooser(t) {
    if (this.mode === "daily" || this.mode === "own") return null;
    const level = el("label", { class: "puzzle-pick" }, el("span", { class: "visually-hidden", text: t("difficulty") }),
      el("select", { "data-change": "puzzle-difficulty", id: "puzzle-difficulty" },
        ...Object.entries(DIFFICULTY_NAMES).map(([d, name]) => el("option", { value: d, text: name, selected: d === this.difficulty }))));
    const themes = this.mode === "rated"
      ? el("label", { class: "puzzle-pick" }, el("span", { class: "visually-hidden", text: t("puzzle_theme") }),
        el("select", { "data-change": "puzzle-theme", id: "puzzle-theme" },
          el("option", { value: "", text: t("puzzle_theme_any"), selected: !this.theme }),
          ...THEMES.map((theme) => el("option", { value: theme, text: t(`theme_${theme}`), selected: theme === this.theme }))))
      : null;
    return el("div", { class: "puzzle-chooser" }, level, themes);
  }

  ratingLine(t) {
    const s = this.summary;
    if (!s) return null;
    if (this.mode === "own") return el("p", { class: "puzzle-rating", text: t("puzzle_own_rating", { rating: Math.round(s.own.rating), n: s.own.left }) });
    if (this.mode === "streak") return el("p", { class: "puzzle-rating", text: t("puzzle_streak_line", { streak: s.rating.streak, best: s.rating.best_streak }) });
    return el("p", { class: "puzzle-rating", text: t("puzzle_rating_line", { rating: Math.round(s.rating.rating), solved: s.rating.solved, n: s.rating.attempts }) });
  }

  body(t) {
    if (this.error && !this.puzzle) return [el("p", { class: "error-text", role: "alert", text: this.error }), button("puzzle-next", t("puzzle_try_again"))];
    if (this.empty) {
      const searching = this.mode === "own" && this.summary && this.summary.own.searching;
      return [this.ratingLine(t), el("p", { role: "status", text: t(this.mode === "own" ? (searching ? "puzzle_own_searching" : "puzzle_own_none") : "puzzle_none_left") })];
    }
    if (!this.puzzle || !this.view) return [el("p", { role: "status", text: t("loading") })];
    return this.result ? this.resultPart(t) : [el("div", { class: "puzzle-play", "data-keys": "puzzle" }, ...this.playPart(t))];
  }

  task(t) {
    const v = this.view;
    const p = this.puzzle;
    // the task and the turn: "Turn 7: place at least 2 dice for the best final score"
    const turn = (p.position.turns || 0) + 1;
    const what = v.phase === "magdagdon" ? t("puzzle_task_magdagdon", { turn }) : t("puzzle_task_place", { n: v.required, turn });
    const powers = !v.powers_total ? "" : v.powers_left ? t("powers_status", { n: v.powers_left, cost: v.next_power_cost }) : t("puzzle_powers", { n: 0 });
    // (the daily and STREAK puzzles are not rated: no ratings are shown with them)
    const rated = p.mode === "daily" || p.mode === "streak" ? "" : t("puzzle_rated_at", { rating: Math.round(p.rating), mine: Math.round(p.player_rating) });
    const day = p.mode === "daily" && p.date ? t("puzzle_daily_of", { date: dayText(t, p.date) }) : "";
    const more = [day, powers, rated].filter(Boolean).join(" · ");
    return el("p", { class: "puzzle-task" },
      el("strong", { text: `${DIFFICULTY_NAMES[p.difficulty]} · ${what}` }), more ? " · " : null,
      more ? el("span", { class: "puzzle-ratings", text: more }) : null);
  }

  playPart(t) {
    const v = this.view;
    const parts = [this.task(t), this.boardPart(t, v), this.trayPart(t, v), this.powerPart(t, v)];
    if (v.phase === "magdagdon") {
      // ACCEPT MAGDAGDON, as in the game: its RUIN goes on the square tapped, which the
      // button then says; pressed before one is, it asks for one
      const label = this.ruin !== null ? t("puzzle_ruin_here", { where: squareAt(t, this.ruin) }) : t("accept_magdagdon");
      if (this.askRuin && this.ruin === null) parts.push(el("p", { class: "puzzle-ruin-line", role: "status", text: t("choose_ruin") }));
      // (REROLL stands beside it, as in the game; while dice are chosen for it, neither)
      if (!this.reroll) {
        parts.push(el("div", { class: "actions puzzle-actions" },
          this.canReroll(v) ? button("puzzle-reroll-mode", t("reroll")) : null,
          button("puzzle-confirm", `${label} (−${v.ruin_penalty})`, { className: "button danger", disabled: this.busy, id: "puzzle-confirm" })));
      }
    } else {
      parts.push(el("div", { class: "actions puzzle-actions" },
        v.staged.length ? button("puzzle-take-back", t("take_back_all")) : null,
        button("puzzle-confirm", t("confirm"), { className: "button primary", disabled: this.busy || !v.can_confirm, id: "puzzle-confirm" })));
    }
    if (this.error) parts.push(el("p", { class: "error-text", role: "alert", text: this.error }));
    return parts;
  }

  boardPart(t, v) {
    const board = v.staged_board.replaceAll("/", "");
    const die = this.selected !== null ? v.dice[this.selected] : null;
    const legal = new Set(die ? die.legal_cells : []);
    const ruins = new Set(v.phase === "magdagdon" ? v.ruin_choices : []);
    const staged = new Set(v.dice.filter((d) => d.cell !== null).map((d) => d.cell));
    const onSquare = new Map(v.dice.filter((d) => d.cell !== null).map((d) => [d.cell, d]));
    const squares = [...board].map((ch, sq) => {
      const classes = ["square"];
      if (legal.has(sq)) classes.push("legal");
      if (ruins.has(sq)) classes.push("ruin-choice");
      if (onSquare.has(sq)) classes.push("staged");
      if (ch === "X" || this.ruin === sq) classes.push("ruin");
      // said as the game board says it: what is there, and whether the selected die (or the
      // RUIN) can go there, not only by its colour
      let what = t("square_empty");
      if (ch === "X" || this.ruin === sq) what = t("square_ruin");
      else if (onSquare.has(sq)) what = t("square_staged", { n: ch, die: onSquare.get(sq).index + 1 });
      else if (ch !== ".") what = t("square_number", { n: ch });
      const can = legal.has(sq) ? t("square_legal", { n: die.value }) : ruins.has(sq) && this.ruin !== sq ? t("square_can_ruin") : "";
      const label = [capitalized(squareAt(t, sq)), what, can].filter(Boolean).join(", ");
      return el("button", { type: "button", class: classes.join(" "), "data-intent": "puzzle-square", "data-square": sq, "aria-label": label, tabIndex: sq === this.focus ? 0 : -1 },
        ch === "X" || this.ruin === sq ? ruinIcon() : ch !== "." ? dieFace(Number(ch)) : null);
    });
    // each row's and column's sum and bonus (or the bonus it can still make) beside it, as the
    // game board shows them
    const prospects = v.prospects || [];
    const sum = (kind, line, n) => {
      const node = el("div", { class: `sum ${kind}` });
      lineSum(node, line, prospects[kind === "row" ? n : 4 + n], t, t(kind === "row" ? "row_sum" : "column_sum", { n: n + 1 }), false);
      return node;
    };
    const cells = [];
    for (let r = 0; r < 4; r++) cells.push(...squares.slice(4 * r, 4 * r + 4), sum("row", v.score.rows[r], r));
    v.score.columns.forEach((line, c) => cells.push(sum("col", line, c)));
    return el("div", { class: "puzzle-board", role: "group", "aria-label": t("board") }, ...cells);
  }

  trayPart(t, v) {
    return el("div", { class: "tray puzzle-tray", role: "group", "aria-label": t("tray") },
      ...v.dice.map((d) => {
        const classes = ["die"];
        if (this.selected === d.index) classes.push("selected");
        if (this.chosen.has(d.index)) classes.push("chosen");
        if (d.cell !== null) classes.push("on-board");
        const label = t("die_label", { n: d.index + 1, value: d.value, where: d.cell === null ? t("die_in_tray") : t("die_on_square", { n: d.cell + 1 }) });
        const nowhere = d.cell === null && !d.legal_cells.length ? `, ${t("die_fits_nowhere")}` : "";
        return el("button", { type: "button", class: classes.join(" "), "data-intent": "puzzle-die", "data-die": d.index, "aria-pressed": String(this.selected === d.index || this.chosen.has(d.index)), "aria-label": label + nowhere }, dieFace(d.value));
      }));
  }

  canReroll(v) {
    return v.can_use_power && v.dice.some((d) => d.can_reroll);
  }

  powerPart(t, v) {
    if (!v.can_use_power) return null;
    const parts = [];
    if (v.phase === "magdagdon") {
      // each certain rescue as the game shows it: the die's face and the change (dice of the
      // same value are alike: one button for each value and change)
      const seen = new Set();
      for (const r of v.rescues) {
        const key = `${v.dice[r.die].value}${r.delta}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const change = r.delta > 0 ? "+1" : "−1";
        parts.push(el("button", { type: "button", class: "button rescue", "data-intent": "puzzle-adjust", "data-die": r.die, "data-delta": r.delta, "aria-label": t(r.delta > 0 ? "puzzle_rescue_up" : "puzzle_rescue_down", { n: r.die + 1 }) },
          dieFace(v.dice[r.die].value), el("span", { text: change })));
      }
    } else if (this.selected !== null && !this.reroll) {
      const die = v.dice[this.selected];
      // (the selected die is the one changed: the buttons say only by how much)
      if (die.can_decrease) parts.push(button("puzzle-adjust", "−1", { "data-die": die.index, "data-delta": -1, "aria-label": t("puzzle_adjust_die", { n: die.index + 1, delta: "−1" }) }));
      if (die.can_increase) parts.push(button("puzzle-adjust", "+1", { "data-die": die.index, "data-delta": 1, "aria-label": t("puzzle_adjust_die", { n: die.index + 1, delta: "+1" }) }));
    }
    if (this.canReroll(v) && (v.phase !== "magdagdon" || this.reroll)) {
      parts.push(button("puzzle-reroll-mode", t(this.reroll ? "cancel" : "reroll"), { className: this.reroll ? "button selected" : "button" }));
      if (this.reroll) parts.push(button("puzzle-reroll", t("puzzle_reroll_n", { n: this.chosen.size }), { className: "button primary", disabled: !this.chosen.size }));
    }
    return el("div", { class: "powers puzzle-powers", role: "group", "aria-label": t("puzzle_power_cost", { points: v.next_power_cost }) }, ...parts);
  }

  // SHARE the daily puzzle's result: its day, solved or missed, the two plans' expected finals,
  // and the way to the game (no plan: it would give the answer away).
  async shareDaily() {
    const t = this.c.t;
    const r = this.result;
    const p = this.puzzle;
    if (!r) return;
    const day = p.date ? t("puzzle_daily_of", { date: dayText(t, p.date) }) : t("puzzle_daily");
    const verdict = `${r.solved ? "✅" : "❌"} ${t(r.solved ? "puzzle_solved" : "puzzle_missed")}`;
    const text = [`MAGDAGDON · ${day}`, verdict, `${this.c.doc.defaultView.location.origin}/`].join("\n");
    const status = await share(text);
    this.shared = { status, text, id: null };
    if (status === "copied") this.c.view.announce(t("share_copied"));
    this.c.paint();
  }

  // The result's line of a puzzle that is not rated: the STREAK's count (or that it ended, and
  // at how many), the daily's, or one tried before.
  unratedLine(t, r, p) {
    if (ended(r, p)) return t("puzzle_streak_ended", { n: this.streakBefore || 0 });
    return t(p.mode === "streak" ? "puzzle_streak_now" : p.mode === "daily" ? "puzzle_daily_not_rated" : "puzzle_not_rated", { n: r.streak });
  }

  // Why: on a miss, what the best plan does that the player's does not (the server compares
  // the two, line by line: the first three things); else why the best plan is best.
  whyPart(t, r) {
    const found = r.solved ? [] : (r.differences || []).slice(0, 3);
    if (!found.length) return [el("p", { class: "puzzle-reason", text: reason(t, r.themes) })];
    return [el("p", { class: "puzzle-differences-lead", text: t("puzzle_differences") }),
      el("ul", { class: "puzzle-differences" }, ...found.map((d) => el("li", { text: difference(t, d) })))];
  }

  resultPart(t) {
    const r = this.result;
    const p = this.puzzle;
    const change = r.player_rating.after - r.player_rating.before;
    const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
    const plan = { plan: r.best, board: r.best_board };
    return [
      this.ratingLine(t),
      el("p", { class: `puzzle-verdict ${r.solved ? "good" : "bad"}`, role: "status", text: t(r.solved ? "puzzle_solved" : "puzzle_missed") }),
      el("p", { text: t("puzzle_expected", { yours: t.decimal(r.expected.yours), best: t.decimal(r.expected.best) }) }),
      r.rated
        ? el("p", { class: "puzzle-change", text: t("puzzle_rating_change", { before: Math.round(r.player_rating.before), after: Math.round(r.player_rating.after), change: `${sign}${Math.abs(Math.round(change))}` }) })
        : el("p", { class: "puzzle-change", text: this.unratedLine(t, r, p) }),
      el("div", { class: "actions" },
        button("puzzle-next", t(ended(r, p) ? "puzzle_try_again" : "puzzle_next"), { className: "button primary", id: "puzzle-next" }),
        p.mode === "daily" ? button("puzzle-share", t("share")) : null),
      p.mode === "daily" ? shareNote(t, this.shared, null) : null,
      el("div", { class: "review-boards" },
        r.your_board ? miniBoard(t, t("puzzle_your_plan"), p.position.board, r.your_board) : el("p", { text: t("puzzle_you_rerolled") }),
        r.best_board ? miniBoard(t, t("puzzle_best_plan"), p.position.board, r.best_board) : null),
      el("p", { class: "review-plan", text: `${t("puzzle_best_plan")}: ${describePlan(t, plan, { dice: p.position.dice.map((value) => ({ value })) })}` }),
      ...this.whyPart(t, r),
    ];
  }
}

// A STREAK missed: it ended (TRY AGAIN starts another).
const ended = (r, p) => p.mode === "streak" && !r.solved;

// One thing the best plan does that the player's does not (ai/puzzles.py's differences), in
// the game's words.
function difference(t, d) {
  const line = d.line ? t(`diff_${d.line}`, { n: d.n }) : "";
  const bonus = d.bonus ? t(`bonus_${d.bonus}`) : "";
  if (d.kind === "completes" || d.kind === "gave_up") return t(`diff_${d.kind}`, { bonus, line });
  if (d.kind === "placed") return t("diff_placed", { best: d.best, yours: d.yours });
  return t(`diff_${d.kind}`, { n: d.n });
}

// Why the best plan is best, in words, from what it does (its themes).
function reason(t, themes) {
  // (the first two things it does: a longer list is harder to read than to play)
  const said = themes.filter((theme) => THEMES.includes(theme)).slice(0, 2).map((theme) => t(`reason_${theme}`));
  return said.length ? t("puzzle_reason", { why: said.join("; ") }) : t("puzzle_reason_score");
}

export { Puzzles as Screens };
