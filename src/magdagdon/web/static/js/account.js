// The account screen: save the games with a passkey or a transfer code, sign in on another
// device, the passkeys and devices signed in, and the player's data (download, delete). Built
// from what the server sent; the passkey ceremonies are the browser's (navigator.credentials),
// the options and their checks the server's.

import { ApiError } from "./api.js";
import { askName } from "./askname.js";
import { dayText } from "./daily.js";
import { button, el, qrCode } from "./dom.js";
import { DIFFICULTY_NAMES, deviceName } from "./view.js";

// Whether this browser can make and use passkeys at all.
export function passkeysSupported() {
  return typeof window.PublicKeyCredential === "function" && Boolean(navigator.credentials);
}

// Whether a passkey ceremony's error is the person closing the browser's window. Browsers say
// NotAllowedError for that and also when they have no authenticator to offer (Firefox with
// none: its window says so, and closing it is the same error): where the browser has no
// authenticator of its own either, the passkey did not work here (a transfer code does).
// Any other error (NotSupportedError, SecurityError, …) is the passkey not working here.
async function passkeyCancelled(error) {
  if (!error || error.name !== "NotAllowedError") return false;
  try {
    const check = PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable;
    return typeof check === "function" ? await check.call(PublicKeyCredential) : true;
  } catch {
    return false;
  }
}

// Where passkeys work when this page is at a loopback address: browsers refuse an IP address as
// a passkey's site, and the same server answers at localhost (what `serve` prints). Null when
// the page is at a name already (or at another address, which needs MAGDAGDON_PUBLIC_ORIGIN).
export function passkeyHome(location) {
  const host = location.hostname.replace(/^\[|\]$/g, "");
  if (!/^127(\.\d{1,3}){3}$/.test(host) && host !== "::1") return null;
  return `${location.protocol}//localhost${location.port ? `:${location.port}` : ""}/`;
}

// base64url ⇄ bytes, for browsers without PublicKeyCredential's JSON methods
function fromB64(text) {
  const plain = text.replace(/-/g, "+").replace(/_/g, "/");
  const bytes = atob(plain + "=".repeat((4 - (plain.length % 4)) % 4));
  return Uint8Array.from(bytes, (c) => c.charCodeAt(0)).buffer;
}

function toB64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function credentialJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: toB64(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64(r.attestationObject);
    response.transports = typeof r.getTransports === "function" ? r.getTransports() : [];
  } else {
    response.authenticatorData = toB64(r.authenticatorData);
    response.signature = toB64(r.signature);
    if (r.userHandle) response.userHandle = toB64(r.userHandle);
  }
  return {
    id: credential.id, rawId: toB64(credential.rawId), type: credential.type, response,
    clientExtensionResults: credential.getClientExtensionResults(),
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
  };
}

// A new passkey from the server's options; its JSON for the server to verify.
export async function createPasskey(options) {
  let publicKey;
  if (typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function") {
    publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options);
  } else {
    publicKey = {
      ...options, challenge: fromB64(options.challenge), user: { ...options.user, id: fromB64(options.user.id) },
      excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })),
    };
  }
  return credentialJSON(await navigator.credentials.create({ publicKey }));
}

// A passkey's answer to the server's sign-in options.
export async function usePasskey(options) {
  let publicKey;
  if (typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function") {
    publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
  } else {
    publicKey = {
      ...options, challenge: fromB64(options.challenge),
      allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: fromB64(c.id) })),
    };
  }
  return credentialJSON(await navigator.credentials.get({ publicKey }));
}

function when(t, iso) {
  return new Date(iso).toLocaleString(t.language, { dateStyle: "medium", timeStyle: "short" });
}

// The name others see (challenges, leagues, the tables), changed here whenever the player likes.
function namePart(t, me, typed) {
  const input = el("input", { id: "account-name-input", name: "name", autocomplete: "nickname", maxLength: me.name_max || 24, value: typed ?? (me.name || "") });
  return [
    el("h3", { text: t("name_ask_title") }),
    el("form", { class: "row", "data-form": "account-name" },
      el("div", { class: "field" }, el("label", { for: "account-name-input", text: t("name_ask_label") }), input),
      el("button", { type: "submit", class: "button", text: t("save") })),
  ];
}

function dataPart(t) {
  return [
    el("h3", { text: t("account_my_data") }),
    el("p", { class: "note", text: t("account_data_note") }),
    el("div", { class: "actions account-actions" },
      el("a", { class: "button", href: "/api/players/me/export", download: "magdagdon-export.json", text: t("account_download") }),
      button("account-delete", t("account_delete"), { className: "button delete" })),
  ];
}

