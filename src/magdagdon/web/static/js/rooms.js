// Live rooms: friends play the same dice at the same moment (/#room=CODE). Its screen (the
// sheet "room"): make a room (difficulty, turn clock) or join one by its code; the room before
// it starts (its code, link and QR code, who is in, START for its maker); the standings and the
// boards of the turns closed; at the end, every final board. While a room is played its game
// is on the board as any game (its actions are the game's), with the room's bar above it: the
// turn's clock, who has ended the turn, and the others' boards as the last closed turn left
// them (tap one: the room's sheet, that board large). The room's events come over a WebSocket
// that resumes after the last event seen. Once it is over: SAME DICE, DIFFERENT CHOICES for any
// two of its players (the sheet "room-compare"). Imported when the screen first opens, or when a
// room's game is shown (controller.js routes to it); every rule, roll and score is the server's.

import { ApiError } from "./api.js";
import { askName } from "./askname.js";
import { button, el } from "./dom.js";
import { COACH_WAITS, duelParts, linkPart, shareLink, who } from "./challenges.js";
import { miniBoard } from "./sheets.js";
import { DIFFICULTY_NAMES } from "./view.js";

if (!document.querySelector("link[data-rooms]")) {
  document.head.append(el("link", { rel: "stylesheet", href: new URL("../css/rooms.css", import.meta.url).href, "data-rooms": "" }));
}

export const SCREENS = ["room", "room-compare"];
const CLOCKS = [30, 60, 120, null]; // seconds a turn lasts; null: wait for everyone
const RETRIES = [500, 1000, 2000, 4000, 8000]; // ms before reconnecting, then every 8 s
const EMPTY = "..../..../..../....";
const enc = encodeURIComponent;

// A room's code from what was typed: letters and digits only, as the server compares them
function typedCode(text) {
  return String(text || "").toUpperCase().replace(/[^A-Z0-9]/g, "").slice(0, 16);
}

// A moment the server named (ISO), as a time of this device's clock (ms): counted from the
// server's moment of the same answer, so the two clocks need not agree
function localTime(moment, serverNow) {
  return Date.now() + (Date.parse(moment) - Date.parse(serverNow));
}

