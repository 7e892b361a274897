// The guided first game: a few short steps on the real board, each pointing at the part of the
// screen it explains (outlined), on the player's own first roll: the first step waits for ROLL
// (the player's, no NEXT), the others explain the dice that landed. The step's card sits
// beside what it explains, above or below it, never over it. Shown once per browser
// (preferences.js), again from the menu's "How to play"; Escape or SKIP leaves it at any step.
// It holds no rules: its words are the catalog's (tap or click, as the screen is touched or
// pointed at), and the game goes on underneath it.
import { el } from "./dom.js";

const STEPS = [
  { target: "[data-intent='roll']", key: "tour_roll", waitsFor: "roll" },
  { target: "#tray", key: "tour_place", pointer: true },
  { target: "#board", key: "tour_lit", selects: true },
  { target: "#actions", key: "tour_confirm" },
  { target: "#board", key: "tour_score" },
  { target: "#status", key: "tour_magdagdon" },
];
const RING = 8; // the outline's offset and width around the target (CSS .tour-target)
const MARGIN = 6; // between the outline and the card, and the card and the screen's edge

export class Walkthrough {
  constructor(doc, preferences) {
    this.doc = doc;
    this.preferences = preferences;
    this.step = -1;
    this.t = null;
    this.returnTo = null;
    this.game = null;
    // the controller's: a die to select so that the lit squares are real (tour_lit)
    this.selectDie = () => {};
    doc.addEventListener("keydown", (event) => {
      // (Escape in a dialog over the tour is the dialog's)
      if (event.key === "Escape" && this.open && !doc.querySelector("dialog[open]")) {
        event.preventDefault();
        this.close();
      }
    });
    // a turned or resized screen: the target brought back into view, the card beside it
    doc.defaultView?.addEventListener("resize", () => {
      if (!this.open) return;
      this.mark()?.scrollIntoView({ block: "nearest", behavior: "instant" });
      this.place();
    });
    // the page scrolled, or a disclosure opened (the hint's other plans): the target moved
    doc.addEventListener("scroll", () => this.place(), { passive: true, capture: true });
    doc.addEventListener("toggle", () => this.place(), { capture: true });
  }

  get open() {
    return this.step >= 0;
  }

  // On a browser's first visit; later only when asked.
  maybeStart(t, game) {
    if (!this.preferences.tourSeen()) this.start(t, game);
  }

  // From the first step while the dice are still to be rolled, else from the first step about
  // the dice (or, on a finished game, from the score).
  start(t, game) {
    this.t = t;
    this.game = game;
    this.returnTo = this.doc.activeElement;
    const phase = game ? game.phase : "roll";
    const at = (key) => STEPS.findIndex((s) => s.key === key);
    this.show({ roll: 0, over: at("tour_score"), magdagdon: at("tour_magdagdon") }[phase] ?? 1);
  }

  // The game as drawn now: the roll a step waits for moves the tour on; the card follows
  // what it points at (the screen's parts move as the turn changes).
  follow(game) {
    this.game = game;
    if (!this.open) return;
    const step = STEPS[this.step];
    if (step.waitsFor === "roll" && game && game.phase !== "roll") this.show(this.step + 1);
    else this.place();
  }

  next() {
    if (this.step + 1 < STEPS.length) this.show(this.step + 1);
    else this.close();
  }

  back() {
    const previous = this.step - 1;
    // (the roll is done: its step is not shown again)
    if (previous >= 0 && !(STEPS[previous].waitsFor === "roll" && this.game && this.game.phase !== "roll")) this.show(previous);
  }

  // Ends the tour; seen: false puts it off (a daily began: it comes on the next regular visit).
  close({ seen = true } = {}) {
    this.unmark();
    this.doc.getElementById("tour")?.remove();
    this.step = -1;
    if (seen) this.preferences.setTourSeen();
    const back = this.returnTo && this.returnTo.isConnected ? this.returnTo : this.doc.querySelector(".square");
    back?.focus();
  }