function codePart(t, code) {
  if (!code) return null;
  const until = new Date(code.expires_at).toLocaleTimeString(t.language, { hour: "2-digit", minute: "2-digit" });
  return el("div", { class: "transfer-code" },
    // read out letter by letter (a screen reader would read "ABCD" as a word)
    el("p", { class: "code" },
      el("span", { "aria-hidden": "true", text: code.code }),
      el("span", { class: "visually-hidden", text: [...code.code].join(" ") })),
    qrCode(code.qr, t("account_qr", { code: code.code })),
    el("p", { class: "note", text: t("account_code_note", { time: until }) }));
}

function signInPart(t, { codeInput, codeFromLink, codeError, supported, signedOut }) {
  const warned = Boolean(codeFromLink && codeInput);
  const described = [warned ? "transfer-warning" : null, codeError ? "transfer-error" : null].filter(Boolean);
  const input = el("input", {
    id: "transfer-input", name: "code", value: codeInput || "", autocomplete: "one-time-code",
    autocapitalize: "characters", spellcheck: false, maxLength: 32, required: true,
    ...(described.length ? { "aria-describedby": described.join(" ") } : {}),
    ...(codeError ? { "aria-invalid": "true" } : {}),
  });
  return [
    el("h3", { text: t("account_sign_in_title") }),
    el("p", { class: "note", text: t("account_sign_in_note") }),
    // a code that came in the address: the account it opens gets this browser's games
    warned ? el("p", { class: "note warning", id: "transfer-warning", text: t("account_code_from_link") }) : null,
    el("form", { class: "row", "data-form": "transfer" },
      el("div", { class: "field" }, el("label", { for: "transfer-input", text: t("account_code_label") }), input),
      el("button", { type: "submit", class: "button", id: "transfer-submit", text: t("account_sign_in") })),
    codeError ? el("p", { class: "error-text", id: "transfer-error", role: "alert", text: codeError }) : null,
    supported ? el("div", { class: "actions account-actions" }, button("passkey-sign-in", t("account_passkey_sign_in"), { className: signedOut ? "button primary wide" : "button" })) : null,
  ];
}

// What a step said, where the person looks: just after the buttons of the part they pressed
// (its data-intent, `at`), else at the top of the sheet. (A notice is said by the page's live
// region when it happens: not announced twice.)
function placed(parts, messages, at) {
  const shown = messages.filter(Boolean);
  if (!shown.length) return parts;
  const near = at ? parts.findIndex((p) => p && p.querySelector && p.querySelector(`[data-intent="${CSS.escape(at)}"]`)) : -1;
  const box = el("div", { class: "account-message" }, ...shown);
  if (near < 0) return [box, ...parts];
  return [...parts.slice(0, near + 1), box, ...parts.slice(near + 1)];
}

// The sessions' devices told apart: this one first, then the one used last first; a label that
// several share numbered in the order they were first seen ("Chrome on Linux 2").
function devicesList(t, sessions) {
  const label = (s) => deviceName(t, s.label) || t("account_device");
  const order = [...sessions].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const count = new Map();
  const nth = new Map();
  for (const s of order) count.set(label(s), (count.get(label(s)) || 0) + 1);
  const seen = new Map();
  for (const s of order) {
    const n = (seen.get(label(s)) || 0) + 1;
    seen.set(label(s), n);
    nth.set(s.id, count.get(label(s)) > 1 ? `${label(s)} ${n}` : label(s));
  }
  const ordered = [...sessions.filter((s) => s.current),
    ...sessions.filter((s) => !s.current).sort((a, b) => b.last_used_at.localeCompare(a.last_used_at))];
  const how = { passkey: "account_how_passkey", transfer: "account_how_transfer", visit: "account_how_visit" };
  return el("ul", { class: "account-list devices" }, ...ordered.map((s) => el("li", { class: s.current ? "current" : "" },
    el("div", {},
      el("strong", {}, nth.get(s.id), s.current ? el("span", { class: "tag", text: t("account_this_device") }) : null),
      el("span", { class: "note", text: [t("account_first_seen", { date: when(t, s.created_at) }), how[s.method] ? t(how[s.method]) : null].filter(Boolean).join(" · ") }),
      el("span", { class: "note", text: t("account_last_seen", { date: when(t, s.last_used_at) }) })),
    s.current ? null : button("session-end", t("account_sign_out_device"), {
      className: "button small", "data-session": s.id, "aria-label": `${t("account_sign_out_device")}: ${nth.get(s.id)}`,
    }))));
}

