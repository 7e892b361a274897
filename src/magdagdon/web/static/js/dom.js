// Small DOM helpers shared by the renderer (view.js), the sheets (sheets.js, daily.js) and the
// replay viewer's links.

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

// The replay viewer's address of a finished game (replay.js); anyone with it can watch.
export function replayLink(gameId, text, attrs = {}, ...children) {
  return el("a", { class: "button", href: `/replay/${encodeURIComponent(gameId)}`, "data-replay-link": gameId, text, ...attrs }, ...children);
}

// svg("path", {d: "…", fill: "none"}, child, …): an SVG element, every attribute set as one,
// children (elements, or strings as text) appended; the one way the client draws its pictures.
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

// The high scores' two small icons: a play triangle (the replay; a glyph like ▶ may be drawn
// as a coloured emoji) and a magnifying glass (the review), so that they are told apart.
function smallIcon(d, filled) {
  return svg("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true" },
    svg("path", {
      d, fill: filled ? "currentColor" : "none", stroke: "currentColor", "stroke-width": filled ? 1 : 2.4,
      "stroke-linecap": "round", "stroke-linejoin": "round",
    }));
}

export function withIcon(node, icon) {
  node.append(icon);
  return node;
}

export const playIcon = () => smallIcon("M7 4.5l12 7.5-12 7.5z", true);
export const reviewIcon = () => smallIcon("M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13zM15.5 15.5L20 20", false);

// The QR code of a link (a transfer code's, a challenge's, an invite's), drawn from the modules
// the server sent (one path, a quiet zone of 4).
export function qrCode(modules, label) {
  const size = modules.length + 8;
  let d = "";
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x + 4} ${y + 4}h1v1h-1z`;
  });
  return svg("svg", { class: "qr", viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": label, "shape-rendering": "crispEdges" },
    svg("rect", { width: size, height: size, fill: "#fff" }),
    svg("path", { d, fill: "#000" }));
}
