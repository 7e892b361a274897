// Small DOM helpers shared by the renderer (view.js) and the sheets (sheets.js).

// el("p", {class: "x", text: "…", "data-die": 1, "aria-label": "…"}, child, …): "class" and "text"
// set className and textContent; data-*, aria-* and "for" are attributes; any other key is set as
// a property (type, disabled, checked, className, role…). Children that are null or undefined are
// skipped, so optional parts can be written inline; strings are added as text, never as HTML.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "for") node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// A button that sends an intent to input.js when pressed.
export function button(intent, text, attrs = {}) {
  return el("button", { type: "button", class: "button", "data-intent": intent, text, ...attrs });
}

// Plays a CSS animation again from its start, even when its class is already set: taking the
// class off and reading the layout in between makes the browser see a new animation.
export function replayAnimation(node, className) {
  node.classList.remove(className);
  void node.offsetWidth;
  node.classList.add(className);
}
