// The controller: turns intents into API calls and keeps the UI's own state (what is
// selected, which sheet is open). Every rule lives on the server; this only asks, and has the
// view draw the game, the dialogs draw the sheet and questions, and the preferences remember.

import { ApiError } from "./api.js";
import { MODULES, moduleOf } from "./dialogs.js";
import { loadCatalog, prefetchLanguages, translatePage } from "./i18n.js";
import { share, shareText } from "./share.js";
import { DIFFICULTY_NAMES, deviceName } from "./view.js";

function hintKey(game) {
  return [game.id, game.turns, game.phase, game.dice.map((d) => d.value).join("")].join("|");
}

// A challenge's, a league's or a live room's link in the address (/#challenge=CODE,
// /#league=INVITE, /#room=CODE), taken out of it (and its history): {screen, code}, or null.
const LINK_SCREENS = { challenge: "challenge", league: "league-invite", room: "room" };
function linkFromAddress() {
  const address = new URL(location.href);
  const found = /^#(challenge|league|room)=([A-Za-z0-9-]{1,32})$/.exec(address.hash);
  if (!found) return null;
  history.replaceState(history.state, "", `${address.pathname}${address.search}`);
  return { screen: LINK_SCREENS[found[1]], code: found[2] };
}

export class Controller {
  constructor({ api, view, dialogs, preferences, t, doc, walkthrough = null }) {
    this.walkthrough = walkthrough;
    // the guided tour's step on the lit squares shows them on a die of the real roll
    if (walkthrough) walkthrough.selectDie = () => this.selectForTour();
    this.api = api;
    this.view = view;
    this.dialogs = dialogs;
    this.preferences = preferences;
    this.doc = doc;
    this.t = t;
    this.game = null;
    this.ui = { selected: null, reroll: false, chosen: new Set(), ruinMode: false, focus: 0, busy: false, animate: [], hint: null, hintMore: false, whyNot: "" };
    this.reviewed = { id: null, review: null, error: "" };
    this.screen = null;
    this.scores = { difficulty: "peaceful", scope: "all", table: null, name: "", nameMax: null, nameError: "" };
    this.rulesTexts = {}; // by language
    this.rulesError = ""; // why the rules text did not load (offline, say)
    this.daily = { info: null, error: "", notice: "" }; // today's dailies (GET /api/daily)
    // a sheet to open once the current request is done (today's dailies after one ended, or
    // from the address: /?open=daily, where a replay of a daily not over yet sends a player)
    this.pendingScreen = null;
    const address = new URL(location.href);
    if (address.searchParams.get("open") === "daily") {
      this.pendingScreen = "daily";
      address.searchParams.delete("open"); // once: a reload goes on with the game, not the list
      history.replaceState(history.state, "", `${address.pathname}${address.search}${address.hash}`);
    }
    // the account screen's state; a transfer code's QR code opens it with the code filled in
    // (view and screen: account.js and its AccountScreen, once the screen has been opened)
    this.account = { view: null, screen: null, me: null, passkeys: null, sessions: null, code: null, codeInput: "", notice: "", error: "", supported: false };
    if (this.codeFromAddress()) this.pendingScreen = "account";
    // the screens of their own modules (dialogs.js's MODULES), imported when first opened;
    // a challenge's or a league's link (/#challenge=CODE, /#league=INVITE) opens its screen
    this.modules = { error: "" };
    this.link = linkFromAddress();
    if (this.link) this.pendingScreen = this.link.screen;
    // a transfer link pasted into this tab's address bar, the game already open: no reload
    addEventListener("hashchange", () => {
      const link = linkFromAddress();
      if (link) this.link = link;
      else if (!this.codeFromAddress()) return;
      const screen = link ? link.screen : "account";
      if (this.ui.busy) this.pendingScreen = screen;
      else this.open(screen);
    });
    this.leaderboard = { date: null, difficulty: "peaceful", data: null, error: "" };
    this.stats = { difficulty: "peaceful", data: null, error: "" };
    this.result = { id: null, board: null, waiting: false }; // a finished daily's standing and par
    this.shared = { id: null, status: "", text: "" }; // what SHARE did last
    this.shares = new Map(); // the finished games SHARE may tell, by id ({game, failed, promise})
    this.seed = new URLSearchParams(location.search).get("seed"); // test servers only
    this.regular = null; // the last regular game shown: {id, over}
    const saved = preferences.animations();
    this.animations = saved === null ? !matchMedia("(prefers-reduced-motion: reduce)").matches : saved;
    this.view.setMotion(this.animations);
    dialogs.onSheetClosed(() => {
      this.leaveScreen(); // closed by the browser (Escape)
      this.screen = null;
    });
  }

  // A transfer code's address (/#transfer=CODE, its QR code's): the code into the account's
  // field, taken out of the address (and its history). Whether there was one.
  codeFromAddress() {
    const address = new URL(location.href);
    if (!address.hash.startsWith("#transfer=")) return false;
    history.replaceState(history.state, "", `${address.pathname}${address.search}`); // once
    let code = address.hash.slice("#transfer=".length);
    try {
      code = decodeURIComponent(code);
    } catch {
      // not a code this game made: shown as it came, the server says it is wrong
    }
    this.account.codeInput = code.slice(0, 32);
    this.account.codeFromLink = true;
    this.account.focusCode = true;
    return true;
  }