// "0:42" of a number of seconds
function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class Rooms {
  constructor(controller) {
    this.c = controller;
    this.form = { difficulty: "peaceful", clock: 60, code: "" };
    this.timer = null;
    this.reset();
  }

  // Forget the room followed (a new identity on this device; leaving it)
  reset() {
    this.close();
    clearTimeout(this.coachTimer);
    this.coachTimer = null;
    this.coachAsks = 0; // the asks for the coach's score of a room over
    this.code = null;
    this.state = null; // GET /api/rooms/{code}
    this.seq = 0; // the last event seen
    this.closed = null; // the last closed turn: {turn, boards} (turn_closed's)
    this.done = new Set(); // who has ended the open turn (names)
    this.deadline = null; // the open turn's, as a time of this device's clock (ms)
    this.shared = ""; // what SHARE or COPY LINK did last
    this.error = "";
    this.notice = "";
    this.enlarged = null; // a member's name whose board the sheet shows large
    this.compare = null; // SAME DICE, DIFFERENT CHOICES: {a, b, frames, turn, last, parted, error}
    this.warned = 0; // the turn whose last seconds were said
    this.paintBar();
  }

  // Follow room ``code`` from now on (nothing of the room before is kept)
  enter(code) {
    this.reset();
    this.code = code;
  }

  // Whether this room's game is the one on the board
  onBoard() {
    return Boolean(this.c.game && this.c.game.room === this.code);
  }

  // The link's room (/#room=CODE): shown when the screen opens
  fromLink(code) {
    if (typedCode(code) !== this.code) this.enter(typedCode(code));
  }

  async load() {
    this.error = "";
    this.enlarged = null;
    this.c.paint();
    if (this.code) await this.refresh();
  }

  async handle(intent, data) {
    switch (intent) {
      case "room-follow": return this.follow(data.code);
      case "room-difficulty": this.form.difficulty = data.difficulty; return this.c.paint();
      case "room-clock": this.form.clock = data.clock === "" ? null : Number(data.clock); return this.c.paint();
      case "room-create": return this.create();
      case "room-join": return this.join(this.code);
      case "room-join-code": { // the form: a code typed
        const code = typedCode(data.code);
        this.form.code = data.code || "";
        if (!code) return;
        this.enter(code);
        return this.join(code);
      }
      case "room-start": return this.start();
      case "room-share": case "room-copy": {
        if (!this.state) return;
        const url = this.state.url;
        const text = intent === "room-copy" ? url : `${this.c.t("room_share_text", { name: DIFFICULTY_NAMES[this.state.difficulty] })}\n${url}`;
        this.shared = await shareLink(text, { copy: intent === "room-copy" });
        if (this.shared === "copied") this.c.view.announce(this.c.t("share_copied"));
        return this.c.paint();
      }
      case "room-board": this.enlarged = data.name; return this.c.open("room");
      case "room-play": return this.showGame();
      case "room-again": return this.again();
      case "room-compare": return this.openCompare(null, null);
      case "room-compare-a": return this.openCompare(data.value, this.compare?.b.game_id);
      case "room-compare-b": return this.openCompare(this.compare?.a.game_id, data.value);
      case "room-turn": {
        const compare = this.compare;
        if (compare && compare.frames) compare.turn = Math.min(Math.max(1, compare.turn + Number(data.by)), compare.last);
        return this.c.paint();
      }
      case "room-new": // another room: the form again
        this.reset();
        return this.c.paint();
    }
  }

  // --- requests ---------------------------------------------------------------------------

  async refresh() {
    const code = this.code;
    try {
      const state = await this.c.api.request("GET", `/api/rooms/${enc(code)}`);
      if (code !== this.code) return;
      this.setState(state);
      this.error = "";
    } catch (error) {
      if (code !== this.code) return;
      this.error = this.c.errorText(error);
    }
    this.connect();
    this.c.paint();
    this.paintBar();
  }

  setState(state) {
    this.state = state;
    // over: the coach's score on the same dice comes from the background, asked for again
    if (state.phase === "over" && state.coach === null && this.coachAsks < COACH_WAITS.length && !this.coachTimer) {
      const code = this.code;
      this.coachTimer = setTimeout(() => {
        this.coachTimer = null;
        if (this.code === code) this.refresh();
      }, COACH_WAITS[this.coachAsks++]);
    }
    this.done = new Set(state.members.filter((m) => m.done).map((m) => m.name));
    this.deadline = state.deadline && state.turn_open ? localTime(state.deadline, state.now) : null;
    this.tick();
  }

  async create() {
    await askName(this.c);
    await this.c.run(async () => {
      const seed = this.c.seed === null ? {} : { seed: Number(this.c.seed) }; // (test servers only)
      const made = await this.c.api.request("POST", "/api/rooms", { difficulty: this.form.difficulty, clock: this.form.clock, ...seed });
      this.enter(made.code);
    });
    if (this.code) {
      this.c.view.announce(this.c.t("room_made"));
      await this.refresh();
    }
  }

  async join(code) {
    if (!code) return;
    await askName(this.c);
    let failed = null;
    await this.c.run(async () => {
      try {
        await this.c.api.request("POST", `/api/rooms/${enc(code)}/members`);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        failed = error; // room_started: it may be watched; room_full, room_not_found: said
      }
    });
    if (code !== this.code) return;
    this.notice = failed ? this.c.errorText(failed) : "";
    if (failed && failed.code === "room_not_found") {
      this.code = null;
      this.error = this.notice;
      this.notice = "";
      return this.c.paint();
    }
    if (!failed) this.c.view.announce(this.c.t("room_joined"));
    await this.refresh();
  }

  // PLAY AGAIN: the next room (made now, or the one another member made), before its start
  async again() {
    const code = this.code;
    let next = null;
    let failed = null;
    await this.c.run(async () => {
      try {
        next = await this.c.api.request("POST", `/api/rooms/${enc(code)}/again`);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "room_started") throw error;
        failed = error; // the next room started without this player: they may watch it
      }
    });
    const target = next ? next.code : failed && this.state && this.state.next;
    if (!target || code !== this.code) return;
    this.enter(target);
    if (failed) this.notice = this.c.errorText(failed);
    await this.refresh();
    if (!this.c.screen) await this.c.open("room");
  }

  async start() {
    await this.c.run(async () => {
      this.setState(await this.c.api.request("POST", `/api/rooms/${enc(this.code)}/start`));
    });
    await this.showGame();
  }

  // The player's game of the room on the board (the sheet closes), as it stands now
  async showGame() {
    const state = this.state;
    if (!state || !state.game_id) return this.c.paint();
    await this.gameAgain();
    if (this.c.screen === "room") this.c.close();
    this.c.focusBoard();
  }

  // The player's game of the room fetched again (the room rolled, or the clock ended the
  // turn): asked for as often as the events say, fetched one at a time, the last after the
  // last ask (an ask while the board is busy waits for it)
  gameAgain() {
    this.wanted = true;
    if (this.fetching) return this.fetching;
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    this.fetching = (async () => {
      while (this.wanted) {
        const id = this.state && this.state.game_id;
        if (!id) break;
        while (this.c.ui.busy) await sleep(100);
        let fetched = false;
        this.wanted = false;
        await this.c.run(async () => {
          fetched = true;
          const game = await this.c.api.game(id);
          if (this.state && this.state.game_id === id) this.c.setGame(game);
        });
        if (!fetched) this.wanted = true; // (another request took the board first)
      }
    })().finally(() => { this.fetching = null; });
    return this.fetching;
  }

  // The game on the board is a room's (or not: null): its room is followed, its bar drawn
  async follow(code) {
    if (!code) return this.paintBar(); // (another game: the bar goes)
    if (code !== this.code) {
      this.enter(code);
      await this.refresh();
    } else if (!this.socket) this.connect();
    this.paintBar();
  }

  // --- the events -------------------------------------------------------------------------

  connect() {
    if (!this.code || this.socket || !this.state) return;
    const code = this.code;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/api/rooms/${enc(code)}/live?since=${this.seq}`);
    this.socket = socket;
    socket.addEventListener("open", () => { this.retries = 0; });
    socket.addEventListener("message", (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (this.socket === socket) this.received(event);
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return; // (closed on purpose)
      this.socket = null;
      if (this.code !== code || (this.state && this.state.phase === "over")) return;
      const wait = RETRIES[Math.min(this.retries || 0, RETRIES.length - 1)];
      this.retries = (this.retries || 0) + 1;
      this.reconnect = setTimeout(() => { if (this.code === code) this.connect(); }, wait);
    });
  }

  close() {
    clearTimeout(this.reconnect);
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
  }

  async received(event) {
    if (event.seq <= this.seq) return; // seen
    this.seq = event.seq;
    const t = this.c.t;
    const body = event.body;
    const state = this.state;
    switch (event.type) {
      case "member_joined":
        if (body.player && !body.player.me && state && state.phase === "waiting") this.c.view.announce(t("room_member_joined", { name: who(t, body.player.name) }));
        return this.refreshLater();
      case "room_started":
        await this.refresh();
        if (this.state && this.state.game_id && (this.c.screen === "room" || this.onBoard())) await this.showGame();
        return;
      case "turn_opened":
        if (state) {
          Object.assign(state, { turn: body.turn, turn_open: true, phase: "playing" });
          this.done = new Set();
          this.deadline = body.deadline ? localTime(body.deadline, event.at) : null;
          this.tick();
        }
        this.paintBar();
        if (!this.onBoard()) return;
        await this.gameAgain();
        if (this.c.game.phase !== "over") this.c.view.announce(t("room_turn_opened", { turn: body.turn }));
        return;
      case "member_done":
        if (body.player) this.done.add(body.player.name);
        this.paintBar();
        if (this.c.screen === "room") this.c.paint();
        return;
      case "turn_closed": {
        this.closed = { turn: body.turn, boards: body.boards };
        if (state) state.turn_open = false;
        this.deadline = null;
        const mine = body.boards.find((b) => b.me);
        if (mine && mine.coached) this.c.view.announce(t("room_coached_you", { turn: body.turn }));
        if (mine && this.onBoard() && (mine.coached || mine.over)) await this.gameAgain();
        this.paintBar();
        if (this.c.screen === "room") this.c.paint();
        return;
      }
      case "room_again":
        if (state) state.next = body.code;
        if (body.player && !body.player.me) this.c.view.announce(t("room_again_made", { name: who(t, body.player.name) }));
        if (this.c.screen === "room") this.c.paint();
        return;
      case "room_over":
        if (state) Object.assign(state, { phase: "over", turn_open: false });
        this.paintBar();
        if (this.onBoard()) {
          await this.gameAgain();
          if (!this.c.screen) await this.c.open("room");
        }
        return this.refresh(); // (drawn again; the coach's score is asked for from here on)
    }
  }

  // The room's state again, once the events in flight are in
  refreshLater() {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.refresh(), 150);
  }

  // --- the clock ------------------------------------------------------------------------

  secondsLeft() {
    return this.deadline === null ? null : (this.deadline - Date.now()) / 1000;
  }

  // Every second while a turn with a clock is open: the bar's clock; its last 10 seconds said
  tick() {
    clearInterval(this.timer);
    this.timer = null;
    if (this.deadline === null) return;
    this.timer = setInterval(() => {
      const left = this.secondsLeft();
      if (left === null) return;
      const node = document.getElementById("room-clock");
      if (node) {
        node.textContent = clockText(left);
        node.classList.toggle("late", left <= 10);
      }
      const state = this.state;
      const playing = this.onBoard() && this.c.game.phase !== "over" && state && !this.done.has(this.meName());
      if (playing && left <= 10 && this.warned !== state.turn) {
        this.warned = state.turn;
        this.c.view.announce(this.c.t("room_seconds_left", { n: Math.max(0, Math.ceil(left)) }));
      }
      // the server closes the turn at its deadline; the events tell when (a second's grace)
      if (left < -3 && this.state) {
        this.deadline = null;
        clearInterval(this.timer);
        this.refresh();
      }
    }, 1000);
  }

  meName() {
    const me = this.state && this.state.members.find((m) => m.me);
    return me ? me.name : undefined;
  }

  // --- drawing ----------------------------------------------------------------------------

  // The bar above the board while a room's game is shown: the turn's clock and who has ended
  // it, and each other member's board as the last closed turn left it
  paintBar() {
    const bar = document.getElementById("room-bar");
    if (!bar) return;
    const state = this.state;
    const shown = Boolean(this.code && state && this.onBoard() && state.phase !== "waiting");
    bar.hidden = !shown;
    if (!shown) return bar.replaceChildren();
    const t = this.c.t;
    const boards = new Map((this.closed ? this.closed.boards : []).map((b) => [b.name, b]));
    const left = this.secondsLeft();
    const over = state.phase === "over";
    const waiting = state.members.filter((m) => !this.done.has(m.name)).length;
    const status = el("div", { class: "room-status" },
      left !== null && !over
        ? el("strong", { id: "room-clock", class: `room-clock num${left <= 10 ? " late" : ""}`, role: "timer", "aria-label": t("room_clock_label"), text: clockText(left) })
        : null,
      el("span", { class: "room-playing", text: over ? t("room_over") : t("room_playing", { n: waiting }) }));
    const others = state.members.filter((m) => !m.me).map((m) => {
      const b = boards.get(m.name);
      const done = !over && this.done.has(m.name);
      const coached = Boolean(b && b.coached);
      const label = [who(t, m.name), b ? t.number(b.score) : "", done ? t("room_done") : "", coached ? t("room_coached") : ""].filter(Boolean).join(", ");
      return el("button", { type: "button", class: `room-member${done ? " done" : ""}${coached ? " coached" : ""}`, "data-intent": "room-board", "data-name": m.name || "", "aria-label": label },
        el("span", { class: "room-mini", "aria-hidden": "true" },
          ...[...(b ? b.board : EMPTY).replaceAll("/", "")].map((ch) => el("span", { class: ch === "X" ? "ruin" : "", text: ch === "." ? "" : ch === "X" ? "✕" : ch }))),
        el("span", { class: "room-name", "aria-hidden": "true", text: `${done ? "✓ " : ""}${who(t, m.name)}` }),
        el("span", { class: "room-score num", "aria-hidden": "true", text: b ? `${t.number(b.score)}${coached ? ` · ${t("room_coached_short")}` : ""}` : "" }));
    });
    bar.replaceChildren(status, el("div", { class: "room-others", role: "group", "aria-label": t("room_others") }, ...others));
  }

  // SAME DICE, DIFFERENT CHOICES of two players' games (game ids; by default the player, or
  // the winner for one watching, and the best of the others), from the first turn they parted
  async openCompare(firstId, secondId) {
    const state = this.state;
    const played = state && state.phase === "over" ? state.members.filter((m) => m.game_id) : [];
    if (played.length < 2) return;
    const ranked = [...played].sort((x, y) => (y.score ?? -1) - (x.score ?? -1));
    const a = played.find((m) => m.game_id === firstId) || played.find((m) => m.me) || ranked[0];
    const b = played.find((m) => m.game_id === secondId && m !== a) || ranked.find((m) => m !== a);
    const row = (m) => ({ name: m.name, mine: m.me, game_id: m.game_id });
    const compare = { a: row(a), b: row(b), frames: null, turn: 1, last: 1, parted: null, error: "" };
    this.compare = compare;
    await this.c.open("room-compare");
    try {
      const [parting, fa, fb] = await Promise.all([
        this.c.api.request("GET", `/api/rooms/${enc(this.code)}/compare?a=${enc(a.game_id)}&b=${enc(b.game_id)}`),
        this.c.api.frames(a.game_id), this.c.api.frames(b.game_id)]);
      Object.assign(compare, { frames: [fa.frames, fb.frames], turn: parting.parted_at || 1, last: parting.turns, parted: parting.parted_at });
    } catch (error) {
      compare.error = this.c.errorText(error);
    }
    if (this.compare === compare && this.c.screen === "room-compare") this.c.paint();
  }

  compareSheet(t) {
    const title = t("title_same_dice");
    const compare = this.compare;
    const state = this.state;
    if (!compare || !state) return [title, el("p", { text: t("loading") })];
    const played = state.members.filter((m) => m.game_id);
    const pick = (id, label, chosen) => el("div", { class: "field" },
      el("label", { for: id, text: label }),
      el("select", { id, "data-change": id },
        ...played.map((m) => el("option", { value: m.game_id, selected: m.game_id === chosen, text: who(t, m.name) }))));
    const pickers = el("div", { class: "room-pickers" },
      pick("room-compare-a", t("room_compare_first"), compare.a.game_id),
      pick("room-compare-b", t("room_compare_second"), compare.b.game_id));
    const back = el("div", { class: "actions" }, button("open", t("room_standings"), { "data-screen": "room" }));
    if (compare.error) return [title, pickers, el("p", { class: "error-text", role: "alert", text: compare.error }), back];
    if (!compare.frames) return [title, pickers, el("p", { text: t("loading") }), back];
    const names = { a: compare.a.mine ? t("you") : who(t, compare.a.name), b: compare.b.mine ? t("you") : who(t, compare.b.name) };
    const said = compare.parted ? t("room_parted", { ...names, n: compare.parted }) : t("room_parted_never", names);
    return [title, pickers, el("p", { class: "note room-parted", role: "status", text: said }), ...duelParts(t, compare, "room-turn"), back];
  }

  sheet(screen, t) {
    if (screen === "room-compare") return this.compareSheet(t);
    const title = t("title_room");
    const error = this.error ? el("p", { class: "error-text", role: "alert", text: this.error }) : null;
    if (!this.code) return [title, ...this.makeForm(t), error];
    const state = this.state;
    if (!state) return [title, error || el("p", { text: t("loading") })];
    const notice = this.notice ? el("p", { class: "note", role: "status", text: this.notice }) : null;
    const head = el("p", { class: "room-head" },
      el("strong", { text: t("room_code", { code: state.code }) }), " · ",
      el("span", { text: `${DIFFICULTY_NAMES[state.difficulty]} · ${state.clock ? t("room_clock_s", { n: state.clock }) : t("room_clock_none")}` }));
    if (state.phase === "waiting") return [title, head, notice, error, ...this.lobby(t, state)];
    return [title, head, notice, error, ...this.standingsPart(t, state)];
  }

  makeForm(t) {
    const tabs = el("div", { class: "tabs", role: "group", "aria-label": t("difficulty") },
      ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) =>
        button("room-difficulty", label, { "data-difficulty": key, "aria-pressed": String(key === this.form.difficulty) })));
    const clocks = el("div", { class: "tabs", role: "group", "aria-label": t("room_clock") },
      ...CLOCKS.map((s) => button("room-clock", s ? t("room_clock_s", { n: s }) : t("room_clock_none"), { "data-clock": s === null ? "" : String(s), "aria-pressed": String(s === this.form.clock) })));
    const input = el("input", { id: "room-code-input", name: "code", autocomplete: "off", autocapitalize: "characters", spellcheck: false, maxLength: 20, value: this.form.code, required: true });
    return [
      el("p", { class: "note", text: t("room_note") }),
      el("h3", { text: t("room_make") }),
      tabs,
      el("p", { class: "room-label", text: t("room_clock") }),
      clocks,
      el("div", { class: "actions" }, button("room-create", t("room_create"), { className: "button primary" })),
      el("h3", { text: t("room_join_title") }),
      el("form", { class: "room-join", "data-form": "room-join-code" },
        el("div", { class: "field" }, el("label", { for: "room-code-input", text: t("room_code_label") }), input),
        el("button", { type: "submit", class: "button", text: t("room_join") })),
    ];
  }

  lobby(t, state) {
    const members = el("ul", { class: "room-members" },
      ...state.members.map((m) => el("li", { class: m.me ? "mine" : "" },
        el("span", { text: who(t, m.name) }),
        m.maker ? el("span", { class: "tag", text: t("room_maker") }) : null,
        m.me ? el("span", { class: "tag", text: t("room_you") }) : null)));
    const count = el("p", { text: t("room_members_count", { n: state.members.length, size: state.size }) });
    let next;
    if (state.maker) next = [el("div", { class: "actions" }, button("room-start", t("room_start"), { className: "button primary wide" }))];
    else if (state.member) next = [el("p", { class: "note", role: "status", text: t("room_wait_start", { name: who(t, state.members.find((m) => m.maker)?.name) }) })];
    else next = [el("div", { class: "actions" }, button("room-join", t("room_join"), { className: "button primary wide", disabled: state.members.length >= state.size }))];
    const link = state.member ? linkPart(t, { url: state.url, qr: state.qr, status: this.shared }, {
      shareIntent: "room-share", copyIntent: "room-copy", qrLabel: t("room_qr"),
    }) : [];
    return [count, members, ...next, ...link];
  }

  standingsPart(t, state) {
    const last = this.closed ? this.closed.turn : 0;
    const boards = this.closed ? [...this.closed.boards].sort((a, b) => b.score - a.score) : []; // (the standings)
    const byName = new Map(boards.map((b) => [b.name, b]));
    const rows = [...state.members].map((m) => ({ m, b: byName.get(m.name) }))
      .sort((x, y) => (y.b ? y.b.score : -1) - (x.b ? x.b.score : -1));
    const over = state.phase === "over";
    const caption = over ? t("room_final") : last ? t("room_after_turn", { turn: last }) : t("room_first_turn");
    const table = el("ol", { class: "room-standings" },
      ...rows.map(({ m, b }) => el("li", { class: m.me ? "mine" : "" },
        el("span", { class: "who", text: who(t, m.name) }),
        m.coached.length ? el("span", { class: "tag", text: t("room_coached_turns", { turns: m.coached.join(", ") }) }) : null,
        el("strong", { class: "num", text: b ? t.number(b.score) : "–" }))));
    const enlarged = this.enlarged !== null ? byName.get(this.enlarged) : null;
    const large = enlarged
      ? el("div", { class: "room-large" }, miniBoard(t, `${who(t, enlarged.name)} · ${t.number(enlarged.score)}`, EMPTY, enlarged.board, { marked: false }))
      : null;
    const finals = over
      ? el("div", { class: "room-finals" }, ...boards.map((b) => miniBoard(t, `${who(t, b.name)} · ${t.number(b.score)}`, EMPTY, b.board, { marked: false })))
      : null;
    const actions = [];
    if (state.game_id && !over && this.c.game?.id !== state.game_id) actions.push(button("room-play", t("room_to_board"), { className: "button primary wide" }));
    else if (state.game_id && !over) actions.push(button("close", t("room_to_board"), { className: "button primary wide" }));
    if (over || !state.member) actions.push(button("back-to-game", t("back_to_game")));
    if (over && state.member) actions.unshift(button("room-again", t("room_again"), { className: "button primary wide" }));
    if (over) actions.push(button("room-new", t("room_another")));
    if (!state.member) actions.unshift(el("p", { class: "note", text: t("room_watching") }));
    const next = over && state.next ? el("p", { class: "note", role: "status", text: t("room_again_note") }) : null;
    const played = state.members.filter((m) => m.game_id);
    const compare = over && played.length > 1
      ? el("div", { class: "actions" }, button("room-compare", t("same_dice"), { className: "button wraps" }))
      : null;
    const coach = over
      ? el("p", { class: "coach-line", text: state.coach !== null ? t("room_coach", { score: t.number(state.coach) }) : t("room_coach_waiting") })
      : null;
    // what moves the game on comes before the boards (eight of them are taller than a phone)
    return [el("h3", { text: caption }), table, coach, next, el("div", { class: "actions" }, ...actions), compare, large, finals];
  }
}

export { Rooms as Screens };
