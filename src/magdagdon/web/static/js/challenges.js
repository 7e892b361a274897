// Challenges: a finished game's dice offered to friends through a link (/#challenge=CODE).
// Its screens: the link made (SHARE, COPY, its QR code), what the link shows before playing (who
// challenged, the difficulty, how many played; never the dice), the challenge's table with two
// boards side by side and the coach's score, "same dice, different choices" turn by turn from
// the first turn where two games parted, and the player's challenges. Imported when one of its
// screens first opens (controller.js routes to it); every rule and every score is the server's.

import { ApiError } from "./api.js";
import { askName } from "./askname.js";
import { button, el, playIcon, qrCode, replayLink, svg, withIcon } from "./dom.js";
import { share } from "./share.js";
import { miniBoard } from "./sheets.js";
import { DIFFICULTY_NAMES } from "./view.js";

// the screens' own styles, loaded with this module (leagues.js imports it too)
if (!document.querySelector("link[data-friends]")) {
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../css/friends.css", import.meta.url).href, "data-friends": "" }));
}

export const SCREENS = ["challenge", "challenge-link", "challenge-results", "challenge-compare", "challenges"];
// ms between asks for the coach's score on the same dice (a challenge's, a room's): a few
// seconds after the game's end, or on a busy server minutes later; about five minutes in all
export const COACH_WAITS = [2000, 4000, 8000, 16000, ...Array(9).fill(30000)];

const enc = encodeURIComponent;

// SHARE and COPY of a link, and what they did.
export function linkPart(t, { url, qr, status }, { shareIntent, copyIntent, qrLabel }) {
  return [
    el("div", { class: "field link-field" },
      el("label", { for: "link-text", text: t("link_label") }),
      el("input", { id: "link-text", readOnly: true, value: url, spellcheck: false })),
    el("div", { class: "actions" },
      button(shareIntent, t("share"), { className: "button primary" }),
      button(copyIntent, t("copy_link"))),
    status === "copied" ? el("p", { class: "share-note", role: "status", text: t("share_copied") }) : null,
    status === "failed" ? el("p", { class: "share-note", role: "status", text: t("link_copy_yourself") }) : null,
    qr ? qrCode(qr, qrLabel) : null,
  ];
}

// Passes a link on (Web Share, else the clipboard): within the tap, the text already here.
export async function shareLink(text, { copy = false } = {}) {
  if (copy) {
    try {
      await navigator.clipboard.writeText(text);
      return "copied";
    } catch {
      return "failed";
    }
  }
  return share(text);
}

// A player as the tables name them
export function who(t, name) {
  return name || t("anonymous");
}

// What one game did with its Majda Powers and RUINs in a turn, from its replay frames: the ±1
// changes (from what to what), the REROLLs (how many dice) and the RUIN ("Rolled 6 6 2 4" with
// a 3 on the board said nothing of the power that made it).
function turnPowers(t, frames, turn) {
  const said = [];
  let previous = null;
  for (const frame of frames) {
    if (frame.turn === turn && previous) {
      if (frame.kind === "adjust") {
        const die = frame.changed[0];
        const [from, to] = [previous.dice[die], frame.dice[die]];
        said.push(t("compare_adjust", { delta: to > from ? "+1" : "−1", from, to }));
      } else if (frame.kind === "reroll") said.push(t("compare_reroll", { n: frame.changed.length }));
      else if (frame.kind === "ruin") said.push(t("compare_ruin"));
    }
    previous = frame;
  }
  return said;
}

