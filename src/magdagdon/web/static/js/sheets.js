// The screens shown in the sheet: menu, high scores, settings, rules, about, game over.
// Each builds its content from data it is given; text from people is set as text, never HTML.

import { dailyOver, pastDailyOver, shareNote } from "./daily.js";
import { button, el, playIcon, replayLink, reviewIcon, withIcon } from "./dom.js";
import { nameForm } from "./name.js";
import { DIFFICULTY_NAMES, describePlan, squareAt } from "./view.js";

// onDaily: a daily is shown, so the menu offers the way back to the player's own game; news:
// what the player's challenges hold that they have not seen (a badge on CHALLENGES)
export function menu(t, { onDaily = false, news = 0 } = {}) {
  const challenges = button("open", t("challenges"), { "data-screen": "challenges" });
  if (news) challenges.append(" ", el("span", { class: "news-badge", text: t.number(news) }), el("span", { class: "visually-hidden", text: ` ${t("news_new")}` }));
  return [t("title_menu"), el("div", { class: "menu-list" },
    onDaily ? button("back-to-game", t("back_to_game"), { className: "button primary wide" }) : null,
    button("new-game", t("new_game")),
    button("open", t("daily_challenge"), { "data-screen": "daily" }),
    button("open", t("play_together"), { "data-screen": "room" }),
    button("how-to-play", t("how_to_play")),
    button("open", t("high_scores"), { "data-screen": "scores" }),
    button("open", t("statistics"), { "data-screen": "stats" }),
    button("open", t("puzzles"), { "data-screen": "puzzles" }),
    button("open", t("my_games"), { "data-screen": "mygames" }),
    challenges,
    button("open", t("leagues"), { "data-screen": "leagues" }),
    button("open", t("account"), { "data-screen": "account" }),
    button("open", t("settings"), { "data-screen": "settings" }),
    button("open", t("rules"), { "data-screen": "rules" }),
    button("open", t("about"), { "data-screen": "about" }),
  )];
}

