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
    if (doc.querySelector("dialog[open]")) return; // dialogs keep their own keys (Escape closes)
    const tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (event.key >= "1" && event.key <= "4") {
      dispatch("die", { die: String(Number(event.key) - 1), key: "1" });
    } else if (ARROWS[event.key] && event.target.closest(".board")) {
      dispatch("move-focus", { by: ARROWS[event.key] });
    } else if (event.key === "Enter" && !event.target.closest("button")) {
      dispatch("enter", {});
    } else if (KEYS[event.key]) {
      const [intent, data = {}] = KEYS[event.key];
      dispatch(intent, data);
    } else {
      return;
    }
    event.preventDefault();
  });
}
