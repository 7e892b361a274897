// What this browser remembers between visits, and the one place that touches localStorage:
// the language, whether to animate, the difficulty of the last game (for the next new game),
// the id of the last game (to show a finished game's result, or the daily being played, again
// after a reload) and the finished games whose result the player closed (not shown again by
// itself; RESULT on the board opens it).

const LANGUAGE_KEY = "magdagdon.language";
const MOTION_KEY = "magdagdon.animations";
const DIFFICULTY_KEY = "magdagdon.difficulty";
const LAST_GAME_KEY = "magdagdon.lastGame";
const TOUR_KEY = "magdagdon.tourSeen";
const CLOSED_RESULTS_KEY = "magdagdon.closedResults";
const SIGNED_IN_KEY = "magdagdon.signedIn";
const PASSKEY_TOLD_KEY = "magdagdon.passkeyTold"; // the new passkey this browser was told of
const CLOSED_RESULTS_KEPT = 20; // the most recent; a reload shows only the last game anyway

export class Preferences {
  constructor(storage) {
    this.storage = storage;
  }

  language() {
    return this.storage.getItem(LANGUAGE_KEY);
  }

  setLanguage(language) {
    this.storage.setItem(LANGUAGE_KEY, language);
  }

  // true or false once the player has chosen in the settings, null before
  animations() {
    const saved = this.storage.getItem(MOTION_KEY);
    return saved === null ? null : saved === "1";
  }

  setAnimations(on) {
    this.storage.setItem(MOTION_KEY, on ? "1" : "0");
  }

  difficulty() {
    return this.storage.getItem(DIFFICULTY_KEY);
  }

  // whether this browser was signed in to an account when it last looked (a device signed out
  // from another one is then told so)
  signedIn() {
    return this.storage.getItem(SIGNED_IN_KEY) === "1";
  }

  // whether this browser was told already of the account's new passkey (its id)
  passkeyTold(id) {
    return this.storage.getItem(PASSKEY_TOLD_KEY) === id;
  }

  setPasskeyTold(id) {
    this.storage.setItem(PASSKEY_TOLD_KEY, id);
  }

  setSignedIn(on) {
    if (on) this.storage.setItem(SIGNED_IN_KEY, "1");
    else this.storage.removeItem(SIGNED_IN_KEY);
  }

  // whether the guided first game was shown (or skipped) in this browser
  tourSeen() {
    return this.storage.getItem(TOUR_KEY) === "1";
  }

  setTourSeen() {
    this.storage.setItem(TOUR_KEY, "1");
  }

  lastGame() {
    return this.storage.getItem(LAST_GAME_KEY);
  }

  // Every game shown is remembered: its id is reopened (a daily's too, while it is today's);
  // a regular game's difficulty is the next new game's.
  rememberGame(game) {
    if (!game.daily && !game.past_daily) this.storage.setItem(DIFFICULTY_KEY, game.difficulty);
    this.storage.setItem(LAST_GAME_KEY, game.id);
  }

  // whether the player closed this finished game's result sheet in this browser
  resultClosed(id) {
    return this.closedResults().includes(id);
  }

  setResultClosed(id) {
    const ids = this.closedResults().filter((other) => other !== id);
    ids.push(id);
    this.storage.setItem(CLOSED_RESULTS_KEY, JSON.stringify(ids.slice(-CLOSED_RESULTS_KEPT)));
  }

  closedResults() {
    try {
      const ids = JSON.parse(this.storage.getItem(CLOSED_RESULTS_KEY));
      return Array.isArray(ids) ? ids : [];
    } catch {
      return []; // not ours, or damaged: nothing was closed
    }
  }
}
