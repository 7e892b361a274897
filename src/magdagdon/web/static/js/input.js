// Input: clicks, taps, form events and keys become intents. It knows no rules.

const KEYS = {
  Backspace: ["take-back-last"],
  c: ["confirm"], C: ["confirm"],
  r: ["roll"], R: ["roll"],
  h: ["hint"], H: ["hint"],
  "?": ["open", { screen: "rules" }],
  Escape: ["cancel"],
};
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export function bindInput(doc, dispatch) {
  doc.addEventListener("click", (event) => {
    const target = event.target.closest("[data-intent]");
    if (!target || target.disabled) return;
    event.preventDefault();
    dispatch(target.dataset.intent, { ...target.dataset });
  });
  doc.addEventListener("submit", (event) => {
    const form = event.target.closest("[data-form]");
    if (!form) return;
    event.preventDefault();
    dispatch(`submit-${form.dataset.form}`, Object.fromEntries(new FormData(form)));
  });
  doc.addEventListener("change", (event) => {
    const target = event.target.closest("[data-change]");
    if (!target) return;
    dispatch("change", { name: target.dataset.change, value: target.type === "checkbox" ? target.checked : target.value });
  });
  doc.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    // Dialogs keep their own keys (Escape closes), but for a board of their own: a screen's
    // part marked data-keys="puzzle" takes the game board's keys, sent as "puzzle-key".
    const keyed = doc.querySelector("dialog[open]") ? keyedPart(event.target) : null;
    if (doc.querySelector("dialog[open]") && !keyed) return;
    const found = intentOfKey(event);
    if (!found || (keyed && !SHARED.has(found[0]))) return;
    const [intent, data] = found;
    if (keyed) dispatch(`${keyed.dataset.keys}-key`, { command: intent, ...data });
    else dispatch(intent, data);
    event.preventDefault();
  });
}

// What a key asks for on a board: [intent, data], or null.
function intentOfKey(event) {
  if (event.key >= "1" && event.key <= "4") return ["die", { die: String(Number(event.key) - 1), key: "1" }];
  if (ARROWS[event.key]) return event.target.closest(".board, .puzzle-board") ? ["move-focus", { by: ARROWS[event.key] }] : null;
  if (event.key === "Enter") return event.target.closest("button") ? null : ["enter", {}];
  if (KEYS[event.key]) return [KEYS[event.key][0], KEYS[event.key][1] || {}];
  return null;
}

// The game's keys a board in a dialog takes too (ROLL, HINT and the rules are the game's).
const SHARED = new Set(["die", "move-focus", "enter", "take-back-last", "confirm"]);

// The part of a dialog that takes the board's keys: the one the focus is in, or the one right
// inside what has the focus (the sheet's body, focused when it was drawn again).
function keyedPart(target) {
  return target.closest("[data-keys]") || target.querySelector(":scope > [data-keys]");
}
