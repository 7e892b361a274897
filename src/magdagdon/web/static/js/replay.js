// The replay viewer at /replay/{game_id}: a finished game turn by turn (each roll, the dice
// placed in their order, the Majda Powers, the RUINS, the score growing) for anyone with the
// link. The frames come from the server (GET /api/games/{id}/frames) and each carries its
// board, dice, score and powers: like the game, this holds no rules; it draws one frame and
// steps through them with buttons, a slider, autoplay and keys.

import { ApiError } from "./api.js";
import { el, replayAnimation, svg } from "./dom.js";
import { translatePage } from "./i18n.js";
import { DIFFICULTY_NAMES, capitalized, dieFace, lineSum, rowCol, ruinIcon, squareAt } from "./view.js";

const STEP_MS = 800; // autoplay: a frame every 0.8 s
// the step buttons' icons: a bar and a triangle each way
const ICONS = {
  first: ["M6 5v14", "M18 5L8 12l10 7z"],
  previous: ["M16 5L6 12l10 7z"],
  next: ["M8 5l10 7-10 7z"],
  last: ["M18 5v14", "M6 5l10 7-10 7z"],
};

function icon(name) {
  return svg("svg", { viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true" },
    ...ICONS[name].map((d) => svg("path", {
      d, stroke: "currentColor", "stroke-width": 2.2, "stroke-linejoin": "round", "stroke-linecap": "round",
      fill: d.endsWith("z") ? "currentColor" : "none",
    })));
}

// Called by app.js instead of the game when the page's address is /replay/{game_id}.
export async function startReplay({ api, t, doc, preferences, path }) {
  const saved = preferences.animations();
  const animate = saved === null ? !matchMedia("(prefers-reduced-motion: reduce)").matches : saved;
  const viewer = new ReplayViewer(doc, t, animate);
  translatePage(doc, t);
  try {
    let id = "";
    try {
      id = decodeURIComponent(path.slice("/replay/".length).split("/")[0]);
    } catch {
      id = ""; // a malformed address names no game
    }
    if (!id) throw new ApiError(404, "game_not_found", "", {});
    viewer.load(await api.frames(id));
  } catch (error) {
    viewer.fail(errorText(t, error), error instanceof ApiError && error.code === "daily_not_over");
  }
}

function errorText(t, error) {
  if (!(error instanceof ApiError)) return t("something_wrong");
  if (error.code === "daily_not_over") return t("replay_not_over");
  if (error.status === 404 || error.code === "game_not_over") return t("replay_not_found");
  const key = `error_${error.code}`;
  const text = t(key);
  return text === key ? t("something_wrong") : text;
}

// Per frame, what the turn placed so far: its dice and their squares (drawn as the game draws
// staged dice). Bookkeeping over the server's frames, not a rule.
function placedSoFar(frames) {
  let dice = new Set();
  let cells = new Set();
  let turn = null;
  return frames.map((f) => {
    if (f.kind === "roll" || f.kind === "end" || f.turn !== turn) {
      dice = new Set();
      cells = new Set();
      turn = f.turn;
    }
    if (f.kind === "place") {
      dice = new Set([...dice, ...f.changed]);
      if (f.cell !== null) cells = new Set([...cells, f.cell]);
    }
    return { dice, cells };
  });
}

class ReplayViewer {
  constructor(doc, t, animate) {
    this.doc = doc;
    this.t = t;
    this.animate = animate;
    this.data = null;
    this.index = 0;
    this.timer = null;
    doc.documentElement.classList.toggle("no-motion", !animate);
    doc.title = `${t("replay_title")} · MAGDAGDON`;
    this.app = doc.getElementById("app");
    this.app.classList.add("replaying");
    // The game's own parts go; the header stays, with the way to the game.
    for (const id of ["difficulty-chip", "menu-button"]) doc.getElementById(id)?.remove();
    this.app.querySelector(".status-area")?.remove();
    this.app.querySelector("main.play")?.remove();
    this.app.querySelector(".top").append(el("a", { class: "chip play-link", href: "/", text: t("replay_play_game") }));
    this.main = el("main", { class: "replay", "aria-labelledby": "replay-title" },
      el("h2", { id: "replay-title", class: "replay-title", text: t("replay_title") }),
      el("p", { class: "replay-meta", text: t("loading") }));
    this.app.querySelector(".top").after(this.main);
  }

  // The error, and the way on: a daily still being played is one to play oneself (today's
  // dailies open at /?open=daily); else the game. The header's link would say it twice.
  fail(text, daily = false) {
    this.app.querySelector(".play-link")?.remove();
    const onward = daily
      ? el("a", { class: "button primary", href: "/?open=daily", text: this.t("replay_play_daily") })
      : el("a", { class: "button primary", href: "/", text: this.t("replay_play_game") });
    this.main.replaceChildren(
      el("h2", { id: "replay-title", class: "replay-title", text: this.t("replay_title") }),
      el("p", { class: "error-text replay-error", role: "alert", text }),
      el("p", { class: "actions" }, onward));
    this.app.setAttribute("aria-busy", "false");
  }

  load(data) {
    const t = this.t;
    this.data = data;
    this.placed = placedSoFar(data.frames);
    const who = [data.name || t("anonymous"), DIFFICULTY_NAMES[data.difficulty] || data.difficulty];
    if (data.daily) who.push(t("replay_daily", { number: data.daily.number }));
    if (data.past_daily) who.push(t("replay_past_daily", { number: data.past_daily.number }));
    const stat = (key, id) => el("span", {}, el("span", { text: `${t(key)} ` }), el("strong", { id, class: "num" }));
    // the board as the game lays it out: each row's squares and its sum, then the columns' sums
    this.squares = Array.from({ length: 16 }, () => el("div", { class: "square", role: "img" }));
    this.rowSums = Array.from({ length: 4 }, () => el("div", { class: "sum row" }));
    this.colSums = Array.from({ length: 4 }, () => el("div", { class: "sum col" }));
    const rows = this.rowSums.flatMap((sum, r) => [...this.squares.slice(4 * r, 4 * r + 4), sum]);
    this.dice = Array.from({ length: 4 }, () => el("div", { class: "die", role: "img" }));
    this.tray = el("div", { class: "tray", role: "group", "aria-label": t("tray") });
    this.caption = el("p", { id: "replay-caption", class: "replay-caption", "aria-live": "polite" });
    this.position = el("label", { id: "replay-position", class: "replay-position", for: "replay-slider" });
    this.slider = el("input", { id: "replay-slider", type: "range", min: "0", max: String(data.frames.length - 1), step: "1", value: "0" });
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    const step = (name, go) => {
      const node = el("button", { type: "button", class: "button step", "data-replay": name, "aria-label": t(`replay_${name}`) }, icon(name));
      node.addEventListener("click", () => { if (node.getAttribute("aria-disabled") !== "true") go(); });
      return node;
    };
    this.buttons = {
      first: step("first", () => this.go(0)),
      previous: step("previous", () => this.go(this.index - 1)),
      next: step("next", () => this.go(this.index + 1)),
      last: step("last", () => this.go(this.data.frames.length - 1)),
    };
    this.playButton = el("button", { type: "button", class: "button primary play", "data-replay": "play" });
    this.playButton.addEventListener("click", () => this.toggle());
    this.main.replaceChildren(
      el("div", { class: "replay-head" },
        el("h2", { id: "replay-title", class: "replay-title", text: t("replay_title") }),
        el("p", { class: "replay-meta", text: who.join(" · ") })),
      // no powers count where the difficulty has none (NIGHTMARE): "Powers 0" said nothing
      el("p", { class: "status" }, stat("score", "replay-score"), stat("turn", "replay-turn"),
        data.powers_total === 0 ? null : stat("powers", "replay-powers")),
      el("div", { class: "replay-play" },
        el("section", { class: "board-area", "aria-label": t("board") },
          el("div", { class: "board replay-board" }, ...rows, ...this.colSums, el("div"))),
        el("section", { class: "replay-turn" },
          this.tray,
          this.caption,
          el("div", { class: "replay-slider" }, this.position, this.slider),
          el("div", { class: "replay-controls" },
            this.buttons.first, this.buttons.previous, this.playButton, this.buttons.next, this.buttons.last),
          el("p", { class: "replay-keys", text: t("replay_keys") }))));
    this.doc.addEventListener("keydown", (event) => this.key(event));
    this.show(0);
    this.app.setAttribute("aria-busy", "false");
  }

  // ← → one step, Home and End the first and last, Space plays or pauses, also on the step
  // buttons (as the keys' line says). The slider has its own arrows, Home and End; any other
  // focused button or link clicks on Space itself.
  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || this.doc.querySelector("dialog[open]")) return;
    const target = event.target;
    const onSlider = target === this.slider;
    if (!onSlider && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
    const last = this.data.frames.length - 1;
    const moves = { ArrowLeft: () => this.go(this.index - 1), ArrowRight: () => this.go(this.index + 1), Home: () => this.go(0), End: () => this.go(last) };
    if (moves[event.key] && !onSlider) moves[event.key]();
    else if (event.key === " " && (target.closest("[data-replay]") || !target.closest("button, a, summary"))) this.toggle();
    else return;
    event.preventDefault();
  }

  // A step chosen by the player stops the autoplay.
  go(index) {
    this.pause();
    this.show(index);
  }

  toggle() {
    if (this.timer !== null) return this.pause();
    const last = this.data.frames.length - 1;
    if (this.index >= last) this.show(0); // from the start again
    this.timer = setInterval(() => {
      this.show(this.index + 1);
      if (this.index >= last) this.pause();
    }, STEP_MS);
    this.caption.setAttribute("aria-live", "off"); // a frame every 0.8 s would drown a screen reader
    this.paintPlay();
  }

  pause() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.caption.setAttribute("aria-live", "polite");
    this.paintPlay();
  }

  paintPlay() {
    this.playButton.textContent = this.t(this.timer === null ? "replay_play" : "replay_pause");
  }

  // A frame in words: "Turn 3: rolled 2 4 4 5", "Placed 4 on row 2, column 3", …
  describe(i) {
    const t = this.t;
    const f = this.data.frames[i];
    const before = i > 0 ? this.data.frames[i - 1].dice : [];
    switch (f.kind) {
      case "start": return t("replay_start");
      case "roll": {
        const rolled = t("review_turn", { n: f.turn, roll: f.dice.join("\u00a0") }); // a roll never split over two lines
        return f.magdagdon ? `${rolled}. ${t("announce_magdagdon")}` : rolled;
      }
      case "place": return t("replay_place", { value: f.value ?? f.dice[f.changed[0]], ...rowCol(f.cell) });
      case "adjust": {
        const die = f.changed[0];
        const up = before.length && f.dice[die] > before[die];
        return t("replay_power", { what: t(up ? "hint_increase" : "hint_decrease", { n: die + 1 }) });
      }
      case "reroll": return t("replay_power", { what: t("reroll_dice", { dice: f.changed.map((d) => d + 1).join(", ") }) });
      case "ruin": return t("replay_ruin", rowCol(f.cell));
      case "end": return t("replay_end", { score: t.number(f.score) });
      default: return "";
    }
  }

  show(index) {
    const t = this.t;
    const frames = this.data.frames;
    const i = Math.max(0, Math.min(frames.length - 1, index));
    const forward = i === this.index + 1; // only a step forward moves things
    this.index = i;
    const f = frames[i];
    const placed = this.placed[i];
    const motion = this.animate && forward;
    // the board: this turn's dice as the game shows staged dice, this step's square outlined
    const cells = f.board.replaceAll("/", "");
    this.squares.forEach((sq, n) => {
      const ch = cells[n];
      const kind = ch === "X" ? "ruin" : ch === "." ? "empty" : placed.cells.has(n) ? "staged" : "number";
      const fresh = f.cell === n && (f.kind === "place" || f.kind === "ruin");
      sq.className = `square ${kind === "empty" ? "" : kind}${fresh ? " fresh" : ""}`;
      if (sq.dataset.key !== ch) {
        sq.dataset.key = ch;
        sq.replaceChildren();
        if (kind === "ruin") sq.append(ruinIcon());
        else if (kind !== "empty") sq.append(dieFace(Number(ch)));
      }
      if (fresh && motion) replayAnimation(sq, "pop");
      let what = t("square_empty");
      if (kind === "ruin") what = t("square_ruin");
      else if (kind === "staged") what = t("replay_square_this_turn", { n: ch });
      else if (kind === "number") what = t("square_number", { n: ch });
      const where = capitalized(squareAt(t, n));
      sq.setAttribute("aria-label", [where, what, fresh ? t("replay_square_new") : ""].filter(Boolean).join(", "));
    });
    f.rows.forEach((line, r) => lineSum(this.rowSums[r], line, null, t, t("row_sum", { n: r + 1 }), motion));
    f.columns.forEach((line, c) => lineSum(this.colSums[c], line, null, t, t("column_sum", { n: c + 1 }), motion));
    // the turn's dice: those this step changed marked, those placed faded as in the game
    const shown = this.dice.slice(0, f.dice.length);
    if (this.tray.children.length !== shown.length) this.tray.replaceChildren(...shown);
    f.dice.forEach((value, d) => {
      const node = this.dice[d];
      const changed = f.changed.includes(d);
      const onBoard = placed.dice.has(d);
      if (node.dataset.value !== String(value)) {
        node.dataset.value = String(value);
        node.replaceChildren(dieFace(value));
      }
      node.className = `die${changed ? " changed" : ""}${onBoard ? " on-board" : ""}`;
      if (changed && motion && f.kind !== "place") replayAnimation(node, "rolling");
      const state = [changed ? t("replay_die_changed") : "", onBoard ? t("replay_die_placed") : ""].filter(Boolean);
      node.setAttribute("aria-label", [t("replay_die", { n: d + 1, value }), ...state].join(", "));
    });
    // the numbers, the words, the controls
    const score = this.doc.getElementById("replay-score");
    const scoreText = t.number(f.score);
    if (score.textContent !== scoreText && score.textContent && motion) replayAnimation(score, "pop");
    score.textContent = scoreText;
    this.doc.getElementById("replay-turn").textContent = String(f.turn);
    const powers = this.doc.getElementById("replay-powers");
    if (powers) powers.textContent = String(f.powers_used);
    const words = this.describe(i);
    this.caption.textContent = words;
    this.caption.classList.toggle("magdagdon", f.phase === "magdagdon" || f.kind === "ruin");
    const position = t("replay_step", { n: i + 1, of: frames.length });
    this.position.textContent = position;
    this.slider.value = String(i);
    this.slider.setAttribute("aria-valuetext", `${position}: ${words}`);
    const last = frames.length - 1;
    for (const [name, off] of [["first", i === 0], ["previous", i === 0], ["next", i === last], ["last", i === last]]) {
      this.buttons[name].setAttribute("aria-disabled", String(off)); // disabled would drop the focus
    }
    this.paintPlay();
  }
}