// SAME DICE, DIFFERENT CHOICES at one turn of two games of the same dice (``frames``: each
// one's replay frames; ``a`` and ``b`` their rows, {name, mine}): the turn, its dice, the two
// boards side by side with the powers each used, PREVIOUS and NEXT TURN (``turnIntent``, with
// data-by). A room's too (rooms.js).
export function duelParts(t, { a, b, frames, turn, last }, turnIntent) {
  const side = (row, list) => {
    const at = (n) => [...list].reverse().find((f) => f.turn === n && f.kind !== "start") || null;
    const end = at(turn) || list[list.length - 1];
    const before = turn > 1 ? (at(turn - 1) || list[0]) : list[0];
    const powers = turnPowers(t, list, turn);
    return el("div", { class: `duel-side${row.mine ? " mine" : ""}` },
      miniBoard(t, `${row.mine ? t("you") : who(t, row.name)}: ${t.number(end.score)}`, before.board, end.board),
      powers.length ? el("p", { class: "note compare-powers", text: powers.join(" · ") }) : null);
  };
  const rolled = frames[0].find((f) => f.turn === turn && f.kind === "roll");
  return [
    el("p", { class: "compare-turn", text: t("compare_turn", { n: turn, of: last }) }),
    rolled ? el("p", { class: "note", text: t("compare_dice", { dice: rolled.dice.join(" ") }) }) : null,
    el("div", { class: "duel" }, side(a, frames[0]), side(b, frames[1])),
    el("p", { class: "note", text: t("parted_rule") }),
    el("div", { class: "actions compare-nav" },
      button(turnIntent, t("previous_turn"), { "data-by": "-1", disabled: turn <= 1 }),
      button(turnIntent, t("next_turn"), { className: "button primary", "data-by": "1", disabled: turn >= last }))];
}

// Two boards side by side (COMPARE's icon)
function compareIcon() {
  return svg("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true" },
    svg("path", { d: "M3 5h7v14H3zM14 5h7v14h-7z", fill: "none", stroke: "currentColor", "stroke-width": 2.2, "stroke-linejoin": "round" }));
}

export class Challenges {
  constructor(controller) {
    this.c = controller;
    this.reset();
  }

  // What was shown of the player is dropped (signed in, out, deleted).
  reset() {
    this.landing = { code: null, info: null, error: "" };
    this.link = { gameId: null, data: null, error: "", status: "" };
    this.results = { code: null, data: null, error: "", asked: 0 };
    this.compare = { code: null, a: null, b: null, frames: null, turn: 1, error: "" };
    this.list = { data: null, error: "" };
    clearTimeout(this.coachTimer);
  }

  get api() { return this.c.api; }

  request(method, path, body) { return this.api.request(method, path, body); }

  // --- opening the screens ----------------------------------------------------------------

  async load(screen) {
    if (screen === "challenges") return this.loadList();
    if (screen === "challenge") return this.loadLanding();
    if (screen === "challenge-results") return this.loadResults();
    return this.c.paint();
  }

  async loadLanding() {
    const landing = this.landing;
    landing.info = null;
    landing.error = "";
    this.c.paint();
    try {
      landing.info = await this.request("GET", `/api/challenges/${enc(landing.code)}`);
    } catch (error) {
      landing.error = this.c.errorText(error);
    }
    if (this.c.screen === "challenge") this.c.paint();
  }

  async loadResults() {
    const results = this.results;
    results.error = "";
    if (!results.data || results.data.code !== results.code) results.data = null;
    this.c.paint();
    try {
      results.data = await this.request("GET", `/api/challenges/${enc(results.code)}/results`);
    } catch (error) {
      results.error = this.c.errorText(error);
    }
    if (this.c.screen !== "challenge-results") return;
    this.c.paint();
    // the coach plays the same dice on the server a few seconds after the first ask
    clearTimeout(this.coachTimer);
    if (results.data && results.data.coach === null && results.asked < COACH_WAITS.length) {
      const wait = COACH_WAITS[results.asked++];
      this.coachTimer = setTimeout(() => { if (this.c.screen === "challenge-results") this.loadResults(); }, wait);
    }
  }

  async loadList() {
    this.list.error = "";
    this.c.paint();
    try {
      this.list.data = await this.request("GET", "/api/challenges");
      if (this.list.data.news) await this.request("POST", "/api/challenges/seen").then(() => { this.c.api.news = 0; }).catch(() => {});
      this.c.doc.getElementById("news")?.remove();
    } catch (error) {
      this.list.error = this.c.errorText(error);
    }
    if (this.c.screen === "challenges") this.c.paint();
  }

  // A challenge's link opened this page: its screen shows that challenge.
  fromLink(code) {
    this.landing.code = code;
  }

  // --- what the player does ----------------------------------------------------------------

