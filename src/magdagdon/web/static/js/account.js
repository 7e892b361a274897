// The account screen: save the games with a passkey or a transfer code, sign in on another
// device, the passkeys and devices signed in, and the player's data (download, delete). Built
// from what the server sent; the passkey ceremonies are the browser's (navigator.credentials),
// the options and their checks the server's.

import { ApiError } from "./api.js";
import { button, el, svg } from "./dom.js";

// Whether this browser can make and use passkeys at all.
export function passkeysSupported() {
  return typeof window.PublicKeyCredential === "function" && Boolean(navigator.credentials);
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

// The QR code of a transfer code's address, drawn from its modules (one path, a quiet zone of 4).
function qrCode(t, modules, code) {
  const size = modules.length + 8;
  let d = "";
  modules.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === "1") d += `M${x + 4} ${y + 4}h1v1h-1z`;
  });
  return svg("svg", { class: "qr", viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": t("account_qr", { code }), "shape-rendering": "crispEdges" },
    svg("rect", { width: size, height: size, fill: "#fff" }),
    svg("path", { d, fill: "#000" }));
}

function when(t, iso) {
  return new Date(iso).toLocaleString(t.language, { dateStyle: "medium", timeStyle: "short" });
}

function dataPart(t) {
  return [
    el("h3", { text: t("account_my_data") }),
    el("p", { class: "note", text: t("account_data_note") }),
    el("div", { class: "actions" },
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
    qrCode(t, code.qr, code.code),
    el("p", { class: "note", text: t("account_code_note", { time: until }) }));
}

function signInPart(t, { codeInput, codeFromLink, supported }) {
  const warned = Boolean(codeFromLink && codeInput);
  const input = el("input", {
    id: "transfer-input", name: "code", value: codeInput || "", autocomplete: "one-time-code",
    autocapitalize: "characters", spellcheck: false, maxLength: 32, required: true,
    ...(warned ? { "aria-describedby": "transfer-warning" } : {}),
  });
  return [
    el("h3", { text: t("account_sign_in_title") }),
    el("p", { class: "note", text: t("account_sign_in_note") }),
    supported ? el("div", { class: "actions" }, button("passkey-sign-in", t("account_passkey_sign_in"))) : null,
    // a code that came in the address may be somebody else's: signing in would give them
    // this browser's games
    warned ? el("p", { class: "note warning", id: "transfer-warning", text: t("account_code_from_link") }) : null,
    el("form", { class: "row", "data-form": "transfer" },
      el("div", { class: "field" }, el("label", { for: "transfer-input", text: t("account_code_label") }), input),
      el("button", { type: "submit", class: "button", text: t("account_sign_in") })),
  ];
}

// state: {me, passkeys, sessions, code (a transfer code just made), codeInput, notice, error,
// busy, supported (passkeys work in this browser)}
export function accountSheet(t, state) {
  const { me, passkeys, sessions, code, notice, error, supported } = state;
  const title = t("title_account");
  const messages = [
    // (said by the page's live region when it happens: not announced twice)
    notice ? el("p", { class: "share-note account-notice", text: notice }) : null,
    error ? el("p", { class: "error-text", role: "alert", text: error }) : null,
  ];
  if (!me) return [title, ...messages, el("p", { text: t("loading") })];
  if (!me.account) {
    return [title, ...messages,
      el("p", { text: t("account_intro") }),
      el("div", { class: "actions" },
        supported ? button("passkey-register", t("account_save_passkey"), { className: "button primary wide" }) : null,
        button("transfer-code", t("account_show_code"))),
      supported ? null : el("p", { class: "note", text: t("account_no_passkeys") }),
      codePart(t, code),
      ...signInPart(t, state),
      ...dataPart(t),
    ];
  }
  const keys = passkeys === null ? el("p", { text: t("loading") }) : passkeys.length
    ? el("ul", { class: "account-list" }, ...passkeys.map((p) => el("li", {},
      el("div", {},
        el("strong", { text: p.label || t("account_passkey") }),
        el("span", { class: "note", text: t("account_made", { date: when(t, p.created_at) }) + (p.last_used_at ? ` · ${t("account_used", { date: when(t, p.last_used_at) })}` : "") })),
      button("passkey-remove", t("account_remove"), { className: "button small", "data-passkey": p.id, "aria-label": `${t("account_remove")}: ${p.label || t("account_passkey")}` }))))
    : el("p", { class: "note", text: t("account_no_passkey_yet") });
  const devices = sessions === null ? el("p", { text: t("loading") })
    : el("ul", { class: "account-list" }, ...sessions.map((s) => el("li", { class: s.current ? "current" : "" },
      el("div", {},
        el("strong", { text: `${s.label || t("account_device")}${s.current ? ` (${t("account_this_device")})` : ""}` }),
        el("span", { class: "note", text: t("account_last_used", { date: when(t, s.last_used_at) }) })),
      s.current ? null : button("session-end", t("account_sign_out_device"), {
        className: "button small", "data-session": s.id, "aria-label": `${t("account_sign_out_device")}: ${s.label || t("account_device")}`,
      }))));
  return [title, ...messages,
    el("p", { text: t("account_saved") }),
    el("h3", { text: t("account_passkeys") }),
    keys,
    supported ? el("div", { class: "actions" }, button("passkey-register", t("account_add_passkey"))) : null,
    el("h3", { text: t("account_other_device") }),
    el("p", { class: "note", text: t("account_other_device_note") }),
    el("div", { class: "actions" }, button("transfer-code", t("account_show_code"))),
    codePart(t, code),
    el("h3", { text: t("account_devices") }),
    devices,
    el("div", { class: "actions" },
      button("sign-out", t("account_sign_out")),
      button("sign-out-everywhere", t("account_sign_out_everywhere"))),
    ...dataPart(t),
  ];
}

// What a sign-in brought over, in words: the games moved, each daily played on both devices.
export function mergeNotice(t, merged) {
  const parts = [t("account_signed_in", { n: merged.games })];
  for (const d of merged.dailies) {
    parts.push(t("account_daily_clash", { date: d.date, score: d.kept_score ?? "–" }));
  }
  if (merged.abandoned_game_id) parts.push(t("account_game_abandoned"));
  return parts.join(" ");
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
      default: return undefined;
    }
  }

  // The screen's data (what a step just said stays on it).
  async load() {
    const state = this.state;
    this.c.paint();
    try {
      state.me = await this.request("GET", "/api/players/me");
      if (state.me.account) {
        [state.passkeys, state.sessions] = await Promise.all([
          this.request("GET", "/api/account/passkeys"), this.request("GET", "/api/account/sessions")]);
      }
    } catch (error) {
      state.error = this.c.errorText(error);
    }
    if (this.c.screen === "account") this.c.paint();
  }

  // One step: its work, then the screen drawn again with what it said (or its error).
  // passkey: the step asks the browser for a passkey (its own errors are said as such).
  async step(work, { passkey = false } = {}) {
    const state = this.state;
    const t = this.c.t;
    state.notice = "";
    state.error = "";
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError) state.error = this.c.errorText(error);
      // the person closed the browser's passkey window
      else if (passkey && error && error.name === "NotAllowedError") state.error = t("account_passkey_cancelled");
      else if (passkey) state.error = t("account_passkey_failed");
      else state.error = t("something_wrong");
    }
    if (state.notice) this.c.view.announce(state.notice);
    if (this.c.screen === "account") await this.load();
  }

  registerPasskey() {
    return this.step(async () => {
      const options = await this.request("POST", "/api/account/passkeys/registration/options");
      const credential = await createPasskey(options);
      await this.request("POST", "/api/account/passkeys/registration/verification", { credential });
      this.state.notice = this.c.t("account_passkey_saved");
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

  signInWithCode(code) {
    this.state.codeInput = code;
    return this.step(async () => {
      await this.signedIn(await this.request("POST", "/api/account/sign-in/transfer", { code }));
      this.state.codeInput = "";
      this.state.codeFromLink = false;
    });
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
    return this.step(async () => {
      await this.request("POST", "/api/account/sign-out", { everywhere });
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
      this.state.code = null;
      this.state.notice = t("account_deleted");
      await this.c.newIdentity();
    });
  }
}
