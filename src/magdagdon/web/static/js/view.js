// The renderer: render(state) draws the server's game view and the UI selection. It changes
// no state and holds no rules: what is legal, enabled and scored all comes from the view.

import { button, el, replayAnimation, svg } from "./dom.js";

const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 28], [72, 28], [28, 50], [72, 50], [28, 72], [72, 72]],
};
export function dieFace(value) {
  return svg("svg", { viewBox: "0 0 100 100", class: "die-face", "aria-hidden": "true" },
    svg("rect", { x: 4, y: 4, width: 92, height: 92, rx: 18 }),
    ...(PIPS[value] || []).map(([cx, cy]) => svg("circle", { cx, cy, r: 9 })));
}

export function ruinIcon() {
  return svg("svg", { viewBox: "0 0 24 24", width: "55%", "aria-hidden": "true" },
    svg("path", {
      d: "M4 20h16M6 20V9l3-3 2 3-2 4 3 3-1 4M14 20l1-5 3-2v7", fill: "none", stroke: "currentColor",
      "stroke-width": 1.8, "stroke-linejoin": "round",
    }));
}

// A square's row and column as people count them (1–4), and the words for where it is.
export const rowCol = (square) => ({ row: Math.floor(square / 4) + 1, col: (square % 4) + 1 });
export const squareAt = (t, square) => t("square_at", rowCol(square));
// The words with a capital first letter (where they begin a label: "Row 2, column 3, empty").
export const capitalized = (text) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

export const DIFFICULTY_NAMES = { peaceful: "PEACEFUL", survival: "SURVIVAL", nightmare: "NIGHTMARE" };

export function bonusText(t, line) {
  return line.bonus ? `${t(`bonus_${line.bonus}`)} +${line.bonus_points}` : "";
}

// A line's sum into its node beside the board: the sum, its bonus once complete, or (faint) the
// best bonus it can still make (`prospect`, from the game view; null for none). A bonus that
// arrives glows, unless `glow` is false (a replay stepping back).
export function lineSum(node, line, prospect, t, label, glow = true) {
  const badge = bonusText(t, line);
  const maybe = !badge && prospect ? t("prospect", { bonus: t(`bonus_${prospect.bonus}`), points: prospect.points }) : "";
  const key = `${line.sum}|${badge}|${maybe}|${t.language}`; // the label is in the language too
  if (node.dataset.key === key) return;
  const completedNow = badge && node.dataset.key !== undefined && !node.dataset.key.split("|")[1];
  node.dataset.key = key;
  node.replaceChildren(el("span", { class: "num", text: String(line.sum) }));
  if (badge) {
    node.append(el("span", { class: "badge" },
      el("span", { text: t(`bonus_${line.bonus}`) }), el("span", { text: `+${line.bonus_points}` })));
  } else if (prospect) {
    node.append(el("span", { class: "badge prospect", "aria-hidden": "true" },
      el("span", { text: t(`bonus_${prospect.bonus}`) }), el("span", { text: `+${prospect.points}?` })));
  }
  node.setAttribute("aria-label", `${label}: ${line.sum}${badge ? `, ${badge}` : ""}${maybe ? `, ${maybe}` : ""}`);
  node.setAttribute("role", "note");
  if (completedNow && glow) replayAnimation(node, "line-done");
}

// A device's label in the page's language: the server names it "Chrome on Linux" (its browser
// and system as the User-Agent says), whose joining word is English.
export function deviceName(t, label) {
  const parts = /^(.+) on (.+)$/.exec(label || "");
  return parts ? t("account_device_on", { browser: parts[1], system: parts[2] }) : label;
}

// A plan (actions of the API) in words; the values staged come from the board the plan leaves.
export function describePlan(t, hint, game) {
  const board = (hint.board || "").replaceAll("/", "");
  const where = (sq) => squareAt(t, sq);
  const parts = [];
  const staged = [];
  for (const a of hint.plan) {
    if (a.type === "stage") {
      staged.push(`${board[a.cell] || (game && game.dice[a.die] ? game.dice[a.die].value : "?")} → ${where(a.cell)}`);
      continue;
    }
    if (staged.length) parts.push(t("hint_place", { what: staged.splice(0).join("; ") }));
    if (a.type === "roll") parts.push(t("roll"));
    else if (a.type === "confirm") parts.push(t("confirm"));
    else if (a.type === "unstage_all") parts.push(t("take_back_all"));
    else if (a.type === "adjust") parts.push(t(a.delta > 0 ? "hint_increase" : "hint_decrease", { n: a.die + 1 }));
    else if (a.type === "reroll") parts.push(t("reroll_dice", { dice: a.dice.map((d) => d + 1).join(", ") }));
    else if (a.type === "accept_magdagdon") parts.push(t("hint_ruin", { where: where(a.cell) }));
  }
  if (staged.length) parts.push(t("hint_place", { what: staged.join("; ") }));
  return parts.join(" → ");
}

