// The account screen: save the games with a passkey or a transfer code, sign in on another
// device, the passkeys and devices signed in, and the player's data (download, delete). Built
// from what the server sent; the passkey ceremonies are the browser's (navigator.credentials),
// the options and their checks the server's.

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
