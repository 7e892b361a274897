// The daily challenge's screens: today's three games, a day's leaderboard, and what the
// game-over sheet adds for a daily. Built from what the server sent; names are set as text.

import { button, el, playIcon, replayLink } from "./dom.js";
import { nameForm } from "./name.js";
import { DIFFICULTY_NAMES } from "./view.js";

const FIRST_DAY = "2026-12-01"; // daily #1
const LAST_MINUTES = 15 * 60000; // the last quarter hour to start today's dailies: said by PLAY

// "3 h 12 min", "9 min": how long is left (whole minutes, rounded up: never "0 min"), kept
// on one line (no-break spaces)
export function durationText(t, ms) {
  const minutes = Math.max(1, Math.ceil(ms / 60000));
  const h = Math.floor(minutes / 60);
  const text = h ? t("time_hours_minutes", { h, m: minutes % 60 }) : t("time_minutes", { m: minutes });
  return text.replace(/ /g, "\u00a0");
}

// a moment as the clock shows it in the player's own time zone ("04:00", "4:00 AM")
export function clockText(t, iso) {
  return new Intl.DateTimeFormat(t.language, { hour: "numeric", minute: "2-digit" }).format(new Date(iso));
}

// The server's moment now: the one GET /api/daily said, and the time since it came (the
// time left is the server's, whatever this device's clock says)
function serverNow(info) {
  return Date.parse(info.now) + (info.received ? Date.now() - info.received : 0);
}

// "1 December 2026" in the player's language: a daily's date is a UTC day
export function dayText(t, date) {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(t.language, { timeZone: "UTC", day: "numeric", month: "long", year: "numeric" });
}

// "Daily #1 · 1 December 2026"
function dayLine(t, number, date) {
  return el("p", { class: "daily-day" },
    el("strong", { text: t("daily_number", { number }) }), el("span", { text: ` · ${dayText(t, date)}` }));
}

// What SHARE did, under the buttons that share: copied, or the text to copy by hand.
export function shareNote(t, shared, id) {
  if (!shared || shared.id !== id || !shared.status) return null;
  if (shared.status === "failed") {
    return el("div", { class: "field share-fallback" },
      el("label", { for: "share-text", text: t("share_copy_yourself") }),
      el("textarea", { id: "share-text", readOnly: true, rows: 9, value: shared.text }));
  }
  if (shared.status === "copied") return el("p", { class: "share-note", role: "status", text: t("share_copied") });
  return null;
}

