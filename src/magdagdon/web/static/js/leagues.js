// Leagues: friends' daily scores week by week. Its screens: my leagues (with CREATE A LEAGUE and
// an invite's field), what an invite's link shows (/#league=INVITE) with JOIN, and a league's
// table of a week (each member's daily day by day, the week's standing, streaks, last week's
// winner; the invite to share; the creator renews it and removes members; LEAVE). Imported
// when one of its screens first opens; every score and rule is the server's.

import { ApiError } from "./api.js";
import { askName } from "./askname.js";
import { linkPart, shareLink, who } from "./challenges.js";
import { button, el, svg } from "./dom.js";
import { DIFFICULTY_NAMES } from "./view.js";

const enc = encodeURIComponent;

// A streak's small flame (an emoji may be missing from a phone's fonts)
function flame() {
  return svg("svg", { viewBox: "0 0 24 24", width: 14, height: 14, "aria-hidden": "true" },
    svg("path", { d: "M12 2c1 4 5 6 5 11a5 5 0 0 1-10 0c0-3 2-4 2-7 2 1 3 3 3 5 1-2 1-5 0-9z", fill: "currentColor" }));
}

// "Mon" … "Sun" of the page's language for a UTC day
function weekday(t, date, form = "short") {
  return new Date(`${date}T00:00:00Z`).toLocaleDateString(t.language, { timeZone: "UTC", weekday: form });
}

export class Screens {
  constructor(controller) {
    this.c = controller;
    this.reset();
  }

  reset() {
    this.list = { data: null, error: "", name: "", difficulty: "peaceful", formError: "", invite: "", needsAccount: false };
    this.invite = { code: null, data: null, error: "", needsAccount: false };
    this.table = { id: null, week: null, data: null, error: "", status: "", open: null };
  }

  get t() { return this.c.t; }

  request(method, path, body) { return this.c.api.request(method, path, body); }

  fromLink(code) {
    this.invite = { code, data: null, error: "", needsAccount: false };
  }

  async load(screen) {
    if (screen === "leagues") return this.loadList();
    if (screen === "league-invite") return this.loadInvite();
    if (screen === "league") return this.loadTable();
    return this.c.paint();
  }

  async loadList() {
    this.list.error = "";
    this.c.paint();
    try {
      // without an account, saving comes first: CREATE and JOIN would be refused (403)
      const [data, me] = await Promise.all([this.request("GET", "/api/leagues"), this.c.api.me()]);
      this.list.data = data;
      this.list.needsAccount = !me.account;
    } catch (error) {
      this.list.error = this.c.errorText(error);
    }
    if (this.c.screen === "leagues") this.c.paint();
  }

  async loadInvite() {
    this.invite.data = null;
    this.invite.error = "";
    this.c.paint();
    try {
      const [data, me] = await Promise.all([
        this.request("GET", `/api/leagues/invites/${enc(this.invite.code)}`), this.c.api.me()]);
      this.invite.data = data;
      this.invite.needsAccount = !me.account;
    } catch (error) {
      this.invite.error = this.c.errorText(error);
    }
    if (this.c.screen === "league-invite") this.c.paint();
  }

  async loadTable() {
    const table = this.table;
    table.error = "";
    if (table.data && (table.data.league.id !== table.id || table.data.week !== table.week)) table.data = null;
    this.c.paint();
    const week = table.week ? `?week=${enc(table.week)}` : "";
    try {
      const data = await this.request("GET", `/api/leagues/${enc(table.id)}${week}`);
      if (data.league.id === table.id) {
        table.data = data;
        table.week = data.week;
      }
    } catch (error) {
      table.error = this.c.errorText(error);
    }
    if (this.c.screen === "league") this.c.paint();
  }

