// The name others will see, asked for the first time a player does something others see: a
// challenge made or opened, games saved to an account, a league made or joined. Asked once on a
// device, only of a player without a name, and skippable; the account's screen changes it later.
// The same rules as every name (the server's: look-alikes of another's are refused).

import { ApiError } from "./api.js";
import { el } from "./dom.js";

const ASKED_KEY = "magdagdon.nameAsked"; // this device asked (saved or skipped): never again

// Resolves once the player has a name, skipped, or was asked before on this device; the action
// that asked goes on either way.
export async function askName(c) {
  const storage = c.preferences.storage;
  if (storage.getItem(ASKED_KEY) === "1") return;
  const me = await c.api.me().catch(() => null);
  if (!me) return; // (the action will say what is wrong)
  if (me.name) {
    storage.setItem(ASKED_KEY, "1");
    return;
  }
  await new Promise((resolve) => show(c, me, resolve));
  storage.setItem(ASKED_KEY, "1");
}

function show(c, me, resolve) {
  const t = c.t;
  const doc = c.doc;
  const input = el("input", { id: "ask-name-input", name: "name", autocomplete: "nickname", maxLength: me.name_max || 24, value: "", required: true });
  const error = el("p", { class: "error-text", role: "alert" });
  const skip = el("button", { type: "button", class: "button", text: t("name_skip") });
  const form = el("form", { class: "ask-name" },
    el("h2", { id: "ask-name-title", text: t("name_ask_title") }),
    el("p", { class: "note", text: t("name_ask_note") }),
    el("div", { class: "field" }, el("label", { for: "ask-name-input", text: t("name_ask_label") }), input),
    error,
    el("div", { class: "confirm-buttons" }, skip, el("button", { type: "submit", class: "button primary", text: t("save") })));
  const dialog = el("dialog", { id: "ask-name", class: "confirm", "aria-labelledby": "ask-name-title" }, form);
  const done = () => {
    if (dialog.open) dialog.close();
    dialog.remove();
    resolve();
  };
  skip.addEventListener("click", done);
  dialog.addEventListener("cancel", (event) => { event.preventDefault(); done(); }); // Escape: skipped
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    event.stopPropagation(); // not a form of the page's (input.js)
    try {
      await c.api.setName(input.value);
      c.view.announce(t("name_saved"));
      done();
    } catch (failure) {
      const invalid = failure instanceof ApiError && failure.code === "invalid_request";
      error.textContent = invalid ? t("name_rules", { max: me.name_max || 24 }) : c.errorText(failure);
      input.focus();
    }
  });
  doc.body.append(dialog);
  dialog.showModal();
  input.focus();
}