// Each passkey by the device it was added from, when, and when it was used last.
function passkeyList(t, passkeys) {
  const name = (p) => (p.label ? t("account_passkey_from", { label: deviceName(t, p.label) }) : t("account_passkey"));
  return el("ul", { class: "account-list" }, ...passkeys.map((p) => el("li", {},
    el("div", {},
      el("strong", { text: name(p) }),
      el("span", { class: "note", text: t("account_added", { date: when(t, p.created_at) }) }),
      p.last_used_at ? el("span", { class: "note", text: t("account_used", { date: when(t, p.last_used_at) }) }) : null,
      // the account's first passkey, on probation for a day (it could be a cookie thief's)
      p.probation_until ? el("span", { class: p.added_here ? "note" : "error-text",
        text: t(p.added_here ? "account_passkey_probation" : "account_passkey_probation_elsewhere",
          { date: when(t, p.probation_until) }) }) : null),
    button("passkey-remove", t("account_remove"), { className: "button small", "data-passkey": p.id, "aria-label": `${t("account_remove")}: ${name(p)}` }))));
}

// state: {me, passkeys, sessions, code (a transfer code just made), codeInput, notice, error,
// at (the intent whose part says them), busy, supported (passkeys work in this browser)}
export function accountSheet(t, state) {
  const [title, ...parts] = accountParts(t, state);
  const { notice, error } = state;
  const said = Array.isArray(notice) ? notice : notice ? [notice] : [];
  const messages = [
    said.length > 1 ? el("ul", { class: "account-notice" }, ...said.map((line) => el("li", { text: line })))
      : said.length ? el("p", { class: "account-notice", text: said[0] }) : null,
    error ? el("p", { class: "error-text", role: "alert", text: error }) : null,
  ];
  return [title, ...placed(parts, messages, state.at)];
}

function accountParts(t, state) {
  const { me, passkeys, sessions, code, supported } = state;
  const title = t("title_account");
  if (!me) return [title, el("p", { text: t("loading") })];
  if (!me.account) {
    const save = [
      el("p", { text: t("account_intro") }),
      el("div", { class: "actions account-actions" },
        supported ? button("passkey-register", t("account_save_passkey"), { className: state.signedOut ? "button" : "button primary wide" }) : null,
        button("transfer-code", t("account_show_code"))),
      supported ? null : el("p", { class: "note", text: t("account_no_passkeys") }),
      codePart(t, code),
    ];
    // come with a code (its QR code, its link), or signed out from elsewhere: signing (back)
    // in first, saving after (saving would make a second, empty account)
    const signIn = signInPart(t, state);
    const back = state.signedOut || (state.codeFromLink && state.codeInput);
    const first = back ? [...signIn, ...save] : [...save, ...signIn];
    return [title, ...first, ...namePart(t, me, state.typedName), ...dataPart(t)];
  }
  const keys = passkeys === null ? el("p", { text: t("loading") }) : passkeys.length ? passkeyList(t, passkeys)
    : el("p", { class: "note", text: t("account_no_passkey_yet") });
  const devices = sessions === null ? el("p", { text: t("loading") }) : devicesList(t, sessions);
  return [title,
    el("p", { text: t("account_saved") }),
    state.carryOn ? el("div", { class: "actions" }, button("account-carry-on", t("account_carry_on"), { className: "button primary wide" })) : null,
    el("h3", { text: t("account_passkeys") }),
    keys,
    supported ? el("div", { class: "actions account-actions" }, button("passkey-register", t("account_add_passkey"))) : null,
    el("h3", { text: t("account_other_device") }),
    el("p", { class: "note", text: t("account_other_device_note") }),
    el("div", { class: "actions account-actions" }, button("transfer-code", t("account_show_code"))),
    codePart(t, code),
    el("h3", { text: t("account_devices") }),
    devices,
    el("div", { class: "actions account-actions sign-outs" },
      button("sign-out", t("account_sign_out")),
      button("sign-out-everywhere", t("account_sign_out_everywhere"))),
    ...namePart(t, me, state.typedName),
    ...dataPart(t),
  ];
}

// What a sign-in brought over, in words (a line each): the games moved, each daily played on
// both devices with the score kept and the one dropped, a game in progress given up.
export function mergeNotice(t, merged) {
  const score = (n) => (n === null || n === undefined ? "–" : t.number(n));
  // (a browser that brought no game it played says no number)
  const lines = [merged.games ? t("account_signed_in", { n: merged.games }) : t("account_signed_in_alone")];
  for (const d of merged.dailies) {
    lines.push(t("account_daily_clash", {
      date: dayText(t, d.date), difficulty: DIFFICULTY_NAMES[d.difficulty], kept: score(d.kept_score), dropped: score(d.dropped_score),
    }));
  }
  if (merged.abandoned_game_id) lines.push(t("account_game_abandoned"));
  return lines;
}