export function scores(t, { difficulty, scope, table, name, typed, nameMax, nameError }) {
  const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
    ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
      button("scores-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === difficulty) })));
  const scopes = el("div", { class: "tabs", role: "group", "aria-label": t("whose_scores") },
    button("scores-scope", t("scope_all"), { "data-scope": "all", "aria-pressed": String(scope === "all") }),
    button("scores-scope", t("scope_me"), { "data-scope": "me", "aria-pressed": String(scope === "me") }));
  let body;
  if (!table) body = el("p", { text: t("loading") });
  else if (!table.rows.length) body = el("p", { text: t("no_scores") });
  else {
    const head = el("tr", {}, ...["#", t("name"), t("score"), t("date"), t("turns"), t("powers"), t("hints")].map(
      (h, i) => el("th", { text: h, scope: "col", class: i === 0 || i >= 2 && i !== 3 ? "n" : "" })),
    // the review and replay buttons name themselves; their heading is for screen readers only
    el("th", { scope: "col", class: "n" }, el("span", { class: "visually-hidden", text: `${t("title_review")} · ${t("replay_title")}` })));
    // data-label: on a narrow screen each row is a card whose cells name themselves
    const rows = table.rows.map((r) => el("tr", { class: r.mine ? "mine" : "" },
      el("td", { class: "n place", text: String(r.place) }),
      el("td", { class: "who", text: r.name || t("anonymous") }),
      el("td", { class: "n score", "data-label": t("score"), text: t.number(r.score) }),
      el("td", { "data-label": t("date"), text: new Date(r.date).toLocaleDateString(t.language) }),
      el("td", { class: "n", "data-label": t("turns"), text: String(r.turns) }),
      el("td", { class: "n", "data-label": t("powers"), text: String(r.powers_used) }),
      el("td", { class: "n", "data-label": t("hints"), text: String(r.hints_used) }),
      el("td", { class: "n review-cell" },
        withIcon(button("review", "", {
          className: "button small", "data-game": r.game_id, "aria-label": t("review_game", { place: r.place, score: r.score }),
        }), reviewIcon()),
        replayLink(r.game_id, "", { className: "button small watch", "aria-label": t("replay_watch_game", { place: r.place, score: r.score }) }, playIcon()))));
    body = el("table", { class: "scores-table" }, el("caption", { class: "visually-hidden", text: `${t("title_high_scores")} ${DIFFICULTY_NAMES[difficulty]}` }),
      el("thead", {}, head), el("tbody", {}, ...rows));
  }
  return [t("title_high_scores"), tabs, scopes, body, ...nameForm(t, { name, typed, nameMax, nameError })];
}

// What each difficulty means, in the catalog's words (the rules' own, docs/rules.md)
const MEANINGS = {
  peaceful: (t) => t("difficulty_peaceful"),
  survival: (t) => t("difficulty_survival"),
  nightmare: (t) => t("difficulty_nightmare"),
};

export function settings(t, { difficulty, language, animations }) {
  const select = el("select", { id: "language-select", "data-change": "language" },
    ...[["en", "English"], ["et", "Eesti"], ["sv", "Svenska"]].map(([code, label]) =>
      el("option", { value: code, text: label, selected: code === language })));
  const motion = el("input", { type: "checkbox", id: "animations", "data-change": "animations", checked: animations });
  return [t("title_settings"),
    el("h3", { text: t("difficulty") }),
    el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
      ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
        button("set-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === difficulty) }))),
    el("dl", { class: "difficulties" },
      ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
        el("div", { class: key === difficulty ? "current" : "" }, el("dt", { text: label }), el("dd", { text: MEANINGS[key](t) })))),
    el("p", { class: "note", text: t("difficulty_note") }),
    el("div", { class: "field" }, el("label", { for: "language-select", text: t("language") }), select),
    el("label", { class: "check", for: "animations" }, motion, el("span", { text: t("animations") })),
  ];
}

// Rules text: headings in capitals, bullets starting with "•", other lines paragraphs. error:
// why the text did not load (offline, say), with TRY AGAIN.
export function rules(t, text, error = "") {
  if (text === null && error) {
    return [t("title_rules"),
      el("p", { class: "error-text", role: "alert", text: error }),
      el("div", { class: "actions" }, button("open", t("try_again"), { "data-screen": "rules" }))];
  }
  if (text === null) return [t("title_rules"), el("p", { text: t("loading") })];
  const out = [];
  let list = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) { list = null; continue; }
    if (line.startsWith("•")) {
      if (!list) { list = el("ul"); out.push(list); }
      list.append(el("li", { text: line.replace(/^•\s*/, "") }));
      continue;
    }
    list = null;
    const heading = line === line.toUpperCase() && /\p{L}/u.test(line) && line.length < 40;
    out.push(el(heading ? "h3" : "p", { text: line }));
  }
  return [t("title_rules"), ...out];
}

export function about(t) {
  return [t("title_about"),
    el("p", { text: t("about_text") }),
    el("p", {}, el("span", { text: t("about_dedication") + " " }), el("span", { class: "heart", text: "❤️", "aria-label": t("love"), role: "img" })),
  ];
}

