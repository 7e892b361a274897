// The HTTP API: JSON in and out, errors as ApiError, retries while the connection is lost.
// Actions carry the game version they were based on, so a retried action can never apply
// twice: the server answers 409 with the current game instead.

export class ApiError extends Error {
  constructor(status, code, message, body) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

const RETRY_DELAYS = [500, 1000, 2000, 4000, 8000];

export class Api {
  constructor({ onConnection = () => {}, onSessionEnded = () => {} } = {}) {
    this.onConnection = onConnection; // called with true (back) or false (lost, retrying)
    // called when an answer says the session the cookie named has ended (signed out from
    // another device, revoked, the account deleted, expired): X-Magdagdon-Session: ended
    this.onSessionEnded = onSessionEnded;
    this.news = 0; // things the player's challenges hold that they have not seen (any device)
  }

  async request(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch(path, {
          method,
          headers: body === undefined ? {} : { "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
          credentials: "same-origin",
        });
      } catch (networkError) {
        response = null;
      }
      if (response && response.status !== 503 && response.status !== 502 && response.status !== 504) {
        if (attempt > 0) this.onConnection(true);
        if ((response.headers.get("x-magdagdon-session") || "").trim().toLowerCase() === "ended") this.onSessionEnded();
        // the news of the player's challenges, which the page's first request is told
        if (response.headers.has("x-magdagdon-news")) this.news = Number(response.headers.get("x-magdagdon-news")) || 0;
        const data = response.status === 204 ? null : await response.json().catch(() => ({}));
        if (response.ok) return data;
        const error = data.error || {};
        throw new ApiError(response.status, error.code || "http_error", error.message || response.statusText, data);
      }
      this.onConnection(false);
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS[Math.min(attempt, RETRY_DELAYS.length - 1)]));
    }
  }

  createGame(difficulty, { abandon = false, seed = null } = {}) {
    const body = { difficulty, abandon };
    if (seed !== null) body.seed = seed;
    return this.request("POST", "/api/games", body);
  }

  // The unfinished regular game if there is one (any difficulty), else a new one: one request.
  resumeOrCreate(difficulty, { seed = null } = {}) {
    const body = { difficulty, resume: true };
    if (seed !== null) body.seed = seed;
    return this.request("POST", "/api/games", body);
  }

  currentGame() {
    return this.request("GET", "/api/games/current");
  }

  game(id) {
    return this.request("GET", `/api/games/${encodeURIComponent(id)}`);
  }

  async act(game, action) {
    try {
      return await this.request("POST", `/api/games/${game.id}/actions`, { version: game.version, action });
    } catch (error) {
      // Someone (another tab, a retried request) moved the game on: show where it stands.
      if (error.code === "stale_version" && error.body && error.body.game) return error.body.game;
      throw error;
    }
  }

  hint(game) {
    return this.request("GET", `/api/games/${encodeURIComponent(game.id)}/hint`);
  }

  review(id) {
    return this.request("GET", `/api/games/${encodeURIComponent(id)}/review`);
  }

  // A finished game turn by turn for the replay viewer (anyone with its link may watch it).
  frames(id) {
    return this.request("GET", `/api/games/${encodeURIComponent(id)}/frames`);
  }

  highscores(difficulty, scope) {
    return this.request("GET", `/api/highscores/${difficulty}?scope=${scope}`);
  }

  me() {
    return this.request("GET", "/api/players/me");
  }

  setName(name) {
    return this.request("PUT", "/api/players/me", { name });
  }

  // The daily challenge: today's three games and their status; play (or continue) one.
  daily() {
    return this.request("GET", "/api/daily");
  }

  playDaily(difficulty) {
    return this.request("POST", `/api/daily/${encodeURIComponent(difficulty)}`);
  }

  leaderboard(date, difficulty) {
    return this.request("GET", `/api/daily/${encodeURIComponent(date)}/${encodeURIComponent(difficulty)}/leaderboard`);
  }

  stats() {
    return this.request("GET", "/api/players/me/stats");
  }

  // A rules screen's text (a file of the page, not the API): a TypeError when there is no
  // network (and the service worker has no copy), an ApiError when the server refuses it.
  async rules(language) {
    const response = await fetch(new URL(`../rules/${language}.txt`, import.meta.url));
    if (!response.ok) throw new ApiError(response.status, "http_error", response.statusText, {});
    return response.text();
  }
}
