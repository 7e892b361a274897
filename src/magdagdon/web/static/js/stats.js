// The Statistics sheet: per difficulty the games played and finished, mean, median and best, a
// histogram of the scores and the last scores as a trend (small SVG drawings in the page's
// colours, each named for screen readers and repeated as a table), and the daily streak.

import { button, el, svg } from "./dom.js";
import { DIFFICULTY_NAMES } from "./view.js";

// A bin's scores in words: "200–249" (the server's "to" is exclusive)
function binText(t, bin) {
  const last = bin.to - 1;
  return last <= bin.from ? t.number(bin.from) : `${t.number(bin.from)}–${t.number(last)}`;
}

const W = 320;
const H = 150;
const PAD = { top: 16, bottom: 30, left: 6, right: 6 };

// Bars of the histogram, the count above each bar and the bins' edges below them (a bar of
// 95–99 stands between the marks 95 and 100).
export function histogram(t, bins, label) {
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label, focusable: "false" });
  const max = Math.max(1, ...bins.map((b) => b.count));
  const room = W - PAD.left - PAD.right;
  const width = Math.min(48, room / bins.length); // a few bins stay bars, not slabs
  const start = PAD.left + (room - width * bins.length) / 2;
  const every = Math.ceil(bins.length / 6); // at most six labels under the bars
  chart.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: "axis" }));
  bins.forEach((bin, i) => {
    const h = ((H - PAD.top - PAD.bottom) * bin.count) / max;
    const x = start + i * width;
    if (bin.count) {
      chart.append(svg("rect", { x: x + 1.5, y: H - PAD.bottom - h, width: Math.max(1, width - 3), height: h, rx: 2, class: "bar" }));
      chart.append(svg("text", { x: x + width / 2, y: H - PAD.bottom - h - 3, "text-anchor": "middle", class: "chart-count" }, String(bin.count)));
    }
    if (i % every === 0) edge(x, bin.from);
  });
  const last = bins[bins.length - 1];
  if (bins.length % every === 0) edge(start + bins.length * width, last.to);
  return chart;

  function edge(x, value) {
    chart.append(svg("line", { x1: x, x2: x, y1: H - PAD.bottom, y2: H - PAD.bottom + 4, class: "axis" }));
    chart.append(svg("text", { x, y: H - PAD.bottom + 16, "text-anchor": "middle", class: "chart-label" }, t.number(value)));
  }
}

// The last scores, oldest first, as a line with a dot per game; the lowest and highest named.
export function trend(t, scores, label) {
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label, focusable: "false" });
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  const span = Math.max(1, high - low);
  const left = 44;
  const step = scores.length > 1 ? (W - left - PAD.right - 6) / (scores.length - 1) : 0;
  // all the scores alike (one game, say): one level, in the middle, its line and label with it
  const y = (s) => (high === low ? (H - PAD.bottom + PAD.top) / 2 : PAD.top + ((H - PAD.top - PAD.bottom) * (high - s)) / span);
  const points = scores.map((s, i) => [left + 6 + i * step, y(s)]);
  chart.append(svg("line", { x1: left, x2: W - PAD.right, y1: y(high), y2: y(high), class: "grid" }));
  if (high !== low) chart.append(svg("line", { x1: left, x2: W - PAD.right, y1: y(low), y2: y(low), class: "grid" }));
  chart.append(svg("text", { x: left - 4, y: y(high) + 4, "text-anchor": "end", class: "chart-label" }, t.number(high)));
  if (high !== low) chart.append(svg("text", { x: left - 4, y: y(low) + 4, "text-anchor": "end", class: "chart-label" }, t.number(low)));
  if (points.length > 1) chart.append(svg("polyline", { points: points.map((p) => p.join(",")).join(" "), class: "trend-line" }));
  for (const [cx, cy] of points) chart.append(svg("circle", { cx, cy, r: 3.5, class: "dot" }));
  return chart;
}

function numbers(pairs) {
  return el("dl", { class: "stats-numbers" },
    ...pairs.map(([label, value]) => el("div", {}, el("dt", { text: label }), el("dd", { class: "num", text: value }))));
}

export function statsSheet(t, { difficulty, data, error, puzzles = null }) {
  const title = t("title_statistics");
  const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
    ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
      button("stats-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === difficulty) })));
  if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
  if (!data) return [title, tabs, el("p", { text: t("loading") })];
  const d = data.difficulties[difficulty];
  const name = DIFFICULTY_NAMES[difficulty];
  const out = [title, tabs];
  const dash = "–";
  const decimal = (x) => (x === null || x === undefined ? dash : t.decimal(x));
  out.push(numbers([
    [t("stats_games"), String(d.games)],
    [t("stats_finished"), String(d.finished)],
    [t("stats_mean"), decimal(d.mean)],
    [t("stats_median"), decimal(d.median)],
    [t("stats_best"), d.best === null || d.best === undefined ? dash : t.number(d.best)],
  ]));
  if (!d.finished) out.push(el("p", { class: "empty-state", text: t("stats_empty") }));
  if (d.finished && d.histogram.length) {
    const spoken = d.histogram.map((b) => t("stats_bin", { range: binText(t, b), n: b.count })).join("; ");
    out.push(
      el("h3", { id: "stats-histogram", text: t("stats_histogram") }),
      histogram(t, d.histogram, `${t("stats_histogram_of", { name })}: ${spoken}`),
      el("details", { class: "chart-table" },
        el("summary", { text: t("stats_as_table") }),
        el("table", {},
          el("caption", { class: "visually-hidden", text: t("stats_histogram_of", { name }) }),
          el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("score") }), el("th", { scope: "col", class: "n", text: t("stats_count") }))),
          el("tbody", {}, ...d.histogram.map((b) => el("tr", {}, el("td", { text: binText(t, b) }), el("td", { class: "n", text: String(b.count) })))))));
  }
  if (d.recent && d.recent.length) {
    const heading = t("stats_recent", { n: d.recent.length });
    const scores = d.recent.map((s) => t.number(s)).join(", ");
    out.push(
      el("h3", { id: "stats-trend", text: heading }),
      trend(t, d.recent, `${heading}, ${t("stats_oldest_first")}: ${scores}`),
      el("details", { class: "chart-table" },
        el("summary", { text: t("stats_as_list") }),
        el("ol", { class: "recent-list" }, ...d.recent.map((s) => el("li", { class: "num", text: t.number(s) })))));
  }
  const daily = data.daily;
  out.push(el("h3", { text: t("title_daily_challenge") }),
    numbers([
      [t("stats_daily_played"), String(daily.played)],
      [t("stats_streak"), String(daily.streak)],
      [t("stats_best_streak"), String(daily.best_streak)],
    ]),
    daily.played ? null : el("p", { class: "empty-state", text: t("stats_daily_empty") }));
  if (puzzles) out.push(el("h3", { id: "stats-puzzles", text: t("stats_puzzle_rating") }), puzzles(t));
  return out;
}