export function dailySheet(t, { info, error, notice, onDaily, shared }) {
  const title = t("title_daily_challenge");
  if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
  if (!info) return [title, el("p", { text: t("loading") })];
  const now = serverNow(info);
  // yesterday's daily left unfinished at midnight: it can still be finished (until finish_by)
  const unfinished = (info.unfinished || []).map((u) => {
    const name = DIFFICULTY_NAMES[u.difficulty];
    return el("li", { class: "daily-item daily-unfinished" },
      el("div", { class: "daily-head" },
        el("strong", { text: `${t("daily_number", { number: u.number })} · ${name}` }),
        el("span", { class: "daily-status", text: t("daily_left_to_finish", { time: durationText(t, Date.parse(u.finish_by) - now) }) })),
      el("div", { class: "daily-buttons" },
        button("daily-continue", t("continue"), {
          className: "button primary", "data-game": u.game_id, "aria-label": `${t("continue")}: ${t("daily_number", { number: u.number })}, ${name}`,
        })));
  });
  // the time left to start today's; in the last quarter hour, how little, by PLAY (and that a
  // game started now can be finished until finish_by, in the player's own time)
  const left = Date.parse(info.ends_at) - now;
  const open = info.games.some((g) => g.status !== "over");
  const last = open && left <= LAST_MINUTES;
  const timeLine = last
    ? el("p", { class: "daily-last", text: t("daily_last_minutes", { time: durationText(t, left), clock: clockText(t, info.finish_by) }) })
    : el("p", { class: "daily-time", text: t("daily_new_in", { time: durationText(t, left) }) });
  const items = info.games.map((g) => {
    const name = DIFFICULTY_NAMES[g.difficulty];
    let status;
    let buttons;
    if (g.status === "over") {
      status = t("daily_done", { score: t.number(g.score) });
      buttons = [
        button("leaderboard", t("leaderboard"), { "data-date": info.date, "data-difficulty": g.difficulty, "aria-label": `${t("leaderboard")}: ${name}` }),
        button("share", t("share"), { "data-game": g.game_id, "aria-label": `${t("share")}: ${name}` }),
      ];
    } else {
      const active = g.status === "active";
      status = t(active ? "daily_in_progress" : "daily_not_played");
      buttons = [button("daily-play", t(active ? "continue" : "play"), {
        className: "button primary", "data-difficulty": g.difficulty, "aria-label": `${t(active ? "continue" : "play")}: ${name}`,
      })];
    }
    return el("li", { class: "daily-item" },
      el("div", { class: "daily-head" }, el("strong", { text: name }), el("span", { class: "daily-status", text: status })),
      el("div", { class: "daily-buttons" }, ...buttons),
      g.game_id ? shareNote(t, shared, g.game_id) : null);
  });
  return [title,
    notice ? el("p", { class: "error-text daily-notice", role: "alert", text: notice }) : null,
    unfinished.length ? el("ul", { class: "daily-list" }, ...unfinished) : null,
    dayLine(t, info.number, info.date),
    el("p", { class: "note", text: t("daily_note") }),
    timeLine,
    el("ul", { class: "daily-list" }, ...items),
    el("div", { class: "actions" },
      // every day's leaderboard, from today's on (the days before are a button away there)
      button("leaderboard", t("leaderboards"), { "data-date": info.date, "data-difficulty": "peaceful" }),
      // the days gone by, each playable on its dice (pastdailies.js)
      button("open", t("past_dailies"), { "data-screen": "pastdaily" }),
      onDaily ? button("back-to-game", t("back_to_game"), { className: "button primary wide" }) : null),
  ];
}

// rank and percentile: "Place 3 of 12 · as good as or better than 75% of players"
// (a game that is not ranked, an anonymous player's: where it would stand among the ranked)
function standing(t, me, players) {
  if (me.ranked === false) return t("daily_would_rank", { rank: me.rank, players });
  return `${t("daily_rank", { rank: me.rank, players })} · ${t("daily_percentile", { percentile: Math.round(me.percentile) })}`;
}

// Under an unranked standing: why, and the way to be ranked from the next daily on (account:
// the player has saved their games since: this daily was played before).
function unrankedNote(t, me, account = false) {
  if (!me || me.ranked !== false) return null;
  if (account) return el("p", { class: "note unranked", text: t("daily_unranked_saved") });
  return el("div", { class: "unranked" },
    el("p", { class: "note", text: t("daily_unranked_note") }),
    button("open", t("account_save_games"), { "data-screen": "account" }));
}