// The screen's steps: the requests of the account, what each said, the screen drawn again.
// controller: the page's (its api, t, dialogs, view, and the account state it draws from).
export class AccountScreen {
  constructor(controller) {
    this.c = controller;
  }

  get state() {
    return this.c.account;
  }

  request(method, path, body) {
    return this.c.api.request(method, path, body);
  }

  handle(intent, data) {
    this.state.at = intent; // what it says goes beside the part pressed
    switch (intent) {
      case "passkey-register": return this.registerPasskey();
      case "passkey-sign-in": return this.signInWithPasskey();
      case "passkey-remove": return this.removePasskey(data.passkey);
      case "transfer-code": return this.makeTransferCode();
      case "submit-transfer": return this.signInWithCode(data.code);
      case "session-end": return this.endSession(data.session);
      case "sign-out": return this.signOut(false);
      case "sign-out-everywhere": return this.signOut(true);
      case "account-delete": return this.deleteMe();
      case "submit-account-name": return this.saveName(data.name);
      case "account-carry-on": return this.carryOn();
      default: return undefined;
    }
  }

  // The screen's data (what a step just said stays on it).
  async load() {
    const state = this.state;
    this.c.paint();
    try {
      state.me = await this.request("GET", "/api/players/me");
      this.c.preferences.setSignedIn(state.me.account);
      state.carryOn = Boolean(this.c.afterSaving) && state.me.account; // saved: back to the league
      if (state.me.account) state.signedOut = false; // (back in)
      if (state.me.account) {
        [state.passkeys, state.sessions] = await Promise.all([
          this.request("GET", "/api/account/passkeys"), this.request("GET", "/api/account/sessions")]);
      }
    } catch (error) {
      state.error = this.c.errorText(error);
    }
    if (this.c.screen !== "account") return;
    this.c.paint();
    // what a step said, where the eye is (the sheet may be scrolled far from its top)
    if (state.notice || state.error) this.c.doc.querySelector("#sheet .account-message")?.scrollIntoView({ block: "nearest" });
    if (state.focusCode) { // come with a code: its SIGN IN where the eye and the keyboard are
      state.focusCode = false;
      const submit = this.c.doc.getElementById("transfer-submit");
      if (submit) {
        submit.focus();
        submit.scrollIntoView({ block: "nearest" });
      }
    }
  }