  async handle(intent, data) {
    const t = this.t;
    switch (intent) {
      case "league-open": this.table = { id: data.league, week: null, data: null, error: "", status: "" }; return this.c.open("league");
      case "league-week": this.table.week = data.week; return this.loadTable();
      case "league-member-week": this.table.open = this.table.open === data.member ? null : data.member; return this.c.paint();
      case "submit-league-create": return this.create(data);
      case "submit-league-join": return this.join(data.invite);
      case "league-join": return this.join(this.invite.code);
      case "league-save-first": this.c.afterSaving = this.c.screen; return this.c.open("account");
      case "league-share": case "league-copy": {
        const league = this.table.data && this.table.data.league;
        if (!league) return;
        const text = intent === "league-copy" ? league.url : `${t("league_share_text", { name: league.name })}\n${league.url}`;
        this.table.status = await shareLink(text, { copy: intent === "league-copy" });
        if (this.table.status === "copied") this.c.view.announce(t("share_copied"));
        return this.c.paint();
      }
      case "league-renew": {
        if (!(await this.c.dialogs.ask(t("league_renew_confirm"), t("league_renew")))) return;
        return this.change("POST", `/api/leagues/${enc(this.table.id)}/invite`);
      }
      case "league-remove": {
        if (!(await this.c.dialogs.ask(t("league_remove_confirm", { who: who(t, data.name) }), t("league_remove")))) return;
        return this.change("DELETE", `/api/leagues/${enc(this.table.id)}/members/${enc(data.member)}`);
      }
      case "league-leave": {
        // (asked of the table as it is now: who joined since it was drawn may take over)
        const now = await this.request("GET", `/api/leagues/${enc(this.table.id)}`).catch(() => null);
        if (!(await this.c.dialogs.ask(this.leaveQuestion(t, now || this.table.data), t("league_leave")))) return;
        try {
          await this.request("DELETE", `/api/leagues/${enc(this.table.id)}/members/me`);
        } catch (error) {
          return this.c.view.announce(this.c.errorText(error));
        }
        return this.c.open("leagues");
      }
    }
  }

  // What leaving does, said before: the leaver's points leave the week's table (rejoining brings
  // them back), and a creator's part passes to the member who joined first (by name).
  leaveQuestion(t, data) {
    const lines = [t("league_leave_confirm")];
    if (data && data.league.creator) {
      const heir = data.members.find((m) => m.member === data.heir);
      lines.push(heir ? t("league_leave_heir", { who: who(t, heir.name) }) : t("league_leave_last"));
    }
    return lines.join(" ");
  }

  async change(method, path) {
    try {
      await this.request(method, path);
    } catch (error) {
      return this.c.view.announce(this.c.errorText(error));
    }
    return this.loadTable();
  }

  async create(data) {
    const list = this.list;
    list.name = data.name;
    list.difficulty = data.difficulty || "peaceful";
    list.formError = "";
    try {
      const league = await this.request("POST", "/api/leagues", { name: data.name, difficulty: list.difficulty });
      await askName(this.c); // the table names its members
      list.name = "";
      this.table = { id: league.id, week: null, data: null, error: "", status: "" };
      return this.c.open("league");
    } catch (error) {
      list.formError = error instanceof ApiError && error.code === "invalid_request" ? this.t("league_name_invalid") : this.c.errorText(error);
      list.needsAccount = error instanceof ApiError && error.code === "account_needed";
      return this.c.paint();
    }
  }

  async join(invite) {
    this.invite.error = "";
    this.invite.needsAccount = false;
    try {
      const league = await this.request("POST", "/api/leagues/join", { invite });
      await askName(this.c); // the table names its members
      this.table = { id: league.id, week: null, data: null, error: "", status: "" };
      return this.c.open("league");
    } catch (error) {
      if (this.c.screen !== "league-invite") {
        this.list.joinError = this.c.errorText(error);
        this.list.needsAccount = error instanceof ApiError && error.code === "account_needed";
        return this.c.paint();
      }
      this.invite.needsAccount = error instanceof ApiError && error.code === "account_needed";
      this.invite.error = this.invite.needsAccount ? "" : this.c.errorText(error);
      return this.c.paint();
    }
  }

  // --- the sheets -----------------------------------------------------------------------------

  sheet(screen, t) {
    if (screen === "league-invite") return this.inviteSheet(t);
    if (screen === "league") return this.tableSheet(t);
    return this.listSheet(t);
  }

  // Saving the games comes first; once saved (ACCOUNT), the player is brought back here (the
  // invite, or the list) to carry on.
  saveFirst(t) {
    return el("div", { class: "save-first" },
      el("p", { class: "note", text: t("league_account_needed") }),
      button("league-save-first", t("account_save"), { className: "button primary" }));
  }