// today: the server's today once known (the next day's button stops there)
export function leaderboardSheet(t, { date, difficulty, data, error, today = null, name = null, typed = null, nameMax = null, nameError = "", account = false, busy = false }) {
  const title = t("title_leaderboard");
  const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
    ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
      button("leaderboard", label, { "data-date": date, "data-difficulty": key, "aria-pressed": String(key === difficulty) })));
  // the day before and after (never past today, when today is known)
  const shift = (days) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86400000).toISOString().slice(0, 10);
  const days = el("div", { class: "tabs days" },
    button("leaderboard", `◂ ${t("previous_day")}`, { "data-date": shift(-1), "data-difficulty": difficulty, "data-focus": "previous-day", disabled: date <= FIRST_DAY }),
    button("leaderboard", `${t("next_day")} ▸`, { "data-date": shift(1), "data-difficulty": difficulty, "data-focus": "next-day", disabled: Boolean(today) && date >= today }));
  if (error) return [title, tabs, el("p", { class: "error-text", role: "alert", text: error }), days];
  if (!data) return [title, tabs, el("p", { text: t("loading") })];
  // (no "0 players finished" above "nobody has finished yet")
  const facts = data.rows.length ? [t(data.accounts_only ? "daily_ranked_players" : "daily_players", { n: data.players })] : [];
  if (data.par !== null && data.par !== undefined) facts.push(t("daily_coach_par", { par: t.number(data.par) }));
  let table;
  // aria-busy: a newer table is on its way (after a name, say)
  if (!data.rows.length) table = el("p", { class: "daily-nobody", "aria-busy": String(busy), text: t(data.accounts_only ? "daily_nobody_ranked" : "daily_nobody") });
  else {
    const head = el("tr", {}, ...["#", t("name"), t("score"), t("turns"), t("powers"), t("hints"), t("watch")].map(
      (h, i) => el("th", { text: h, scope: "col", class: i === 0 || i >= 2 ? "n" : "" })));
    const rows = data.rows.map((r) => {
      const watchable = data.ended || r.mine;
      return el("tr", { class: r.mine ? "mine" : "" },
        el("td", { class: "n place", text: String(r.rank) }),
        el("td", { class: "who", text: r.mine ? `${r.name || t("anonymous")} (${t("daily_you")})` : r.name || t("anonymous") }),
        el("td", { class: "n score", "data-label": t("score"), text: t.number(r.score) }),
        el("td", { class: "n", "data-label": t("turns"), text: String(r.turns) }),
        el("td", { class: "n", "data-label": t("powers"), text: String(r.powers_used) }),
        el("td", { class: "n", "data-label": t("hints"), text: String(r.hints_used) }),
        el("td", { class: "n review-cell" }, watchable
          ? replayLink(r.game_id, "", { className: "button small watch", "aria-label": t("replay_watch_game", { place: r.rank, score: r.score }) }, playIcon())
          : null));
    });
    table = el("table", { class: "scores-table", "aria-busy": String(busy) },
      el("caption", { class: "visually-hidden", text: `${t("title_leaderboard")} ${t("daily_number", { number: data.number })} ${DIFFICULTY_NAMES[difficulty]}` }),
      el("thead", {}, head), el("tbody", {}, ...rows));
  }
  const mine = data.rows.some((r) => r.mine);
  return [title,
    dayLine(t, data.number, data.date),
    tabs,
    facts.length ? el("p", { class: "daily-facts", text: facts.join(" · ") }) : null,
    table,
    data.me && !mine ? el("p", { class: "daily-me", text: `${t("daily_your_score", { score: t.number(data.me.score) })} · ${standing(t, data.me, data.players)}` }) : null,
    data.me && mine ? el("p", { class: "daily-me", text: standing(t, data.me, data.players) }) : null,
    unrankedNote(t, data.me, account),
    // the player's past daily of the day, apart from the table, and their friends' games
    data.past ? el("p", { class: "daily-me past-daily-me", text: `${t("past_daily_your_game", { score: t.number(data.past.score) })} · ${pastStanding(t, data.past, data.players)}` }) : null,
    friendsList(t, data.friends),
    data.ended ? null : el("p", { class: "note", text: t("daily_watch_later") }),
    // the day over, its dice are no longer everybody's: the player's game may be a challenge
    data.ended && data.me && data.me.game_id
      ? el("div", { class: "actions" }, button("challenge-create", t("challenge_friend"), { "data-game": data.me.game_id }))
      : null,
    data.seed ? el("p", { class: "note daily-seed", text: t("daily_seed", { seed: data.seed }) }) : null,
    days,
    // on the board without a name (or a name refused): the way to one, here
    ...(data.me && (!name || nameError) ? nameForm(t, { name, typed, nameMax, nameError }) : []),
  ];
}