  // The step's target outlined (again: a redraw may have replaced it, as ROLL's button is).
  mark() {
    const target = this.doc.querySelector(STEPS[this.step].target);
    if (target && !target.classList.contains("tour-target")) {
      this.unmark();
      target.classList.add("tour-target");
    }
    return target;
  }

  unmark() {
    for (const node of this.doc.querySelectorAll(".tour-target")) node.classList.remove("tour-target");
  }

  // Tap on a touch screen, click with a mouse.
  words(key) {
    const view = this.doc.defaultView;
    const mouse = view && view.matchMedia && view.matchMedia("(hover: hover) and (pointer: fine)").matches;
    return this.t(mouse ? `${key}_click` : key);
  }

  show(index) {
    const t = this.t;
    const step = STEPS[index];
    this.step = index;
    if (step.selects) this.selectDie();
    this.unmark();
    const target = this.mark();
    target?.scrollIntoView({ block: "nearest", behavior: "instant" });
    const back = index > 0 && !(STEPS[index - 1].waitsFor === "roll");
    const box = el("div", { id: "tour", class: "tour", role: "dialog", "aria-labelledby": "tour-title", "aria-describedby": "tour-text" },
      el("p", { class: "tour-count", text: t("tour_count", { n: index + 1, of: STEPS.length }) }),
      el("h2", { id: "tour-title", class: "tour-title", tabIndex: -1, text: t(`${step.key}_title`) }),
      el("p", { id: "tour-text", text: step.pointer ? this.words(step.key) : t(step.key) }),
      el("div", { class: "tour-buttons" },
        el("button", { type: "button", class: "button small", "data-intent": "tour-skip", text: t("tour_skip") }),
        back ? el("button", { type: "button", class: "button small", "data-intent": "tour-back", text: t("tour_back") }) : null,
        // the first step's way on is the game's own ROLL
        step.waitsFor ? null : el("button", {
          type: "button", class: "button primary small", "data-intent": "tour-next",
          text: t(index === STEPS.length - 1 ? "tour_done" : "tour_next"),
        })));
    const old = this.doc.getElementById("tour");
    if (old) old.replaceWith(box);
    else this.doc.body.append(box);
    this.place();
    box.querySelector("#tour-title").focus();
  }

  // The card above or below its target, on the side with room for it; where neither has
  // room, beside it (a wide screen), else on the side with the most room, as tall as that
  // room (its words scrolling, its buttons kept): never over the outlined target.
  place() {
    const box = this.doc.getElementById("tour");
    const target = box && this.mark();
    if (!box || !target) return;
    const height = this.doc.defaultView.innerHeight;
    const screen = this.doc.documentElement.clientWidth;
    box.style.maxHeight = "";
    const r = target.getBoundingClientRect();
    const need = box.offsetHeight;
    const width = box.offsetWidth;
    const below = height - (r.bottom + RING + MARGIN) - MARGIN;
    const above = r.top - RING - MARGIN - MARGIN;
    const right = screen - (r.right + RING + MARGIN) - MARGIN;
    const left = r.left - RING - MARGIN - MARGIN;
    const clamp = (value, low, high) => Math.max(low, Math.min(value, high));
    let top;
    let x;
    if (below < need && above < need && Math.max(right, left) >= width && need <= height - 2 * MARGIN) {
      top = clamp(r.top, MARGIN, height - need - MARGIN);
      x = right >= width ? r.right + RING + MARGIN : r.left - RING - MARGIN - width;
    } else {
      const under = below >= need || (above < need && below >= above);
      const room = Math.max(under ? below : above, 0);
      if (need > room) box.style.maxHeight = `${room}px`;
      top = under ? r.bottom + RING + MARGIN : r.top - RING - MARGIN - Math.min(need, room);
      // across: centred on the target, inside the screen
      x = clamp((r.left + r.right) / 2 - width / 2, MARGIN * 2, screen - width - MARGIN * 2);
    }
    box.style.top = `${top}px`;
    box.style.left = `${Math.max(x, 0)}px`;
    // words that scroll can be reached with the keyboard too
    const text = box.querySelector("#tour-text");
    if (text.scrollHeight > text.clientHeight + 1) text.tabIndex = 0;
    else text.removeAttribute("tabindex");
  }
}
