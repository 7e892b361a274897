"""The game server: FastAPI app, JSON API, player identity and the static client."""