// result, shared: a daily's standing and what SHARE did (daily.js)
export function gameOver(t, game, { result = null, shared = null } = {}) {
  const s = game.final_score;
  const lines = [...s.rows.map((l, i) => [t("row_sum", { n: i + 1 }), l]), ...s.columns.map((l, i) => [t("column_sum", { n: i + 1 }), l])]
    .filter(([, l]) => l.bonus);
  const row = (label, value) => el("tr", {}, el("td", { text: label }), el("td", { class: "n", text: value }));
  const minus = (n) => (n ? `−${n}` : "0"); // no "−0" for no RUINS
  const table = el("table", { class: "breakdown" },
    el("caption", { class: "visually-hidden", text: t("breakdown") }),
    el("tbody", {},
      row(t("base"), String(s.base)),
      ...lines.map(([label, l]) => row(`${label}: ${t(`bonus_${l.bonus}`)}`, `+${l.bonus_points}`)),
      row(t("ruins_n", { n: s.ruins }), minus(s.ruin_penalty)),
      game.powers_total === 0 ? null : row(t("powers_used_n", { n: game.powers_used }), minus(s.power_penalty)),
      row(t("total"), t.number(s.total))));
  const places = game.places
    ? el("p", { text: t("places", { all: game.places.all, me: game.places.me, name: DIFFICULTY_NAMES[game.difficulty] }) })
    : null;
  const head = [t("title_game_over"), el("p", { class: "final-score", text: t.number(s.total) })];
  const hints = game.hints_used ? el("p", { text: t("hints_used_n", { n: game.hints_used }) }) : null;
  if (game.daily) return [...head, ...dailyOver(t, game, result, shared), table, places, hints];
  if (game.past_daily) return [...head, ...pastDailyOver(t, game, result, shared), table, hints];
  if (game.challenge) {
    // a challenge's game: its table (both boards, the coach's score) is the way on
    return [...head,
      el("div", { class: "actions" },
        button("challenge-results", t("challenge_table"), { className: "button primary", "data-code": game.challenge }),
        replayLink(game.id, t("replay_watch")),
        button("back-to-game", t("back_to_game"))),
      table, hints];
  }
  // a REMATCH that went back as a challenge says so, with the way to its table
  const sentBack = game.sent_back ? el("p", { class: "note sent-back", text: t("rematch_sent_back") }) : null;
  // NEW GAME right below the score, the breakdown after it: on a short phone a long breakdown
  // pushed it out of the sheet's view
  return [...head, places, sentBack,
    el("div", { class: "actions" },
      game.sent_back ? button("challenge-results", t("challenge_table"), { "data-code": game.sent_back }) : null,
      button("review", t("review"), { "data-game": game.id }),
      button("share", t("share"), { "data-game": game.id }),
      button("challenge-create", t("challenge_friend"), { "data-game": game.id }),
      replayLink(game.id, t("replay_watch")),
      button("open", t("high_scores"), { "data-screen": "scores" }),
      button("new-game", t("new_game"), { className: "button primary" })),
    shareNote(t, shared, game.id),
    table, hints,
  ];
}

// A small board: the squares a turn filled are marked (unless not ``marked``: a whole board).
export function miniBoard(t, label, before, after, { marked = true } = {}) {
  const b = before.replaceAll("/", "");
  const a = after.replaceAll("/", "");
  const added = [];
  const cells = [...a].map((ch, i) => {
    const filled = b[i] === "." && ch !== ".";
    if (filled) added.push(`${ch === "X" ? t("square_ruin") : ch} ${squareAt(t, i)}`);
    const fresh = filled && marked;
    return el("span", { class: `mini-cell${fresh ? " fresh" : ""}${ch === "X" ? " ruin" : ""}`, text: ch === "." ? "" : ch === "X" ? "✕" : ch });
  });
  return el("figure", { class: "mini" },
    el("div", { class: "mini-board", role: "img", "aria-label": `${label}: ${added.join(", ") || t("review_nothing")}` }, ...cells),
    el("figcaption", { text: label }));
}

export function review(t, { review: data, error }) {
  if (error) return [t("title_review"), el("p", { class: "error-text", role: "alert", text: error })];
  if (!data) return [t("title_review"), el("p", { text: t("review_loading") })];
  const turns = data.turns.map((turn) => {
    const lost = turn.expected_loss >= 0.5;
    return el("section", { class: "review-turn" },
      el("h3", { text: t("review_turn", { n: turn.turn, roll: turn.roll.join(" ") }) }),
      el("div", { class: "review-boards" },
        miniBoard(t, t("review_you"), turn.board, turn.played_board),
        turn.best_board ? miniBoard(t, t("review_best"), turn.board, turn.best_board) : null),
      el("p", { class: lost ? "loss" : "loss none", text: lost ? t("review_loss", { loss: t.decimal(turn.expected_loss) }) : t("review_good") }),
      lost ? el("p", { class: "review-plan", text: `${t("review_best")}: ${describePlan(t, { plan: turn.best, board: turn.best_board }, null)}` }) : null);
  });
  return [t("title_review"),
    el("p", { text: t("review_total", { score: data.score, loss: t.decimal(data.expected_loss) }) }),
    ...turns];
}