  async start() {
    translatePage(this.doc, this.t);
    await this.run(async () => {
      // Nothing remembered (a first visit): the game in progress or a new one, in one request.
      if (!this.preferences.lastGame()) {
        try {
          const seed = this.seed === null ? null : Number(this.seed);
          return this.setGame(await this.api.resumeOrCreate(this.preferences.difficulty() || "peaceful", { seed }));
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== "game_unreadable") throw error;
          this.view.announce(this.errorText(error)); // the damaged game is set aside
          return this.setGame(await this.newGame(this.preferences.difficulty() || "peaceful"));
        }
      }
      let current = null;
      let unreadable = false;
      try {
        current = await this.api.currentGame(); // null: no unfinished game
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "game_unreadable") throw error;
        unreadable = true;
        this.view.announce(this.errorText(error)); // the damaged game is set aside
      }
      // The last game shown, when it was not the regular game in progress: today's daily
      // (being played or just finished) is shown again; after a reload on a finished game, that
      // game again rather than a new one (its result sheet too, unless the player closed it).
      const last = unreadable ? null : this.preferences.lastGame();
      const remembered = last && (!current || current.id !== last) ? await this.api.game(last).catch(() => null) : null;
      if (remembered && remembered.daily && await this.isPlayable(remembered)) return this.setGame(remembered);
      if (remembered && (remembered.challenge || remembered.past_daily || remembered.room) && remembered.phase !== "over") return this.setGame(remembered);
      // a daily left unfinished when its day ended: said, with today's dailies (below)
      if (remembered && remembered.daily && remembered.phase !== "over") this.dailyEnded(remembered);
      if (current) return this.setGame(current);
      if (remembered && remembered.phase === "over" && !remembered.daily) this.setGame(remembered);
      else this.setGame(await this.newGame(this.preferences.difficulty() || "peaceful"));
    });
    await this.signedOutElsewhere();
    if (this.api.news) this.moduleIntent("challenges", "challenge-news"); // (not awaited)
  }

  // This browser was signed in to an account and is not any more (signed out from another
  // device, or its session ended unused): said, with the way back. (One request, only for a
  // browser that was signed in; a server that says so on every answer, below, says it sooner.)
  async signedOutElsewhere() {
    if (!this.preferences.signedIn()) return;
    const me = await this.api.me().catch(() => null);
    if (me && me.account && me.new_passkey) return this.newPasskeyElsewhere(me.new_passkey);
    if (!me || me.account) return;
    this.preferences.setSignedIn(false);
    this.account.pendingNotice = this.t("account_was_signed_out");
    this.account.signedOut = true; // (signing back in comes first on the screen)
    if (!this.screen) await this.open("account");
  }

  // Another device added the account's first passkey (on probation for a day: it could be a
  // cookie thief's): said once, on the account screen, where it can be removed.
  async newPasskeyElsewhere(passkey) {
    if (this.preferences.passkeyTold(passkey.id)) return;
    this.preferences.setPasskeyTold(passkey.id);
    const date = new Date(passkey.created_at).toLocaleString(this.t.language, { dateStyle: "medium", timeStyle: "short" });
    this.account.pendingNotice = this.t("account_new_passkey_elsewhere", { label: deviceName(this.t, passkey.label) || "?", date });
    if (!this.screen) await this.open("account");
  }

  // An answer said that the session this browser's cookie named has ended (X-Magdagdon-Session:
  // ended): this device is somebody new. Said before anything else (to a browser that was
  // signed in to an account: an anonymous player's session that ended unused has no account to
  // sign in to): what was shown of the player goes, the account screen opens with the notice
  // once the request in flight is done, and the board shows the new player's game. (Once: the
  // answers go on saying it until a request makes the new player, whose cookie replaces it.)
  sessionEnded() {
    if (this.endedSession) return;
    this.endedSession = true;
    const tell = this.preferences.signedIn();
    this.preferences.setSignedIn(false);
    if (tell) Object.assign(this.account, { pendingNotice: this.t("account_was_signed_out"), signedOut: true });
    this.account.me = this.account.passkeys = this.account.sessions = this.account.code = null;
    const shown = async () => {
      await this.newIdentity();
      this.endedSession = false;
      if (tell) await this.open("account");
    };
    if (this.ui.busy) this.afterRun = shown; // (run() calls it once its work is done)
    else queueMicrotask(shown);
  }

  // A daily whose day ended before it was finished: today's dailies open with a note that says
  // so (the server refuses its actions with daily_ended; nothing was lost that had counted).
  dailyEnded(game) {
    this.daily.notice = this.t("daily_ended_notice", { number: game.daily.number });
    this.pendingScreen = "daily";
  }

  // Whether a daily game is today's, or yesterday's still to finish (what GET /api/daily says:
  // for two hours after midnight UTC a daily started before it can be finished).
  async isPlayable(game) {
    const info = await this.fetchDaily().catch(() => null);
    if (info) this.daily.info = info;
    return Boolean(info) && (info.date === game.daily.date || (info.unfinished || []).some((u) => u.game_id === game.id));
  }

  // GET /api/daily, with when it came (the time left is counted from the server's moment)
  async fetchDaily() {
    const info = await this.api.daily();
    return { ...info, received: Date.now() };
  }

  newGame(difficulty) {
    const seed = this.seed === null ? null : Number(this.seed);
    return this.api.createGame(difficulty, { abandon: true, seed });
  }

  setGame(game, { animate = [] } = {}) {
    const wasOver = this.game && this.game.id === game.id && this.game.phase === "over";
    const wasMagdagdon = this.game && this.game.phase === "magdagdon";
    this.game = game;
    if (!game.daily && !game.challenge && !game.past_daily && !game.room) this.regular = { id: game.id, over: game.phase === "over" }; // BACK TO MY GAME's
    // a live room's game: its room followed, its bar drawn (rooms.js); another game: no bar
    if (game.room || this.modules.rooms) this.moduleIntent("rooms", "room-follow", { code: game.room || null });
    this.preferences.rememberGame(game);
    this.ui.animate = this.animations ? animate : [];
    // a hint is the plan of one turn with these dice: it stays while the player follows it
    // (staging, taking back) and goes once the turn ends or the dice change
    if (this.ui.hint && this.ui.hint.key !== hintKey(game)) this.ui.hint = null;
    if (!this.ui.hint) this.ui.hintMore = false;
    if (this.ui.selected !== null && !(game.dice[this.ui.selected] && game.dice[this.ui.selected].cell === null)) this.ui.selected = null;
    if (game.phase !== "place" && game.phase !== "magdagdon") this.ui.reroll = false;
    if (game.phase !== "magdagdon") this.ui.ruinMode = false;
    if (game.phase === "magdagdon" && !wasMagdagdon && this.animations) this.view.shake();
    if (game.phase === "over" && !wasOver && this.screen === null && !this.preferences.resultClosed(game.id)) this.open(game.room ? "room" : "over");
  }

  // The player leaves the open screen (closes the sheet, or opens another screen from it): a
  // finished game's result, once left, is not opened again by itself on a reload; RESULT on
  // the board opens it.
  leaveScreen() {
    if (this.screen === "over" && this.game && this.game.phase === "over") this.preferences.setResultClosed(this.game.id);
  }

  render() {
    this.view.render({ game: this.game, ui: this.ui, t: this.t });
    this.ui.animate = [];
    this.walkthrough?.follow(this.game);
  }

  // A die of the tray that has squares to go to, selected (unless one is), so that the squares
  // it may go to are marked.
  selectForTour() {
    const game = this.game;
    if (!game || game.phase !== "place" || this.ui.reroll || this.ui.selected !== null) return;
    const die = game.dice.find((d) => d.cell === null && d.legal_cells.length);
    if (!die) return;
    this.ui.selected = die.index;
    this.view.render({ game, ui: this.ui, t: this.t });
  }

  // Runs one request at a time; controls are disabled meanwhile, so nothing is sent twice.
  async run(work) {
    if (this.ui.busy) return;
    this.ui.busy = true;
    this.render();
    try {
      await work();
    } catch (error) {
      // (the session ended meanwhile: that is what is said, below, not this request's error)
      if (!this.afterRun) await this.failed(error);
    } finally {
      this.ui.busy = false;
      this.render();
    }
    if (this.afterRun) { // the session ended: the new player's game and the notice, first
      const after = this.afterRun;
      this.afterRun = null;
      this.pendingScreen = null;
      return after();
    }
    if (this.pendingScreen) {
      const screen = this.pendingScreen;
      this.pendingScreen = null;
      await this.open(screen);
    }
  }

  async failed(error) {
    this.view.announce(this.errorText(error));
    if (error instanceof ApiError && error.code === "daily_ended") this.dailyEnded(this.game);
    if (error instanceof ApiError && error.status === 422 && this.game) this.setGame((await this.shownGameAgain()) || this.game);
  }

  // The game on the board as the server has it now (a regular game: the one in progress).
  shownGameAgain() {
    const request = this.game.daily || this.game.past_daily || this.game.room ? this.api.game(this.game.id) : this.api.currentGame();
    return request.catch(() => null);
  }

  act(action, message, animate = []) {
    return this.run(async () => {
      const game = await this.api.act(this.game, action);
      this.setGame(game, { animate });
      if (message) this.view.announce(message(game));
    });
  }

  async askPower(what) {
    return this.dialogs.ask(this.t("power_confirm", { what, cost: this.game.next_power_cost }), this.t("use_power"));
  }

  phaseMessage(game) {
    const t = this.t;
    if (game.phase === "magdagdon") return t("announce_magdagdon");
    if (game.phase === "over") return t("announce_over", { score: t.number(game.final_score.total) });
    if (game.phase === "place") return t("announce_roll", { values: game.dice.map((d) => d.value).join(", "), n: game.required });
    return "";
  }

  // An intent from the page. When what had the focus is gone (the ACCEPT button once the RUIN
  // is chosen, a dialog or sheet closed, …), the focus goes back to the board, never <body>.
  async handle(intent, data) {
    await this.dispatch(intent, data);
    const touring = this.walkthrough && this.walkthrough.open;
    if (this.doc.activeElement === this.doc.body && !this.screen && this.game && !touring) this.view.focusSquare(this.ui.focus);
  }

  async dispatch(intent, data) {
    const t = this.t;
    const game = this.game;
    if (intent !== "square" && intent !== "move-focus") this.ui.whyNot = ""; // the why-not line lasts until the next move
    switch (intent) {
      case "tour-next": return this.walkthrough?.next();
      case "tour-back": return this.walkthrough?.back();
      case "tour-skip": return this.walkthrough?.close();
      case "how-to-play":
        this.close();
        return this.walkthrough?.start(this.t, this.game);
      case "confirm-yes": return this.dialogs.reply(true);
      case "confirm-no": return this.dialogs.reply(false);
      case "close": return this.close();
      case "open": return this.open(data.screen);
      case "change":
        if (moduleOf(data.name)) return this.moduleIntent(moduleOf(data.name).name, data.name, data);
        return this.change(data.name, data.value);
      case "submit-name": return this.saveName(data.name);
      case "scores-difficulty": this.scores.difficulty = data.difficulty; return this.loadScores();
      case "scores-scope": this.scores.scope = data.scope; return this.loadScores();
      case "set-difficulty": return this.changeDifficulty(data.difficulty);
      case "new-game": return this.startNew(game ? game.difficulty : "peaceful");
      case "review": return this.openReview(data.game);
      case "back-to-game": return this.backToGame();
      case "daily-play": return this.playDaily(data.difficulty);
      case "daily-continue": return this.continueDaily(data.game);
      case "leaderboard": return this.openLeaderboard(data.date, data.difficulty);
      case "stats-difficulty": this.stats.difficulty = data.difficulty; return this.paint();
      case "share": return this.shareGame(data.game);
      case "passkey-register": case "passkey-sign-in": case "passkey-remove": case "transfer-code":
      case "submit-transfer": case "session-end": case "sign-out": case "sign-out-everywhere":
      case "account-delete": case "submit-account-name": case "account-carry-on": return this.accountIntent(intent, data);
    }
    const owner = moduleOf(intent);
    if (owner) return this.moduleIntent(owner.name, intent, data);
    if (!game) return;
    switch (intent) {
      case "roll":
        if (game.can_roll) await this.act({ type: "roll" }, (g) => this.phaseMessage(g), [0, 1, 2, 3]);
        return;
      case "die":
        this.tapDie(Number(data.die));
        if (data.key && this.ui.selected !== null) this.view.focusSquare(this.ui.focus);
        return;
      case "square": return this.tapSquare(Number(data.square));
      case "move-focus": return this.moveFocus(data.by);
      case "hint": return this.askHint();
      case "hint-close":
        this.ui.hint = null;
        this.ui.hintMore = false;
        return this.render();
      case "hint-more":
        this.ui.hintMore = !this.ui.hintMore;
        return this.render();
      case "take-back-last":
        if (game.staged.length) await this.act({ type: "unstage", die: game.staged[game.staged.length - 1] }, () => t("announce_taken_back"));
        return;
      case "unstage-all": return this.act({ type: "unstage_all" }, () => t("announce_taken_back"));
      case "confirm":
        if (game.can_confirm) await this.act({ type: "confirm" }, (g) => (g.phase === "over" ? this.phaseMessage(g) : t("announce_confirmed")));
        return;
      case "enter":
        if (game.can_confirm) return this.dispatch("confirm", {});
        if (game.can_roll) return this.dispatch("roll", {});
        return;
      case "adjust": {
        const die = this.ui.selected;
        const delta = Number(data.delta);
        if (die === null) return;
        if (!(await this.askPower(t(delta > 0 ? "hint_increase" : "hint_decrease", { n: die + 1 })))) return;
        return this.act({ type: "adjust", die, delta }, (g) => this.phaseMessage(g));
      }
      case "rescue": { // a rescue of MAGDAGDON: that die, that power
        const die = Number(data.rescueDie); // (data-rescue-die: data-die is a die of the tray's)
        const delta = Number(data.delta);
        if (!game.dice[die] || game.dice[die].cell !== null) return;
        const selected = this.ui.selected;
        this.ui.selected = die; // lifted in the tray while the question is asked
        this.render();
        if (!(await this.askPower(t(delta > 0 ? "hint_increase" : "hint_decrease", { n: die + 1 })))) {
          this.ui.selected = selected;
          return this.render();
        }
        return this.act({ type: "adjust", die, delta }, (g) => this.phaseMessage(g));
      }
      case "reroll-start":
        this.ui.reroll = true;
        this.ui.chosen = new Set();
        this.ui.selected = null;
        return this.render();
      case "reroll-cancel":
        this.ui.reroll = false;
        return this.render();
      case "reroll-go": {
        const dice = [...this.ui.chosen].sort();
        if (!dice.length || !(await this.askPower(t("reroll_n", { n: dice.length })))) return;
        this.ui.reroll = false;
        return this.act({ type: "reroll", dice }, (g) => this.phaseMessage(g), dice);
      }
      case "accept":
        if (!(await this.dialogs.ask(t("accept_confirm", { points: this.game.ruin_penalty }), t("accept_magdagdon")))) return;
        this.ui.ruinMode = true;
        this.view.announce(t("choose_ruin"));
        return this.render();
      case "ruin-cancel":
        this.ui.ruinMode = false;
        return this.render();
      case "cancel":
        this.ui.selected = null;
        this.ui.reroll = false;
        this.ui.ruinMode = false;
        return this.render();
    }
  }

  async askHint() {
    const game = this.game;
    if (!["roll", "place", "magdagdon"].includes(game.phase)) return;
    await this.run(async () => {
      const hint = await this.api.hint(game);
      if (this.game !== game) return; // the game moved on meanwhile
      this.ui.hint = { ...hint, key: hintKey(game) };
      this.ui.hintMore = false;
      this.game = { ...game, hints_used: hint.hints_used };
      this.view.announce(`${this.t("hint")}: ${this.view.describePlan(this.t, hint, game)}`);
    });
  }

  async openReview(id) {
    this.reviewed = { id, review: null, error: "" };
    await this.open("review");
    try {
      const review = await this.api.review(id);
      if (this.reviewed.id === id) this.reviewed.review = review;
    } catch (error) {
      if (this.reviewed.id === id) this.reviewed.error = this.errorText(error);
    }
    if (this.screen === "review" && this.reviewed.id === id) this.paint();
  }

  tapDie(i) {
    const die = this.game.dice[i];
    if (!die || this.ui.busy) return;
    if (this.ui.reroll) {
      if (!die.can_reroll) return;
      if (this.ui.chosen.has(i)) this.ui.chosen.delete(i);
      else this.ui.chosen.add(i);
      return this.render();
    }
    if (die.cell !== null) return this.act({ type: "unstage", die: i }, () => this.t("announce_taken_back"));
    this.ui.selected = this.ui.selected === i ? null : i;
    if (this.ui.selected !== null) {
      const n = die.legal_cells.length;
      this.view.announce(this.t("announce_selected", { n, die: i + 1, value: die.value }));
      if (n) this.ui.focus = die.legal_cells[0];
    }
    this.render();
  }

  tapSquare(sq) {
    const game = this.game;
    this.ui.focus = sq;
    this.ui.whyNot = "";
    if (this.ui.ruinMode) {
      if (!game.ruin_choices.includes(sq)) return;
      // (chosen: the answer may be the next turn's MAGDAGDON already, a live room's last
      // player's turn closing and the next rolling in the same request)
      this.ui.ruinMode = false;
      return this.act({ type: "accept_magdagdon", cell: sq }, (g) => this.phaseMessage(g));
    }
    const staged = game.dice.find((d) => d.cell === sq);
    if (staged) return this.act({ type: "unstage", die: staged.index }, () => this.t("announce_taken_back"));
    const i = this.ui.selected;
    if (i !== null && game.dice[i].legal_cells.includes(sq)) {
      this.ui.selected = null;
      return this.act({ type: "stage", die: i, cell: sq }, (g) => (g.dead_end ? this.t("dead_end") : this.t("announce_staged", { value: game.dice[i].value })));
    }
    // an empty square with no die selected: said on screen too, where the turn's words are
    if (i === null && game.phase === "place" && game.staged_board.replaceAll("/", "")[sq] === ".") {
      this.ui.whyNot = this.t("select_die_first");
      this.render();
      this.view.announce(this.ui.whyNot);
      return;
    }
    if (i !== null && game.phase === "place") {
      // why the selected die may not go there, in one line (the reason is the engine's)
      const reason = game.dice[i].blocked.find((b) => b.cell === sq);
      if (reason) {
        this.ui.whyNot = this.t(`why_${reason.code}`, { values: reason.values.join(", "), value: game.dice[i].value });
        this.render();
        this.view.announce(this.ui.whyNot);
        return;
      }
    }
    this.render();
  }

  moveFocus([dr, dc]) {
    const r = Math.min(3, Math.max(0, Math.floor(this.ui.focus / 4) + dr));
    const c = Math.min(3, Math.max(0, (this.ui.focus % 4) + dc));
    this.ui.focus = 4 * r + c;
    this.render();
    this.view.focusSquare(this.ui.focus);
  }

  async startNew(difficulty) {
    // a new game abandons the regular game in progress, never a daily: while a daily is shown,
    // ask about the regular game
    const game = this.game && (this.game.daily || this.game.past_daily || this.game.room) ? await this.api.currentGame().catch(() => null) : this.game;
    if (game && game.phase !== "over" && game.version > 0 && !(await this.dialogs.ask(this.t("abandon_confirm"), this.t("new_game")))) return;
    this.close();
    await this.run(async () => this.setGame(await this.newGame(difficulty)));
    this.view.announce(this.t("announce_new_game", { name: DIFFICULTY_NAMES[difficulty] }));
  }

  async changeDifficulty(difficulty) {
    if (this.game && !this.game.daily && !this.game.past_daily && !this.game.room && difficulty === this.game.difficulty) return;
    await this.startNew(difficulty);
  }

  async change(name, value) {
    if (name === "language") {
      try {
        this.t = await loadCatalog(value);
      } catch {
        // its catalog did not come (the server moved on to another release before SETTINGS
        // fetched it, or no network): the page again in that language, or says it is offline
        this.preferences.setLanguage(value);
        if (navigator.onLine) location.reload();
        return this.view.announce(this.t("connection_lost"));
      }
      this.preferences.setLanguage(value);
      translatePage(this.doc, this.t);
      this.render();
      if (this.screen) await this.open(this.screen); // redraw the open sheet in the new language
      return;
    }
    if (name === "animations") {
      this.animations = Boolean(value);
      this.preferences.setAnimations(this.animations);
      this.view.setMotion(this.animations);
    }
  }

  // An API error in the player's language, by its stable code (the server's message is
  // English); anything else is "something went wrong".
  errorText(error) {
    if (!(error instanceof ApiError)) return this.t("something_wrong");
    const key = `error_${error.code}`;
    const text = this.t(key);
    return text === key ? error.message : text;
  }

  // The name from the form of the high scores or of a daily leaderboard, whose table is then
  // drawn again with it.
  async saveName(name) {
    const where = this.screen === "leaderboard" ? this.leaderboard : this.scores;
    where.typed = null; // sent: the server's answer is what to show
    try {
      const me = await this.api.setName(name);
      this.scores.name = this.leaderboard.name = me.name;
      where.nameError = "";
      this.view.announce(this.t("name_saved"));
    } catch (error) {
      const invalid = error instanceof ApiError && error.code === "invalid_request";
      where.nameError = invalid ? this.t("name_rules", { max: where.nameMax || 24 }) : this.errorText(error);
      where.name = name; // keep what was typed
    }
    return where === this.leaderboard ? this.loadLeaderboard() : this.loadScores();
  }

  // The table of the difficulty and scope chosen last: an answer to an earlier choice that
  // comes after it is dropped (it drew another difficulty's table under the one pressed).
  async loadScores() {
    const { difficulty, scope } = this.scores;
    const asked = (this.scoresAsked = (this.scoresAsked || 0) + 1);
    this.scores.table = null;
    this.paint();
    const [table, me] = await Promise.all([this.api.highscores(difficulty, scope), this.api.me()]);
    // (an answer to an earlier load that comes after a later one, which a new name started,
    // would draw the table as it was before the name)
    if (asked !== this.scoresAsked) return;
    if (this.scores.difficulty !== difficulty || this.scores.scope !== scope) return;
    this.scores.table = table;
    if (!this.scores.nameError) this.scores.name = me.name || "";
    this.scores.nameMax = me.name_max;
    this.paint();
  }

  // From a daily back to the regular game in progress, or a new one when there is none; the
  // game left in progress and finished meanwhile (in another tab) first shows how it ended.
  async backToGame() {
    this.close();
    await this.run(async () => {
      const current = await this.api.currentGame();
      const left = this.regular;
      const ended = !current && left && !left.over ? await this.api.game(left.id).catch(() => null) : null;
      if (current) this.setGame(current);
      else if (ended && ended.phase === "over") this.setGame(ended);
      else this.setGame(await this.newGame(this.preferences.difficulty() || "peaceful"));
    });
    if (this.screen) return; // (the account's notice: the session had ended)
    if (this.game && !this.game.daily) this.view.announce(this.t("announce_back", { name: DIFFICULTY_NAMES[this.game.difficulty] }));
    this.focusBoard();
  }

  // PLAY or CONTINUE today's daily of a difficulty on the board; one already finished opens
  // its leaderboard instead.
  async playDaily(difficulty) {
    let played = false;
    await this.run(async () => {
      try {
        const game = await this.api.playDaily(difficulty);
        this.close();
        this.daily.notice = "";
        // the one attempt is not the place for the guided tour (HOW TO PLAY shows it later)
        if (this.walkthrough && this.walkthrough.open) this.walkthrough.close({ seen: false });
        this.setGame(game);
        this.view.announce(this.t("announce_daily", { number: game.daily.number, name: DIFFICULTY_NAMES[difficulty] }));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== "daily_played") throw error;
        played = true;
        // finished meanwhile (in another tab): the board shows how it ended
        const shown = this.game;
        if (shown && shown.daily && shown.difficulty === difficulty && shown.phase !== "over") this.setGame(await this.api.game(shown.id));
      }
    });
    if (played) {
      const info = this.daily.info || await this.fetchDaily().catch(() => null);
      if (info) await this.openLeaderboard(info.date, difficulty);
    } else this.focusBoard();
  }

  // CONTINUE yesterday's daily, left unfinished at midnight: it can be finished until its
  // finish_by (after it, its actions answer daily_ended, said with today's dailies).
  async continueDaily(id) {
    await this.run(async () => {
      const game = await this.api.game(id);
      this.close();
      this.daily.notice = "";
      this.setGame(game);
      this.view.announce(this.t("announce_daily", { number: game.daily.number, name: DIFFICULTY_NAMES[game.difficulty] }));
    });
    this.focusBoard();
  }

  // After a sheet that started or changed the game closes: the keyboard goes on at the board
  // (ROLL, or the focused square), not at the top of the page, unless the focus is somewhere.
  focusBoard() {
    const active = this.doc.activeElement;
    const somewhere = active && active !== this.doc.body && !active.closest("dialog:not([open])");
    if (this.screen !== null || somewhere) return;
    const roll = this.doc.querySelector("[data-intent='roll']:not([disabled])");
    (roll && roll.offsetParent ? roll : this.doc.querySelector(`[data-square='${this.ui.focus}']`))?.focus();
  }

  async openLeaderboard(date, difficulty) {
    this.leaderboard = { date, difficulty, data: null, error: "", name: this.scores.name || null, nameMax: this.scores.nameMax, nameError: "" };
    await this.open("leaderboard");
  }

  async loadLeaderboard() {
    const { date, difficulty } = this.leaderboard;
    const asked = (this.leaderboardAsked = (this.leaderboardAsked || 0) + 1);
    this.leaderboard.busy = true; // (the table says so until its answer is drawn)
    this.paint();
    try {
      const [data, me] = await Promise.all([this.api.leaderboard(date, difficulty), this.api.me()]);
      if (asked !== this.leaderboardAsked) return; // a later load's answer is the one to draw
      if (this.leaderboard.date === date && this.leaderboard.difficulty === difficulty) this.leaderboard.data = data;
      if (!this.leaderboard.nameError) this.leaderboard.name = me.name;
      this.leaderboard.nameMax = me.name_max;
      this.leaderboard.account = me.account;
    } catch (error) {
      if (asked !== this.leaderboardAsked) return;
      this.leaderboard.error = this.errorText(error);
    }
    this.leaderboard.busy = false;
    if (this.screen === "leaderboard") this.paint();
  }

  async loadDaily() {
    this.daily.error = "";
    this.paint();
    try {
      this.daily.info = await this.fetchDaily();
    } catch (error) {
      this.daily.error = this.errorText(error);
    }
    if (this.screen === "daily") this.paint();
    // the time left goes on: drawn again every half minute while the list is open
    clearInterval(this.dailyClock);
    this.dailyClock = setInterval(() => {
      if (this.screen !== "daily") clearInterval(this.dailyClock);
      else if (!this.ui.busy) this.paint();
    }, 30000);
    // the finished ones' SHARE needs their games and pars: fetched now, before the tap
    for (const g of this.daily.info && !this.daily.error ? this.daily.info.games : []) {
      if (g.status === "over" && g.game_id && g.game_id !== this.game?.id) this.prepareShare(g.game_id);
    }
  }

  async loadStats() {
    this.stats.data = null;
    this.stats.error = "";
    this.paint();
    // (the rating's history only: no search of the games for the player's own puzzles)
    const puzzles = this.api.request("GET", "/api/players/me/puzzles?search=false").catch(() => null);
    try {
      this.stats.data = await this.api.stats();
      // the puzzle rating's chart (drawn by puzzles.js, imported only when there is one)
      const found = await puzzles;
      this.stats.puzzles = null;
      if (found && found.history.length > 1) {
        this.stats.puzzles = await this.module("puzzles").then((m) => m.chart(found.history), () => null);
      }
    } catch (error) {
      this.stats.error = this.errorText(error);
    }
    if (this.screen === "stats") this.paint();
  }

  // A finished daily's standing, and the coach's score on its dice: that may come a few seconds
  // after the end (or, on a busy server, a minute or two), so it is asked for again, a little
  // later each time, then every 10 s for up to five minutes.
  async loadResult(game) {
    if (this.result.id === game.id && this.result.board && this.result.board.par !== null) return this.paint();
    const result = { id: game.id, board: null, waiting: true };
    this.result = result;
    this.paint();
    const delays = [0, 1000, 2000, 3000, 5000, 8000, ...Array(28).fill(10000)];
    for (const delay of delays) {
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.result !== result) return; // another game's result is wanted now
      const day = game.daily || game.past_daily;
      result.board = await this.api.leaderboard(day.date, game.difficulty).catch(() => result.board);
      const par = game.par ?? (result.board ? result.board.par : null);
      if (par !== null && par !== undefined) break;
      if (this.screen === "over") this.paint(); // the standing meanwhile
    }
    result.waiting = false;
    if (this.screen === "over" && this.game && this.game.id === game.id) this.paint();
  }

  // SHARE a finished game (the one on the board, or one of the daily list): Web Share, else
  // the clipboard; the sheet says what happened. The browser is asked within the tap itself:
  // WebKit (every iPhone browser) refuses the clipboard and the share sheet once the tap's
  // handler has awaited a request. So the text is made from what is at hand: the game on the
  // board with the par shown, or a game of the daily list, fetched when the list was drawn
  // (prepareShare). A text still on its way goes to the clipboard as a promise (share.js).
  async shareGame(id) {
    const origin = location.origin;
    const known = this.shareableNow(id);
    const text = known
      ? shareText(this.t, known, { origin })
      : this.prepareShare(id).then((game) => shareText(this.t, game, { origin }));
    let status;
    try {
      status = await share(text);
      this.shared = { id, status, text: await text };
    } catch (error) {
      this.view.announce(this.errorText(error)); // the game could not be fetched
      return;
    }
    if (status === "copied") this.view.announce(this.t("share_copied"));
    if (status === "failed") this.view.announce(this.t("share_copy_yourself"));
    if (this.screen) this.paint();
    if (status === "failed") this.doc.getElementById("share-text")?.select();
  }

  // A finished game's view as SHARE tells it, with a daily's par when it is known, if it is at
  // hand now (no request); else null.
  shareableNow(id) {
    const game = this.game && this.game.id === id ? this.game : this.shares.get(id)?.game;
    if (!game) return null;
    const board = this.result.id === id ? this.result.board : null;
    const par = game.par ?? (board ? board.par : null);
    return par === null || par === undefined ? game : { ...game, par };
  }

  // Fetches a finished game for SHARE, with a daily's par (from its leaderboard) once it is
  // computed, and keeps it; asked again while the par is unknown or after a failure. The
  // promise of the game.
  prepareShare(id) {
    const kept = this.shares.get(id);
    const pending = kept && !kept.game && !kept.failed;
    const complete = kept && kept.game && (!(kept.game.daily || kept.game.past_daily) || (kept.game.par !== null && kept.game.par !== undefined));
    if (pending || complete) return kept.promise;
    const entry = { game: null, failed: false, promise: null };
    entry.promise = (async () => {
      const game = await this.api.game(id);
      const day = game.daily || game.past_daily;
      if (!day || (game.par !== null && game.par !== undefined)) return game;
      const board = await this.api.leaderboard(day.date, game.difficulty).catch(() => null);
      return board && board.par !== null && board.par !== undefined ? { ...game, par: board.par } : game;
    })();
    entry.promise.then((game) => { entry.game = game; }, () => { entry.failed = true; }); // (said when SHARE is pressed)
    this.shares.set(id, entry);
    return entry.promise;
  }

  // --- the screens of their own modules (dialogs.js's MODULES) ---------------------------

  async module(name) {
    if (!this.modules[name]) {
      const loaded = await Object.values(MODULES).find((m) => m.name === name).load();
      this.modules[name] = new loaded.Screens(this);
    }
    return this.modules[name];
  }

  async moduleOpen(name, screen) {
    this.modules.error = "";
    let module;
    try {
      module = await this.module(name);
    } catch (error) {
      // no network for the module, or the server moved on to a release without this one's
      this.modules.error = this.t("screen_not_loaded");
      return this.paint();
    }
    if (this.link && this.link.screen === screen) module.fromLink(this.link.code);
    this.link = null;
    return module.load(screen);
  }

  async moduleIntent(name, intent, data) {
    try {
      return (await this.module(name)).handle(intent, data);
    } catch (error) {
      return this.view.announce(this.errorText(error));
    }
  }

  // --- the account screen (account.js, imported when it is first opened) ---------------

  async accountScreen() {
    const account = this.account;
    if (!account.screen) {
      const module = await import("./account.js");
      account.view = module;
      account.supported = module.passkeysSupported();
      account.screen = new module.AccountScreen(this);
    }
    return account.screen;
  }

  // The account screen drawn with its data; an intent of it (its module loaded first).
  async loadAccount() {
    try {
      await this.accountScreen();
    } catch (error) {
      this.account.error = this.errorText(error); // (no network for the module)
      return this.paint();
    }
    return this.account.screen.load();
  }

  async accountIntent(intent, data) {
    try {
      await this.accountScreen();
    } catch (error) {
      return this.view.announce(this.errorText(error));
    }
    return this.account.screen.handle(intent, data);
  }

  // This device is somebody else now (signed in, signed out, deleted): what was shown of the
  // player before is dropped, and the game in progress is theirs (or a new one).
  async newIdentity() {
    this.account.me = this.account.passkeys = this.account.sessions = null;
    this.scores.table = null;
    this.stats.data = null;
    this.daily.info = null;
    this.shares.clear();
    for (const { name } of Object.values(MODULES)) this.modules[name]?.reset();
    this.result = { id: null, board: null, waiting: false };
    this.ui.hint = null;
    try {
      const current = await this.api.currentGame();
      this.setGame(current || await this.newGame(this.preferences.difficulty() || "peaceful"));
    } catch (error) {
      this.view.announce(this.errorText(error));
    }
    this.render();
  }

  async open(screen) {
    if (screen !== this.screen) {
      this.leaveScreen();
      this.shared = { id: null, status: "", text: "" };
    }
    this.screen = screen;
    const owner = moduleOf(screen);
    if (owner) return this.moduleOpen(owner.name, screen);
    if (screen === "daily") return this.loadDaily();
    if (screen === "account") {
      this.account.notice = this.account.pendingNotice || "";
      this.account.pendingNotice = "";
      this.account.error = this.account.codeError = "";
      return this.loadAccount();
    }
    if (screen === "leaderboard") return this.loadLeaderboard();
    if (screen === "stats") {
      if (this.game) this.stats.difficulty = this.game.difficulty;
      return this.loadStats();
    }
    if (screen === "over" && this.game && (this.game.daily || this.game.past_daily) && this.game.phase === "over") return this.loadResult(this.game);
    if (screen === "scores") {
      this.scores.difficulty = this.game ? this.game.difficulty : "peaceful";
      return this.loadScores();
    }
    const language = this.t.language;
    if (screen === "settings") prefetchLanguages(language);
    if (screen === "rules" && !(language in this.rulesTexts)) {
      this.rulesError = "";
      this.paint();
      try {
        this.rulesTexts[language] = await this.api.rules(language);
      } catch (error) {
        // no network (offline, and the file not in the service worker's cache), or refused
        this.rulesError = this.t(error instanceof ApiError ? "rules_failed" : "rules_offline");
      }
      if (this.screen !== "rules") return;
    }
    this.paint();
  }

  // Draws the open screen, if any, from the current state: again whenever something it shows arrives.
  paint() {
    const t = this.t;
    // what is being typed into the name field survives a repaint (a table arriving meanwhile)
    const field = document.getElementById("name-input");
    if (field && field.value !== field.dataset.drawn && (this.screen === "scores" || this.screen === "leaderboard")) {
      (this.screen === "leaderboard" ? this.leaderboard : this.scores).typed = field.value;
    }
    this.dialogs.paintSheet(this.screen, {
      t, game: this.game, scores: this.scores, rules: this.rulesTexts[t.language] ?? null, rulesError: this.rulesError, reviewed: this.reviewed, animations: this.animations,
      daily: this.daily, leaderboard: this.leaderboard, stats: this.stats, result: this.result.id === this.game?.id ? this.result : null, shared: this.shared,
      account: this.account, modules: this.modules, news: this.api.news,
    });
  }

  close() {
    this.leaveScreen();
    this.dialogs.closeSheet();
    this.screen = null;
  }
}
