// SHARE: a finished game as a short text (the game's name, the day's number and difficulty, the
// score and the coach's, the final board as a 4×4 grid of emoji that shows lines and RUINS but
// not the dice, and the replay's address), passed on with the browser's Web Share or copied.
// shareText is pure: the same game view and words always give the same text (the tests check it).

import { DIFFICULTY_NAMES } from "./view.js";

// a square in a line that scored a combo, another number, a RUIN, an empty square
export const SQUARES = { bonus: "🟩", number: "🟨", ruin: "💥", empty: "⬜" };

// The board as four lines of four emoji, from the view's board and its lines' combos.
export function shareGrid(game) {
  const score = game.final_score || game.score;
  const board = game.board.replaceAll("/", "");
  const lines = [];
  for (let r = 0; r < 4; r++) {
    let line = "";
    for (let c = 0; c < 4; c++) {
      const ch = board[4 * r + c];
      if (ch === "X" || ch === "x") line += SQUARES.ruin;
      else if (ch === ".") line += SQUARES.empty;
      else if (score.rows[r].bonus || score.columns[c].bonus) line += SQUARES.bonus;
      else line += SQUARES.number;
    }
    lines.push(line);
  }
  return lines;
}

// shareText(t, game, {origin}): t is the translator, game a finished game's view (for a daily,
// with `daily` and, once known, `par`), origin the site's address ("https://example.org").
export function shareText(t, game, { origin }) {
  const name = DIFFICULTY_NAMES[game.difficulty] || String(game.difficulty).toUpperCase();
  const total = (game.final_score || game.score).total;
  let title = `MAGDAGDON · ${name}`;
  if (game.daily) title = `MAGDAGDON ${t("daily_number", { number: game.daily.number })} · ${name}`;
  else if (game.past_daily) title = `MAGDAGDON ${t("past_daily_number", { number: game.past_daily.number })} · ${name}`;
  let result = t("share_score", { score: t.number(total) });
  if ((game.daily || game.past_daily) && game.par !== null && game.par !== undefined) result += ` · ${t("share_coach", { par: t.number(game.par) })}`;
  return [title, result, ...shareGrid(game), `${origin}/replay/${encodeURIComponent(game.id)}`].join("\n");
}

// Passes the text on: Web Share where the browser has it, else the clipboard. "shared",
// "cancelled" (the player closed the share sheet), "copied" or "failed". `text` is the text, or
// a promise of it: the browser must be asked within the tap (WebKit refuses once the tap's
// handler has awaited anything), so a text still on its way goes to the clipboard as a promise
// (a ClipboardItem, WebKit's way); without ClipboardItem, the text is passed on once it is here.
export async function share(text, nav = navigator, Item = globalThis.ClipboardItem) {
  if (typeof text !== "string") return shareLater(text, nav, Item);
  if (typeof nav.share === "function") {
    try {
      await nav.share({ text });
      return "shared";
    } catch (error) {
      if (error && error.name === "AbortError") return "cancelled";
      // not allowed here (no user gesture, an insecure page…): the clipboard instead
    }
  }
  try {
    await nav.clipboard.writeText(text);
    return "copied";
  } catch (error) {
    return "failed";
  }
}

async function shareLater(promise, nav, Item) {
  if (typeof Item === "function" && nav.clipboard && typeof nav.clipboard.write === "function") {
    try {
      const blob = promise.then((text) => new Blob([text], { type: "text/plain" }));
      blob.catch(() => {}); // a text that did not come is said below, not as an uncaught error
      await nav.clipboard.write([new Item({ "text/plain": blob })]);
      return "copied";
    } catch (error) {
      // refused, or the text did not come: as without ClipboardItem
    }
  }
  return share(await promise, nav, Item);
}