  listSheet(t) {
    const list = this.list;
    // what is being typed survives a repaint (the list arriving meanwhile): read before redrawing
    const doc = this.c.doc;
    const typed = (id, fallback) => { const node = doc.getElementById(id); return node ? node.value : fallback; };
    list.name = typed("league-name", list.name);
    list.difficulty = typed("league-difficulty", list.difficulty);
    list.invite = typed("league-invite", list.invite);
    const title = t("title_leagues");
    const items = list.data
      ? list.data.map((l) => el("li", { class: "league-item" },
        el("span", { text: `${l.name} · ${DIFFICULTY_NAMES[l.difficulty]} · ${t("league_members", { n: l.members })}` }),
        button("league-open", t("league_table"), { className: "button small", "data-league": l.id, "aria-label": `${t("league_table")}: ${l.name}` })))
      : [];
    const create = el("form", { class: "field league-form", "data-form": "league-create" },
      el("label", { for: "league-name", text: t("league_name") }),
      el("input", { id: "league-name", name: "name", value: list.name, maxLength: 24, required: true, autocomplete: "off",
        ...(list.formError ? { "aria-invalid": "true", "aria-describedby": "league-error" } : {}) }),
      el("label", { for: "league-difficulty", text: t("league_daily") }),
      el("select", { id: "league-difficulty", name: "difficulty" },
        ...Object.entries(DIFFICULTY_NAMES).map(([key, label]) => el("option", { value: key, text: label, selected: key === list.difficulty }))),
      list.formError ? el("p", { id: "league-error", class: "error-text", role: "alert", text: list.formError }) : null,
      el("button", { type: "submit", class: "button primary", text: t("league_create") }));
    const join = el("form", { class: "field league-form", "data-form": "league-join" },
      el("label", { for: "league-invite", text: t("league_invite_code") }),
      el("input", { id: "league-invite", name: "invite", value: list.invite, maxLength: 32, required: true, autocapitalize: "characters", spellcheck: false, autocomplete: "off" }),
      list.joinError ? el("p", { class: "error-text", role: "alert", text: list.joinError }) : null,
      el("button", { type: "submit", class: "button", text: t("league_join") }));
    return [title,
      list.error ? el("p", { class: "error-text", role: "alert", text: list.error }) : null,
      !list.data && !list.error ? el("p", { text: t("loading") }) : null,
      list.data && !list.data.length ? el("p", { text: t("leagues_none") }) : null,
      items.length ? el("ul", { class: "league-list" }, ...items) : null,
      ...(list.needsAccount ? [this.saveFirst(t), el("p", { class: "note", text: t("league_rule_note") })]
        : [el("h3", { text: t("league_new") }), create,
          el("p", { class: "note", text: t("league_rule_note") }),
          el("h3", { text: t("league_join_title") }), join])];
  }

  inviteSheet(t) {
    const { data, error, needsAccount } = this.invite;
    const title = t("title_league_invite");
    if (error && !data) return [title, el("p", { class: "error-text", role: "alert", text: error })];
    if (!data) return [title, el("p", { text: t("loading") })];
    return [title,
      el("p", { class: "challenge-who", text: t("league_invited", { name: data.name, who: who(t, data.by) }) }),
      el("p", { class: "note", text: `${t("league_daily_of", { name: DIFFICULTY_NAMES[data.difficulty] })} · ${t("league_members", { n: data.members })}` }),
      error ? el("p", { class: "error-text", role: "alert", text: error }) : null,
      needsAccount ? this.saveFirst(t) : el("div", { class: "actions" }, button("league-join", t("league_join"), { className: "button primary wide" }))];
  }

