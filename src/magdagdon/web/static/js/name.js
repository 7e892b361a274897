// The form that names a player in the tables (high scores and the daily leaderboards): what
// was typed stays after a refusal, with the rule that refused it, and while the form is drawn
// again (data-drawn: the name it was drawn with, to tell what the player has typed since).

import { el } from "./dom.js";

export function nameForm(t, { name, typed = null, nameMax, nameError }) {
  const limit = nameMax ? { maxLength: nameMax } : {}; // the server's limit, once it is known
  const input = el("input", { id: "name-input", name: "name", ...limit, autocomplete: "nickname", value: typed ?? (name || ""), "data-drawn": name || "" });
  const form = el("form", { class: "row", "data-form": "name" },
    el("div", { class: "field" }, el("label", { for: "name-input", text: t("your_name") }), input),
    el("button", { type: "submit", class: "button", text: t("save") }));
  const error = nameError ? el("p", { class: "error-text", role: "alert", text: nameError }) : null;
  return [form, error];
}