// The coach's score on a finished daily's (or past daily's) dice, or that it is still playing.
function coachLine(t, game, result) {
  const board = result && result.board;
  const par = game.par ?? (board ? board.par : null);
  if (par !== null && par !== undefined) return el("p", { class: "daily-coach", text: t("daily_coach_scored", { par: t.number(par) }) });
  if (result && result.waiting) return el("p", { class: "daily-coach", text: t("daily_coach_playing") });
  return null;
}

// The game-over sheet of a daily: the coach's score on the same dice, rank and percentile, and
// LEADERBOARD, SHARE and WATCH REPLAY. result: {board (the day's leaderboard, null until it
// arrives), waiting (the coach's score is still being asked for)}.
export function dailyOver(t, game, result, shared) {
  const board = result && result.board;
  const coach = coachLine(t, game, result);
  const me = board && board.me ? el("p", { class: "daily-me", text: standing(t, board.me, board.players) }) : null;
  return [
    dayLine(t, game.daily.number, game.daily.date),
    coach, me,
    el("div", { class: "actions" },
      button("back-to-game", t("back_to_game"), { className: "button primary wide" }),
      button("leaderboard", t("leaderboard"), { "data-date": game.daily.date, "data-difficulty": game.difficulty }),
      button("share", t("share"), { "data-game": game.id }),
      button("review", t("review"), { "data-game": game.id }),
      replayLink(game.id, t("replay_watch"))),
    // (below the actions: BACK TO MY GAME stays where it is on a short phone)
    unrankedNote(t, board && board.me),
    shareNote(t, shared, game.id),
  ];
}

// Where a past daily's score would stand on its day's leaderboard (it is not on it).
function pastStanding(t, past, players) {
  return t("past_daily_would_rank", { rank: past.rank, players, percentile: Math.round(past.percentile) });
}

// The player's friends' games of a day's dice (league members, challenge partners), best first;
// one played after the day says so.
function friendsList(t, friends) {
  if (!friends || !friends.length) return null;
  return el("section", { class: "past-friends", "aria-label": t("past_daily_friends") },
    el("h3", { text: t("past_daily_friends") }),
    el("ul", { class: "friend-scores" }, ...friends.map((f) => {
      const who = f.name || t("anonymous");
      return el("li", {},
        el("span", { class: "who", text: f.past ? t("past_daily_friend_later", { name: who }) : who }),
        el("span", { class: "num", text: t.number(f.score) }),
        replayLink(f.game_id, "", { className: "button small watch", "aria-label": t("past_daily_watch_friend", { name: who, score: f.score }) }, playIcon()));
    })));
}

// The game-over sheet of a past daily: that it is not on its day's leaderboard, where it would
// stand there, the coach's score on the same dice, the friends who played them; LEADERBOARD
// (the day's), SHARE, REVIEW and WATCH REPLAY. result: as for a daily (dailyOver).
export function pastDailyOver(t, game, result, shared) {
  const board = result && result.board;
  const coach = coachLine(t, game, result);
  const where = board && board.past ? el("p", { class: "daily-me", text: pastStanding(t, board.past, board.players) }) : null;
  return [
    el("p", { class: "daily-day" },
      el("strong", { text: t("past_daily_number", { number: game.past_daily.number }) }), el("span", { text: ` · ${dayText(t, game.past_daily.date)}` })),
    el("p", { class: "note", text: t("past_daily_outside") }),
    coach, where,
    el("div", { class: "actions" },
      button("back-to-game", t("back_to_game"), { className: "button primary wide" }),
      button("leaderboard", t("leaderboard"), { "data-date": game.past_daily.date, "data-difficulty": game.difficulty }),
      button("share", t("share"), { "data-game": game.id }),
      button("review", t("review"), { "data-game": game.id }),
      replayLink(game.id, t("replay_watch"))),
    board ? friendsList(t, board.friends) : null,
    shareNote(t, shared, game.id),
  ];
}
