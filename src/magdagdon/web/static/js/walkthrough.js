// The guided first game: a few short steps on the real board, each pointing at the part of the
// screen it explains (outlined, scrolled into view). Shown once per browser (preferences.js),
// again from the menu's "How to play"; Escape or SKIP leaves it at any step. It holds no rules:
// its words are the catalog's, and the game goes on underneath it.
import { el } from "./dom.js";

const STEPS = [
  { target: "#actions", key: "tour_roll" },
  { target: "#tray", key: "tour_place" },
  { target: "#board", key: "tour_lit" },
  { target: "#actions", key: "tour_confirm" },
  { target: "#board", key: "tour_score" },
  { target: "#status", key: "tour_magdagdon" },
];

export class Walkthrough {
  constructor(doc, preferences) {
    this.doc = doc;
    this.preferences = preferences;
    this.step = -1;
    this.t = null;
    this.returnTo = null;
    doc.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.open) {
        event.preventDefault();
        this.close();
      }
    });
  }

  get open() {
    return this.step >= 0;
  }

  // On a browser's first visit; later only when asked.
  maybeStart(t) {
    if (!this.preferences.tourSeen()) this.start(t);
  }

  start(t) {
    this.t = t;
    this.returnTo = this.doc.activeElement;
    this.show(0);
  }

  next() {
    if (this.step + 1 < STEPS.length) this.show(this.step + 1);
    else this.close();
  }

  back() {
    if (this.step > 0) this.show(this.step - 1);
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

  unmark() {
    for (const node of this.doc.querySelectorAll(".tour-target")) node.classList.remove("tour-target");
  }

  show(index) {
    const t = this.t;
    const step = STEPS[index];
    this.step = index;
    this.unmark();
    const target = this.doc.querySelector(step.target);
    if (target) {
      target.classList.add("tour-target");
      target.scrollIntoView({ block: "center", behavior: "instant" });
    }
    const last = index === STEPS.length - 1;
    const box = el("div", { id: "tour", class: "tour", role: "dialog", "aria-labelledby": "tour-title", "aria-describedby": "tour-text" },
      el("p", { class: "tour-count", text: t("tour_count", { n: index + 1, of: STEPS.length }) }),
      el("h2", { id: "tour-title", class: "tour-title", tabIndex: -1, text: t(`${step.key}_title`) }),
      el("p", { id: "tour-text", text: t(step.key) }),
      el("div", { class: "tour-buttons" },
        el("button", { type: "button", class: "button small", "data-intent": "tour-skip", text: t("tour_skip") }),
        index > 0 ? el("button", { type: "button", class: "button small", "data-intent": "tour-back", text: t("tour_back") }) : null,
        el("button", { type: "button", class: "button primary small", "data-intent": "tour-next", text: t(last ? "tour_done" : "tour_next") })));
    const old = this.doc.getElementById("tour");
    if (old) old.replaceWith(box);
    else this.doc.body.append(box);
    box.querySelector("#tour-title").focus();
  }
}