  async handle(intent, data) {
    switch (intent) {
      case "challenge-create": return this.create(data.game);
      case "challenge-share": case "challenge-copy": {
        const link = this.link.data;
        if (!link) return;
        const text = intent === "challenge-copy" ? link.url : `${this.c.t("challenge_share_text", { name: DIFFICULTY_NAMES[link.difficulty] || "" })}\n${link.url}`;
        this.link.status = await shareLink(text, { copy: intent === "challenge-copy" });
        if (this.link.status === "copied") this.c.view.announce(this.c.t("share_copied"));
        return this.c.paint();
      }
      case "challenge-play": return this.play();
      case "challenge-results": this.results.code = data.code; this.results.asked = 0; return this.c.open("challenge-results");
      case "challenge-compare": return this.openCompare(data.game);
      case "challenge-turn": {
        const last = this.compare.frames ? this.compare.last : 1;
        this.compare.turn = Math.min(Math.max(1, this.compare.turn + Number(data.by)), last);
        return this.c.paint();
      }
      case "challenge-rematch": return this.rematch();
      case "challenge-game": return this.showGame(data.game);
      case "challenge-landing": this.landing.code = data.code; return this.c.open("challenge");
      case "challenge-news": return this.news();
    }
  }

  async create(gameId) {
    await askName(this.c); // the link says who challenges
    this.link = { gameId, data: null, error: "", status: "" };
    await this.c.open("challenge-link");
    try {
      this.link.data = await this.request("POST", "/api/challenges", { game_id: gameId });
    } catch (error) {
      this.link.error = this.c.errorText(error);
    }
    if (this.c.screen === "challenge-link") this.c.paint();
  }