export class View {
  constructor(root) {
    this.root = root;
    this.$ = (id) => root.querySelector(`#${id}`);
    this.squares = [];
    this.rowSums = [];
    this.colSums = [];
    this.dice = [];
    const board = this.$("board");
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        const sq = el("button", { type: "button", class: "square", "data-intent": "square", "data-square": 4 * r + c });
        this.squares.push(sq);
        board.append(sq);
      }
      const sum = el("div", { class: "sum row" });
      this.rowSums.push(sum);
      board.append(sum);
    }
    for (let c = 0; c < 4; c++) {
      const sum = el("div", { class: "sum col" });
      this.colSums.push(sum);
      board.append(sum);
    }
    board.append(el("div"));
    for (let i = 0; i < 4; i++) {
      const die = el("button", { type: "button", class: "die", "data-intent": "die", "data-die": i });
      this.dice.push(die);
    }
  }

  // state: {game, ui: {selected, reroll, chosen, ruinMode, focus, busy, animate}, t}
  render(state) {
    const { game, ui, t } = state;
    this.root.setAttribute("aria-busy", ui.busy ? "true" : "false");
    if (!game) return;
    const over = game.phase === "over";
    this.root.dataset.phase = game.phase; // (for the layout: a MAGDAGDON's controls need room)
    this.renderChip(game, t);
    this.$("status-score").textContent = t.number(over ? game.final_score.total : game.score.total);
    this.$("status-turn").textContent = over ? game.turns : game.turns + 1;
    this.renderPowersLeft(game, t);
    const hintButton = this.$("hint-button");
    hintButton.hidden = over;
    hintButton.disabled = ui.busy || ui.ruinMode;
    hintButton.setAttribute("aria-pressed", String(Boolean(ui.hint)));
    this.renderBoard(state);
    this.renderTurn(state);
  }

  // The difficulty, which opens SETTINGS; on a daily "DAILY #1" above it, opening the daily's list.
  renderChip(game, t) {
    const chip = this.$("difficulty-chip");
    const name = DIFFICULTY_NAMES[game.difficulty];
    const key = `${game.id}|${t.language}`;
    if (chip.dataset.key === key) return;
    chip.dataset.key = key;
    chip.classList.toggle("daily-chip", Boolean(game.daily || game.past_daily || game.room));
    chip.classList.toggle("past-chip", Boolean(game.past_daily));
    if (game.room) { // a live room's game: the chip opens the room's standings
      chip.replaceChildren(el("span", { class: "chip-daily", text: t("room_chip") }), " ", el("span", { text: name }));
      chip.dataset.screen = "room";
      chip.setAttribute("aria-label", t("room_is", { name }));
    } else if (game.past_daily) { // a past day's dice: the chip opens the past dailies
      // (the space between the two lines is not drawn in the flex column: it keeps the chip's
      // text "Past #2 PEACEFUL", as its accessible name begins, not "Past #2PEACEFUL")
      chip.replaceChildren(el("span", { class: "chip-daily", text: t("past_daily_chip", { number: game.past_daily.number }) }), " ", el("span", { text: name }));
      chip.dataset.screen = "pastdaily";
      chip.setAttribute("aria-label", t("past_daily_is", { number: game.past_daily.number, name }));
    } else if (game.daily) {
      chip.replaceChildren(el("span", { class: "chip-daily", text: t("daily_chip", { number: game.daily.number }) }), " ", el("span", { text: name }));
      chip.dataset.screen = "daily";
      chip.setAttribute("aria-label", t("daily_is", { number: game.daily.number, name }));
    } else {
      chip.textContent = name;
      chip.dataset.screen = "settings";
      chip.setAttribute("aria-label", t("difficulty_is", { name }));
    }
  }

  renderPowersLeft(game, t) {
    const node = this.$("status-powers");
    if (game.powers_total === 0 || game.phase === "over") {
      node.textContent = ""; // NIGHTMARE has none; once over, the next power means nothing
      node.removeAttribute("aria-label");
      return;
    }
    // in words (stars meant nothing to a new player): "2 Majda Powers left · next −20"
    node.textContent = game.next_power_cost === null
      ? t("powers_none_left")
      : t("powers_status", { n: game.powers_left, cost: game.next_power_cost });
    node.setAttribute("aria-label", game.next_power_cost === null
      ? t("powers_none_left")
      : t("powers_left", { n: game.powers_left, cost: game.next_power_cost }));
  }

  renderBoard({ game, ui, t }) {
    const staged = game.staged_board.replaceAll("/", "");
    const onSquare = new Map(game.dice.filter((d) => d.cell !== null).map((d) => [d.cell, d]));
    const ghost = ui.hint && ui.hint.board ? ui.hint.board.replaceAll("/", "") : null;
    let targets = new Set();
    if (ui.ruinMode) targets = new Set(game.ruin_choices);
    else if (ui.selected !== null && game.dice[ui.selected]) targets = new Set(game.dice[ui.selected].legal_cells);
    this.squares.forEach((sq, i) => {
      const ch = staged[i];
      const isStaged = onSquare.has(i);
      const kind = ch === "X" ? "ruin" : ch === "." ? "empty" : isStaged ? "staged" : "number";
      const target = targets.has(i);
      const hinted = kind === "empty" && ghost && ghost[i] !== "." ? ghost[i] : "";
      sq.className = `square ${kind === "empty" ? "" : kind}${target ? (ui.ruinMode ? " ruin-choice" : " legal") : ""}${hinted ? " hinted" : ""}`;
      const key = `${ch}${isStaged}${hinted}`;
      if (sq.dataset.key !== key) {
        sq.dataset.key = key;
        sq.replaceChildren();
        if (kind === "ruin" || hinted === "X") sq.append(ruinIcon());
        else if (kind !== "empty") sq.append(dieFace(Number(ch)));
        else if (hinted) sq.append(dieFace(Number(hinted)));
      }
      const where = capitalized(squareAt(t, i));
      let what = t("square_empty");
      if (kind === "ruin") what = t("square_ruin");
      else if (kind === "number") what = t("square_number", { n: ch });
      else if (kind === "staged") what = t("square_staged", { n: ch, die: onSquare.get(i).index + 1 });
      // (which squares take the selected die is said, not only coloured: "can take the 4")
      const hint = target ? (ui.ruinMode ? t("square_can_ruin") : t("square_legal", { n: game.dice[ui.selected].value })) : "";
      const advice = hinted ? t(hinted === "X" ? "square_hint_ruin" : "square_hint", { n: hinted }) : "";
      sq.setAttribute("aria-label", [where, what, hint, advice].filter(Boolean).join(", "));
      const actionable = target || (kind === "staged" && game.phase !== "over");
      sq.setAttribute("aria-disabled", actionable && !ui.busy ? "false" : "true");
      sq.tabIndex = i === ui.focus ? 0 : -1;
    });
    const prospects = game.prospects || [];
    game.score.rows.forEach((line, r) => lineSum(this.rowSums[r], line, prospects[r], t, t("row_sum", { n: r + 1 })));
    game.score.columns.forEach((line, c) => lineSum(this.colSums[c], line, prospects[4 + c], t, t("column_sum", { n: c + 1 })));
  }

  renderTurn({ game, ui, t }) {
    const phase = game.phase;
    const message = this.$("message");
    const banner = this.$("banner");
    message.className = "message";
    banner.hidden = phase !== "magdagdon";
    if (phase === "magdagdon") {
      this.$("banner-text").textContent = ui.ruinMode ? t("choose_ruin") : t("magdagdon_why", { n: game.required });
      // REROLL mode says what to do; else whether a power can rescue the roll (the buttons of
      // the rescues are below the tray, renderPowers)
      const rescuable = game.rescues.length > 0 && game.next_power_cost !== null && !ui.ruinMode;
      message.textContent = ui.reroll ? t("choose_reroll") : rescuable ? t("rescue_lead", { cost: game.next_power_cost }) : "";
    } else if (phase === "roll") message.textContent = t("press_roll");
    else if (phase === "over") message.textContent = t("game_over");
    else if (game.dead_end) {
      message.textContent = t("dead_end");
      message.classList.add("dead-end");
    } else if (ui.whyNot) {
      message.textContent = ui.whyNot;
      message.classList.add("why-not");
    } else if (ui.reroll) message.textContent = t("choose_reroll");
    else if (game.can_confirm) message.textContent = t("can_confirm", { n: game.staged.length });
    else message.textContent = t("place_at_least", { n: game.required });
    this.renderHint(game, ui, t);
    this.renderTray(game, ui, t);
    this.renderPowers(game, ui, t);
    this.renderActions(game, ui, t);
  }

  renderHint(game, ui, t) {
    const panel = this.$("hint-panel");
    const hint = ui.hint;
    panel.hidden = !hint;
    if (!hint) {
      panel.classList.remove("unfolded");
      return panel.replaceChildren();
    }
    const cost = (a) => (a.cost < 0.05 ? t("hint_as_good") : t("hint_cost", { cost: t.decimal(a.cost) }));
    const alternatives = hint.alternatives.map((a) =>
      el("li", {}, el("span", { text: describePlan(t, a, game) }), el("span", { class: "num cost", text: ` (${cost(a)})` })));
    // one line of title, the other plans' disclosure and HIDE HINT, then the plan and its
    // expected score: on a short phone the board keeps its room. The other plans unfolded
    // scroll inside the panel (the page keeps the screen's height); the line and plan stay.
    const open = Boolean(ui.hintMore && alternatives.length);
    const more = alternatives.length
      ? el("button", { type: "button", class: "hint-more", "data-intent": "hint-more", "aria-expanded": String(open), "aria-controls": "hint-alternatives", text: t("hint_alternatives") })
      : null;
    panel.classList.toggle("unfolded", open);
    panel.replaceChildren(
      el("div", { class: "hint-head" },
        el("strong", { class: "hint-title", text: t("hint") }),
        more,
        button("hint-close", t("hide_hint"), { className: "button small" })),
      el("p", { class: "hint-plan" },
        el("span", { text: describePlan(t, hint, game) }),
        el("span", { class: "hint-expected", text: ` · ${t("hint_expected", { score: Math.round(hint.expected_score) })}` })),
      // (a box that may scroll: reachable by the keyboard, named by its disclosure)
      ...(open ? [el("ol", { class: "hint-alternatives", id: "hint-alternatives", tabIndex: 0, "aria-label": t("hint_alternatives") }, ...alternatives)] : []),
    );
  }

  renderTray(game, ui, t) {
    const tray = this.$("tray");
    const acting = game.phase === "place" || game.phase === "magdagdon";
    const shown = game.dice.length ? this.dice.slice(0, game.dice.length) : [];
    if (tray.children.length !== shown.length) tray.replaceChildren(...shown);
    game.dice.forEach((d, i) => {
      const node = this.dice[i];
      if (node.dataset.value !== String(d.value) || ui.animate.includes(i)) {
        node.dataset.value = String(d.value);
        node.replaceChildren(dieFace(d.value));
        if (ui.animate.includes(i)) replayAnimation(node, "rolling");
      }
      const inTray = d.cell === null;
      node.classList.toggle("selected", ui.selected === i && !ui.reroll);
      node.classList.toggle("chosen", ui.reroll && ui.chosen.has(i));
      node.classList.toggle("on-board", !inTray);
      const where = inTray ? t("die_in_tray") : t("die_on_square", { n: d.cell + 1 });
      // a die of the tray that no square takes says so (it is not only never lit up)
      const nowhere = inTray && acting && !d.legal_cells.length ? `, ${t("die_fits_nowhere")}` : "";
      node.setAttribute("aria-label", t("die_label", { n: i + 1, value: d.value, where }) + nowhere);
      node.setAttribute("aria-pressed", String(ui.reroll ? ui.chosen.has(i) : ui.selected === i));
      node.disabled = ui.busy || !acting || (ui.reroll && !d.can_reroll);
    });
  }

  // A Majda Power's button: its words, named by them and then `said` (words heard, not seen:
  // −1 is "−1, decrease"), so that voice control ("click minus one") finds it. Its cost is
  // drawn after the words as "−10" (CSS, from data-cost: not part of the name) and said as the
  // button's description (#power-cost).
  powerButton(game, t, intent, label, attrs, said = "") {
    const cost = game.next_power_cost;
    const node = button(intent, label, { className: "button power", ...attrs });
    if (said) node.setAttribute("aria-label", `${label}, ${said}`);
    if (cost !== null) {
      node.dataset.cost = `−${cost}`;
      node.setAttribute("aria-describedby", "power-cost");
    }
    return node;
  }

  // REROLL while a power is left and a die can be rerolled.
  rerollButton(game, ui, t) {
    return this.powerButton(game, t, "reroll-start", t("reroll"), {
      disabled: ui.busy || !game.can_use_power || !game.dice.some((d) => d.can_reroll),
    });
  }

  // The Majda Powers while some are left (spent ones are not drawn as dead buttons: the status
  // line says none is left). In MAGDAGDON its certain rescues, each a button (REROLL stands
  // beside ACCEPT MAGDAGDON), and −1 and +1 once a die of the tray is tapped (a rescue in
  // several steps), in place of the rescues.
  renderPowers(game, ui, t) {
    const row = this.$("powers");
    this.$("power-cost").textContent = game.next_power_cost === null ? "" : t("power_cost", { cost: game.next_power_cost });
    const magdagdon = game.phase === "magdagdon" && !ui.reroll;
    const adjusting = magdagdon && ui.selected !== null;
    row.hidden = game.powers_left === 0 || game.phase === "over" || game.phase === "roll"
      || (magdagdon && (ui.ruinMode || game.next_power_cost === null || (!game.rescues.length && !adjusting)));
    if (row.hidden) return row.replaceChildren();
    const die = ui.selected !== null ? game.dice[ui.selected] : null;
    if (ui.reroll) {
      const n = ui.chosen.size;
      const go = this.powerButton(game, t, "reroll-go", t("reroll_n", { n }), { disabled: ui.busy || n === 0 });
      go.classList.add("primary");
      row.replaceChildren(button("reroll-cancel", t("cancel"), { disabled: ui.busy }), go);
      return;
    }
    // Each ±1 that lifts a MAGDAGDON (the view's rescues) is a button of its own: the die's
    // face and the change, asking for that power on that die. (The message line above the
    // tray says what they are.)
    // Dice of the same value are alike: one button for each value and change ("3 −1" once,
    // not three times), asking for it on the first such die.
    if (magdagdon && !adjusting) {
      const seen = new Set();
      const rescues = game.rescues.filter((r) => {
        const key = `${game.dice[r.die].value}${r.delta}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      row.replaceChildren(...rescues.map((r) => {
        const what = t(r.delta > 0 ? "hint_increase" : "hint_decrease", { n: r.die + 1 });
        const node = button("rescue", "", {
          className: "button power rescue", "data-rescue-die": r.die, "data-delta": r.delta, disabled: ui.busy,
          "aria-label": what, "aria-describedby": "power-cost",
        });
        node.append(dieFace(game.dice[r.die].value), el("span", { text: r.delta > 0 ? "+1" : "−1" }));
        return node;
      }));
      return;
    }
    row.replaceChildren(
      this.powerButton(game, t, "adjust", "−1", { "data-delta": "-1", disabled: ui.busy || !die || !die.can_decrease }, t("power_decrease")),
      this.powerButton(game, t, "adjust", "+1", { "data-delta": "1", disabled: ui.busy || !die || !die.can_increase }, t("power_increase")),
      ...(magdagdon ? [] : [this.rerollButton(game, ui, t)]));
  }

  renderActions(game, ui, t) {
    const row = this.$("actions");
    const busy = ui.busy;
    if (game.phase === "roll" && game.room) { // a live room rolls for everyone at once
      row.replaceChildren(el("p", { class: "room-wait", role: "status", text: t("room_waiting_turn") }));
    } else if (game.phase === "roll") {
      row.replaceChildren(button("roll", t("roll"), { className: "button primary", disabled: busy || !game.can_roll }));
    } else if (game.phase === "place") {
      row.replaceChildren(
        button("unstage-all", t("take_back_all"), { disabled: busy || !game.can_unstage_all }),
        button("confirm", t("confirm"), { className: "button primary", disabled: busy || !game.can_confirm }),
      );
    } else if (game.phase === "magdagdon") {
      if (ui.ruinMode) row.replaceChildren(button("ruin-cancel", t("cancel"), { disabled: busy }));
      else if (ui.reroll) row.replaceChildren();
      else {
        const canReroll = game.powers_left > 0 && game.next_power_cost !== null;
        row.replaceChildren(...(canReroll ? [this.rerollButton(game, ui, t)] : []),
          button("accept", `${t("accept_magdagdon")} (−${game.ruin_penalty})`, { className: "button danger", disabled: busy }));
      }
    } else {
      // a finished daily: the way back to the player's own game comes first
      row.replaceChildren(
        button("open", t("result"), { "data-screen": game.room ? "room" : "over" }),
        game.daily || game.past_daily || game.room
          ? button("back-to-game", t("back_to_game"), { className: "button primary wide", disabled: busy })
          : button("new-game", t("new_game"), { className: "button primary", disabled: busy }),
      );
    }
  }

  // Says the text to screen readers; the live region is emptied first so that the same words
  // are said again.
  announce(text) {
    const live = this.$("live");
    live.textContent = "";
    setTimeout(() => { live.textContent = text; }, 30);
  }

  focusSquare(square) {
    this.squares[square].focus();
  }

  // The page's animations on or off (CSS: .no-motion on <html>, so the dialogs follow too).
  setMotion(on) {
    this.root.ownerDocument.documentElement.classList.toggle("no-motion", !on);
  }

  describePlan(t, hint, game) {
    return describePlan(t, hint, game);
  }

  shake() {
    replayAnimation(this.$("board"), "shake");
  }
}
