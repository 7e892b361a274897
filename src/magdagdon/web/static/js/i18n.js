// Translations: one JSON catalog per language, chosen from the browser (preferences.js remembers it).

export const LANGUAGES = ["en", "et", "sv"];

// The language saved before if there is one, else the browser's first that has a catalog.
export function chooseLanguage(saved) {
  if (LANGUAGES.includes(saved)) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = wanted.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function loadCatalog(language) {
  // beside this module, of its own release (/r/<release>/i18n/): never another release's words
  const response = await fetch(new URL(`../i18n/${language}.json`, import.meta.url));
  if (!response.ok) throw new Error(`the ${language} catalog: ${response.status}`);
  const catalog = await response.json();
  document.documentElement.lang = language;
  rememberLanguage(language);
  return translator(catalog, language);
}

// The other languages' catalogs and rules, fetched ahead (SETTINGS is open: a switch may come),
// so that the page's release has them (the browser's cache, the worker's) even once the server
// has moved on to another release. Nothing is said of a failure: the switch says it.
export function prefetchLanguages(current) {
  for (const language of LANGUAGES.filter((l) => l !== current)) {
    for (const path of [`../i18n/${language}.json`, `../rules/${language}.txt`]) fetch(new URL(path, import.meta.url)).catch(() => {});
  }
}

// The language the page chose, for the server: its start page preloads that catalog (web/
// assets.py), the service worker's copy of the page too. (A preference, not a session.)
function rememberLanguage(language) {
  const secure = location.protocol === "https:" ? "; secure" : "";
  document.cookie = `magdagdon_language=${language}; path=/; max-age=31536000; samesite=lax${secure}`;
}

// t(key, {n: 2}) → the catalog's text with {n} replaced; plural forms as key.one / key.other.
function translator(catalog, language) {
  const rules = new Intl.PluralRules(language);
  const t = (key, params = {}) => {
    let text = catalog[key];
    if (text === undefined && "n" in params) text = catalog[`${key}.${rules.select(params.n)}`] ?? catalog[`${key}.other`];
    if (text === undefined) return key;
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
  };
  t.language = language;
  t.extend = (more) => Object.assign(catalog, more); // a module's own words (puzzles.js)
  const decimal = new Intl.NumberFormat(language, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  t.decimal = (x) => decimal.format(x).replace("-", "−"); // 12,5 in Estonian and Swedish; a minus sign
  t.number = (n) => String(n).replace("-", "−"); // a score below zero: −10, not -10
  return t;
}

// Fill the static text of the page: data-i18n (text), data-i18n-label (aria-label), data-i18n-title.
export function translatePage(root, t) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
}