  async play() {
    const code = this.landing.code;
    await askName(this.c); // the table names who played
    await this.c.run(async () => {
      try {
        const game = await this.request("POST", `/api/challenges/${enc(code)}/games`);
        this.c.close();
        this.c.setGame(game);
        this.c.view.announce(this.c.t("challenge_started"));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "already_played") throw error;
        await this.showGame(error.body.game_id, code);
      }
    });
  }

  // One of the player's games of a challenge: on the board if it goes on, else the table.
  async showGame(gameId, code = null) {
    const game = await this.api.game(gameId).catch(() => null);
    if (game && game.phase !== "over") {
      this.c.close();
      this.c.setGame(game);
      this.c.render();
      return;
    }
    this.results.code = code || (game && game.challenge) || this.landing.code;
    this.results.asked = 0;
    await this.c.open("challenge-results");
  }

  async rematch() {
    const code = this.results.code;
    const t = this.c.t;
    await this.c.run(async () => {
      let game;
      try {
        game = await this.request("POST", `/api/challenges/${enc(code)}/rematch`, { abandon: false });
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "game_in_progress") throw error;
        // as NEW GAME: a game never rolled (version 0) is given up without asking
        const current = error.body && error.body.game;
        const touched = !current || current.version > 0;
        if (touched && !(await this.c.dialogs.ask(t("abandon_confirm"), t("new_game")))) return;
        game = await this.request("POST", `/api/challenges/${enc(code)}/rematch`, { abandon: true });
      }
      this.c.close();
      this.c.setGame(game);
      this.c.view.announce(t("rematch_started"));
    });
  }

  async openCompare(otherId) {
    const data = this.results.data;
    if (!data) return;
    const mine = data.rows.find((r) => r.mine) || data.rows.find((r) => r.challenger);
    const other = data.rows.find((r) => r.game_id === otherId) || data.rows.find((r) => r.challenger);
    // the player's game and the other, or (the player being the challenger) theirs and mine
    const [a, b] = mine.game_id === other.game_id ? [mine, data.rows.find((r) => r !== mine) || mine] : [mine, other];
    const parted = a.challenger ? b.parted_at : a.parted_at;
    this.compare = { code: data.code, a, b, frames: null, turn: parted || 1, last: 1, error: "", parted };
    await this.c.open("challenge-compare");
    try {
      const [fa, fb] = await Promise.all([this.api.frames(a.game_id), this.api.frames(b.game_id)]);
      this.compare.frames = [fa.frames, fb.frames];
      this.compare.last = Math.max(a.turns, b.turns);
    } catch (error) {
      this.compare.error = this.c.errorText(error);
    }
    if (this.c.screen === "challenge-compare") this.c.paint();
  }

  // On a visit, a quiet line when friends played the player's challenges since they looked.
  // (The page's first request was told how much news there is, on whichever device: the
  // line is asked for only then.)
  async news() {
    const mine = await this.request("GET", "/api/challenges").catch(() => null);
    if (mine) this.c.api.news = mine.news;
    if (!mine || !mine.news || this.c.doc.getElementById("news")) return;
    const t = this.c.t;
    // each said for what it is, by name while there are two or fewer ("Anu played your
    // challenge: 117 to your 96", "Anu challenged you back"), else counted
    const items = mine.items || [];
    const named = items.length === mine.news && items.length <= 2;
    const said = named
      ? items.map((i) => (i.kind === "played"
        ? t("news_played", { who: who(t, i.who), score: t.number(i.score), against: t.number(i.against) })
        : t("news_reply", { who: who(t, i.who) })))
      : [mine.played ? t("challenge_news", { n: mine.played }) : "", mine.replies ? t("challenge_replies", { n: mine.replies }) : ""];
    const line = el("p", { id: "news", class: "news", role: "status" },
      el("span", { text: said.filter(Boolean).join(" ") }),
      button("open", t("see"), { className: "button small", "data-screen": "challenges" }));
    this.c.doc.getElementById("status")?.after(line);
  }

  // --- the sheets -----------------------------------------------------------------------------

  sheet(screen, t) {
    if (screen === "challenge") return this.landingSheet(t);
    if (screen === "challenge-link") return this.linkSheet(t);
    if (screen === "challenge-results") return this.resultsSheet(t);
    if (screen === "challenge-compare") return this.compareSheet(t);
    return this.listSheet(t);
  }

  landingSheet(t) {
    const { info, error } = this.landing;
    const title = t("title_challenge");
    if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!info) return [title, el("p", { text: t("loading") })];
    const name = DIFFICULTY_NAMES[info.difficulty];
    const head = el("p", { class: "challenge-who", text: info.mine ? t("challenge_yours", { name }) : t("challenge_from", { who: who(t, info.by), name }) });
    const played = el("p", { class: "note", text: info.players ? t("challenge_played_by", { n: info.players }) : t("challenge_played_none") });
    let action;
    if (info.mine) action = button("challenge-results", t("challenge_table"), { className: "button primary", "data-code": info.code });
    else if (info.game_id) action = button("challenge-game", t("continue"), { className: "button primary", "data-game": info.game_id });
    else action = button("challenge-play", t("challenge_play"), { className: "button primary wide" });
    return [title, head, played,
      info.mine || info.game_id ? null : el("p", { class: "note", text: t("challenge_rules_note") }),
      el("div", { class: "actions" }, action)];
  }

  linkSheet(t) {
    const { data, error } = this.link;
    const title = t("title_challenge_friend");
    if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!data) return [title, el("p", { text: t("loading") })];
    return [title,
      el("p", { text: t("challenge_link_note") }),
      ...linkPart(t, { url: data.url, qr: data.qr, status: this.link.status }, {
        shareIntent: "challenge-share", copyIntent: "challenge-copy", qrLabel: t("challenge_qr"),
      }),
      el("div", { class: "actions" }, button("challenge-results", t("challenge_table"), { "data-code": data.code }))];
  }

  resultsSheet(t) {
    const { data, error } = this.results;
    const title = t("title_challenge");
    if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!data) return [title, el("p", { text: t("loading") })];
    const name = DIFFICULTY_NAMES[data.difficulty];
    const mine = data.rows.find((r) => r.mine);
    const challenger = data.rows.find((r) => r.challenger);
    const other = mine && mine.challenger ? data.rows.find((r) => !r.challenger) : challenger;
    const pair = [mine || challenger, other].filter(Boolean);
    const boards = el("div", { class: "duel" }, ...pair.map((r) => el("figure", { class: `duel-side${r.mine ? " mine" : ""}` },
      miniBoard(t, `${r.mine ? t("you") : who(t, r.name)}: ${t.number(r.score)}`, "..../..../..../....", r.board, { marked: false }))));
    const coach = data.coach === null ? t("challenge_coach_waiting") : t("challenge_coach", { score: t.number(data.coach) });
    const parted = mine && !mine.challenger ? mine.parted_at : other ? other.parted_at : null;
    // the table: one line a game, best first (a list: it fits a phone in every language)
    const rows = data.rows.map((r) => el("li", { class: `challenge-row${r.mine ? " mine" : ""}` },
      el("span", { class: "place", text: String(r.rank) }),
      el("span", { class: "who" }, el("span", { text: r.mine ? t("you") : who(t, r.name) }),
        r.challenger ? el("span", { class: "tag", text: t("challenger") }) : null),
      el("strong", { class: "score", text: t.number(r.score) }),
      el("span", { class: "parted", text: r.challenger ? "" : r.parted_at ? t("parted_row", { n: r.parted_at }) : t("parted_never_row") }),
      el("span", { class: "row-buttons" },
        pair.length > 1 && !r.mine ? withIcon(button("challenge-compare", "", { className: "button small", "data-game": r.game_id, "aria-label": t("compare_with", { who: who(t, r.name) }) }), compareIcon()) : null,
        replayLink(r.game_id, "", { className: "button small watch", "aria-label": t("replay_watch_who", { who: r.mine ? t("you") : who(t, r.name) }) }, playIcon()))));
    const table = el("ol", { class: "challenge-rows", "aria-label": t("challenge_table_caption") }, ...rows);
    return [title,
      el("p", { class: "challenge-who", text: challenger && challenger.mine ? t("challenge_yours", { name }) : t("challenge_from", { who: who(t, data.by), name }) }),
      boards,
      el("p", { class: "coach-line", role: "status", text: coach }),
      el("div", { class: "actions" },
        pair.length > 1 ? button("challenge-compare", t("same_dice"), { className: "button primary wraps", "data-game": other.game_id }) : null,
        mine && !mine.challenger ? button("challenge-rematch", t("rematch")) : null,
        mine ? button("challenge-create", t("challenge_another"), { "data-game": mine.game_id }) : null),
      pair.length > 1 ? el("p", { class: "note", text: parted ? t("parted_at", { n: parted }) : t("parted_never_note") }) : null,
      table];
  }

  compareSheet(t) {
    const { frames, error } = this.compare;
    const title = t("title_same_dice");
    if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!frames) return [title, el("p", { text: t("loading") })];
    return [title, ...duelParts(t, this.compare, "challenge-turn"),
      el("div", { class: "actions" }, button("challenge-results", t("challenge_table"), { "data-code": this.compare.code }))];
  }

  listSheet(t) {
    const { data, error } = this.list;
    const title = t("title_challenges");
    if (error) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!data) return [title, el("p", { text: t("loading") })];
    if (!data.challenges.length) return [title, el("p", { text: t("challenges_none") })];
    const items = data.challenges.map((c) => {
      const name = DIFFICULTY_NAMES[c.difficulty];
      let text;
      let action;
      if (c.role === "made") {
        text = t("challenge_made", { name, n: c.players });
        action = button("challenge-results", t("challenge_table"), { className: "button small", "data-code": c.code });
      } else if (c.role === "reply") {
        text = t("challenge_reply", { who: who(t, c.by), name });
        action = button("challenge-landing", t("challenge_play"), { className: "button small primary", "data-code": c.code });
      } else {
        text = c.status === "over" ? t("challenge_taken", { who: who(t, c.by), name, score: t.number(c.score) }) : t("challenge_going", { who: who(t, c.by), name });
        action = button("challenge-game", c.status === "over" ? t("challenge_table") : t("continue"), { className: "button small", "data-game": c.game_id });
      }
      return el("li", { class: "challenge-item" },
        el("span", { text }),
        c.unseen ? el("span", { class: "tag new", text: t("challenge_new", { n: c.unseen }) }) : null,
        action);
    });
    return [title, el("ul", { class: "challenge-list" }, ...items)];
  }
}

export { Challenges as Screens };