  // One step: its work, then the screen drawn again with what it said (or its error).
  // passkey: the step asks the browser for a passkey (its own errors are said as such).
  async step(work, { passkey = false } = {}) {
    const state = this.state;
    const t = this.c.t;
    state.notice = "";
    state.error = "";
    state.codeError = ""; // an old message (of the code's field) goes with the next step
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError) state.error = this.c.errorText(error);
      else if (passkey) {
        const home = passkeyHome(this.c.doc.defaultView.location);
        if (await passkeyCancelled(error)) state.error = t("account_passkey_cancelled");
        else state.error = home ? t("account_passkey_at", { url: home }) : t("account_passkey_failed");
      }
      else state.error = t("something_wrong");
    }
    if (state.notice) this.c.view.announce([state.notice].flat().join(" "));
    if (this.c.screen === "account") await this.load();
  }

  // Back to where saving was asked for (a league's invite, or the leagues): the player came to
  // save their games on the way to joining or making one.
  carryOn() {
    const back = this.c.afterSaving;
    this.c.afterSaving = null;
    if (back) this.c.open(back);
  }

  // The name from the account's form: what was typed stays after a refusal, with the rule.
  saveName(name) {
    const t = this.c.t;
    return this.step(async () => {
      this.state.typedName = name;
      try {
        await this.request("PUT", "/api/players/me", { name });
      } catch (error) {
        if (error instanceof ApiError && error.code === "invalid_request") {
          throw new ApiError(422, "name_rules", t("name_rules", { max: (this.state.me && this.state.me.name_max) || 24 }), {});
        }
        throw error;
      }
      this.state.typedName = null;
      this.state.notice = t("name_saved");
    });
  }

  registerPasskey() {
    const t = this.c.t;
    return this.step(async () => {
      const ask = () => this.request("POST", "/api/account/passkeys/registration/options");
      let options;
      try {
        options = await ask();
      } catch (error) {
        // An account that has a passkey adds another only after one of its passkeys said it
        // is the player (a stolen cookie could not): that sign-in first, then the new one.
        if (!(error instanceof ApiError) || error.code !== "passkey_proof_needed") throw error;
        if (!(await this.c.dialogs.ask(t("account_passkey_proof"), t("account_passkey_confirm")))) return;
        const proof = await usePasskey(await this.request("POST", "/api/account/sign-in/passkey/options"));
        await this.request("POST", "/api/account/sign-in/passkey/verification", { credential: proof });
        options = await ask();
      }
      const credential = await createPasskey(options);
      const made = await this.request("POST", "/api/account/passkeys/registration/verification", { credential });
      // (every device of the account is told of a first passkey: this one made it)
      if (made && made.id) this.c.preferences.setPasskeyTold(made.id);
      this.state.notice = this.c.t("account_passkey_saved");
      await askName(this.c); // saved games: leagues and challenges name their players
      if (this.c.afterSaving) this.carryOn(); // back to the league the player was joining
    }, { passkey: true });
  }

  async makeTransferCode() {
    await this.step(async () => {
      this.state.code = await this.request("POST", "/api/account/transfer-codes");
    });
    // the code and its QR code where the player looks, on a short phone too
    const made = this.c.doc.querySelector("#sheet .transfer-code");
    if (made) made.scrollIntoView({ block: "nearest", behavior: this.c.animations ? "smooth" : "auto" });
  }

  signInWithPasskey() {
    return this.step(async () => {
      const credential = await usePasskey(await this.request("POST", "/api/account/sign-in/passkey/options"));
      await this.signedIn(await this.request("POST", "/api/account/sign-in/passkey/verification", { credential }));
    }, { passkey: true });
  }

  // (a refused code is said under its field, which keeps the focus)
  async signInWithCode(code) {
    const state = this.state;
    state.codeInput = code;
    state.codeError = "";
    await this.step(async () => {
      try {
        await this.signedIn(await this.request("POST", "/api/account/sign-in/transfer", { code }));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        state.codeError = this.c.errorText(error);
        return;
      }
      state.codeInput = "";
      state.codeFromLink = false;
    });
    if (state.codeError) this.c.doc.getElementById("transfer-input")?.focus();
  }

  // (a failure to show the game afterwards is said on its own: the sign-in did happen)
  async signedIn(answer) {
    this.state.notice = mergeNotice(this.c.t, answer.merged);
    this.state.code = null;
    await this.c.newIdentity();
  }

  removePasskey(id) {
    const t = this.c.t;
    return this.step(async () => {
      const last = (this.state.passkeys || []).length <= 1;
      if (last && !(await this.c.dialogs.ask(t("account_remove_last"), t("account_remove")))) return;
      await this.request("DELETE", `/api/account/passkeys/${encodeURIComponent(id)}${last ? "?last=true" : ""}`);
      this.state.notice = t("account_passkey_removed");
    });
  }

  endSession(id) {
    return this.step(async () => {
      await this.request("DELETE", `/api/account/sessions/${encodeURIComponent(id)}`);
      this.state.notice = this.c.t("account_device_signed_out");
    });
  }

  signOut(everywhere) {
    const t = this.c.t;
    return this.step(async () => {
      // the account's first passkey on probation would be the only way back: asked by name
      const fresh = (this.state.passkeys || []).find((p) => p.probation_until);
      const last = (this.state.sessions || []).length <= 1;
      const body = { everywhere };
      if (fresh && (everywhere || last)) {
        const said = { label: deviceName(t, fresh.label) || "?", date: when(t, fresh.created_at) };
        const question = t("account_sign_out_new_passkey", said);
        if (!(await this.c.dialogs.ask(question, t(everywhere ? "account_sign_out_everywhere" : "account_sign_out")))) return;
        body.keep_new_passkey = true;
      } else if (everywhere && !(await this.c.dialogs.ask(t("account_sign_out_everywhere_confirm"), t("account_sign_out_everywhere")))) return;
      await this.request("POST", "/api/account/sign-out", body);
      this.c.preferences.setSignedIn(false);
      this.state.code = null;
      this.state.notice = this.c.t(everywhere ? "account_signed_out_everywhere" : "account_signed_out");
      await this.c.newIdentity();
    });
  }

  deleteMe() {
    const t = this.c.t;
    return this.step(async () => {
      if (!(await this.c.dialogs.ask(t("account_delete_confirm"), t("account_delete_yes")))) return;
      await this.request("DELETE", "/api/players/me");
      this.c.preferences.setSignedIn(false);
      this.state.code = null;
      this.state.notice = t("account_deleted");
      await this.c.newIdentity();
    });
  }
}