  tableSheet(t) {
    const { data, error, status } = this.table;
    if (error && !data) return [t("title_leagues"), el("p", { class: "error-text", role: "alert", text: error })];
    if (!data) return [t("title_leagues"), el("p", { text: t("loading") })];
    const league = data.league;
    // # · name · the week's standing · the seven days (narrow letters). On a phone only today's
    // day shows (a week of three-digit scores did not fit): a name opens its whole week.
    const today = data.days.includes(data.today) ? data.today : data.days[data.days.length - 1];
    const dayClass = (d) => `n day${d === today ? " today" : ""}`;
    const head = el("tr", {},
      el("th", { scope: "col", class: "n", text: "#" }),
      el("th", { scope: "col", text: t("name") }),
      el("th", { scope: "col", class: "n", text: t("total") }),
      ...data.days.map((d) => el("th", { scope: "col", class: dayClass(d), title: weekday(t, d, "long"), text: weekday(t, d, "narrow") })));
    const open = this.table.open;
    const weekOf = (m) => el("tr", { class: "member-week" }, el("td", { colSpan: 3 + data.days.length },
      el("ul", { class: "week-days" }, ...m.scores.map((s, i) => el("li", {},
        el("span", { text: weekday(t, data.days[i], "short") }), el("strong", { text: s === null ? "·" : t.number(s) }))))));
    const rows = data.members.flatMap((m) => [el("tr", { class: m.mine ? "mine" : "" },
      el("td", { class: "n place", text: String(m.rank) }),
      el("td", { class: "who" },
        button("league-member-week", m.mine ? t("you") : who(t, m.name), {
          className: "member-name", "data-member": String(m.member), "aria-expanded": String(open === String(m.member)),
        }),
        m.creator ? el("span", { class: "creator", title: t("league_creator") }, el("span", { "aria-hidden": "true", text: "★" }), el("span", { class: "visually-hidden", text: t("league_creator") })) : null,
        m.streak > 1 ? el("span", { class: "streak", title: t("league_streak", { n: m.streak }) }, flame(),
          el("span", { "aria-hidden": "true", text: String(m.streak) }), el("span", { class: "visually-hidden", text: t("league_streak", { n: m.streak }) })) : null),
      el("td", { class: "n score", text: t.number(m.total) }),
      ...m.scores.map((s, i) => el("td", { class: dayClass(data.days[i]), "aria-label": `${weekday(t, data.days[i], "long")}: ${s === null ? t("league_missed") : s}`, text: s === null ? "·" : t.number(s) }))),
    open === String(m.member) ? weekOf(m) : null].filter(Boolean));
    // the creator's: a member removed (by name, below the table)
    const others = league.creator ? data.members.filter((m) => !m.mine) : [];
    const members = others.length
      ? el("ul", { class: "league-members" }, ...others.map((m) => el("li", {},
        el("span", { text: who(t, m.name) }),
        button("league-remove", t("league_remove"), { className: "button small", "data-member": m.member, "data-name": m.name || "", "aria-label": t("league_remove_who", { who: who(t, m.name) }) }))))
      : null;
    const winners = data.last_week_winners.length
      ? el("p", { class: "note", text: t("league_last_winner", { who: data.last_week_winners.map((n) => who(t, n)).join(", ") }) })
      : null;
    return [league.name,
      data.handed_from !== null && data.handed_from !== undefined
        ? el("p", { class: "account-notice", role: "status", text: t("league_handed_to_you", { who: who(t, data.handed_from) }) }) : null,
      el("p", { class: "note", text: `${t("league_daily_of", { name: DIFFICULTY_NAMES[league.difficulty] })} · ${t("league_week", { week: data.week })}` }),
      el("div", { class: "table-scroll" }, el("table", { class: "league-table" },
        el("caption", { class: "visually-hidden", text: `${league.name} ${data.week}` }),
        el("thead", {}, head), el("tbody", {}, ...rows))),
      el("p", { class: "note", text: t("league_standing_rule", { n: data.counted_days }) }),
      winners,
      el("div", { class: "actions week-nav" },
        button("league-week", t("league_previous_week"), { "data-week": data.previous_week }),
        data.next_week ? button("league-week", t("league_next_week"), { "data-week": data.next_week }) : null),
      members ? el("h3", { text: t("league_members_title") }) : null, members,
      el("h3", { text: t("league_invite_title") }),
      ...linkPart(t, { url: league.url, qr: data.invite_qr, status }, { shareIntent: "league-share", copyIntent: "league-copy", qrLabel: t("league_qr") }),
      el("div", { class: "actions" },
        league.creator ? button("league-renew", t("league_renew")) : null,
        button("league-leave", t("league_leave"), { className: "button delete" }))];
  }
}
