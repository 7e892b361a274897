"""Settings from environment variables with the ``MAGDAGDON_`` prefix; no variable is required."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from .logs import LogLevel

ENV_FILE_VARIABLE = "MAGDAGDON_ENV_FILE"
"""Names a file of ``MAGDAGDON_*=value`` lines read as settings (the environment wins)."""


DATA_DIR_VARIABLE = "MAGDAGDON_DATA_DIR"
"""Names the folder of the server's default database and the terminal game's files alike."""


def is_loopback_host(host: str) -> bool:
    """Whether a host name is the machine itself: localhost (and its subdomains) or a loopback
    address (``[::1]`` too)."""
    import ipaddress

    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_database_url() -> str:
    """An SQLite file in ``MAGDAGDON_DATA_DIR``, else the user's data directory (created when
    the server starts): the folder where the terminal game keeps its files too."""
    named = os.environ.get(DATA_DIR_VARIABLE)
    directory = (
        Path(named).expanduser()
        if named
        else Path(platformdirs.user_data_dir("magdagdon", appauthor=False))
    )
    return f"sqlite:///{directory / 'magdagdon.db'}"


class Settings(BaseSettings):
    """What a self-hoster can configure. Every field reads ``MAGDAGDON_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="MAGDAGDON_", extra="ignore")

    database_url: str = Field(
        default_factory=default_database_url,
        description="Any SQLAlchemy URL: sqlite:///path.db, postgresql+psycopg://user@host/db",
    )
    secure_cookies: Literal["auto", "always", "never"] = Field(
        default="auto",
        description="Secure cookie flag: 'auto' sets it when the request came over HTTPS "
        "(directly or as a trusted proxy says with X-Forwarded-Proto).",
    )
    allow_test_seeds: bool = Field(
        default=False,
        description="Test only: let POST /api/games fix the dice seed. Never enable in production.",
    )
    test_seeds_scored: bool = Field(
        default=False,
        description="Test only: games with a chosen seed enter the high scores too (so that "
        "tests can check tables of known scores). Off, they never do.",
    )
    rate_limits: bool = Field(default=True, description="Apply the rate limits below.")
    player_actions_per_second: float = Field(default=20, gt=0, description="Per player.")
    address_actions_per_second: float = Field(default=200, gt=0, description="Per address.")
    player_games_per_minute: float = Field(default=20, gt=0, description="New games per player.")
    address_games_per_minute: float = Field(default=120, gt=0, description="New games per address.")
    address_players_per_minute: float = Field(
        default=1,
        gt=0,
        description="New players (first visits) per address, in bursts of 20 minutes' worth "
        "(20 at once by default).",
    )
    address_accounts_per_hour: float = Field(
        default=6,
        gt=0,
        description="New accounts (a first passkey or transfer code) per address, in bursts of "
        "half an hour's worth (3 at once by default).",
    )
    address_sign_ins_per_hour: float = Field(
        default=20,
        gt=0,
        description="Sign-in attempts (transfer codes tried, passkeys presented) per address, "
        "in bursts of half an hour's worth (10 at once by default).",
    )
    network_sign_ins_per_hour: float = Field(
        default=60,
        gt=0,
        description="Transfer codes tried per network (an IPv4 /24, an IPv6 /48), in bursts of "
        "half an hour's worth (30 at once by default). Nothing is counted server-wide: wrong "
        "guesses from anywhere cannot shut code sign-in for everybody.",
    )
    address_links_per_hour: float = Field(
        default=120,
        gt=0,
        description="Challenge and league invite codes looked up (opened, played, joined) per "
        "address, in bursts of half an hour's worth (60 at once by default).",
    )
    network_links_per_hour: float = Field(
        default=600,
        gt=0,
        description="Challenge and league invite codes looked up per network (an IPv4 /24, an "
        "IPv6 /48), in bursts of half an hour's worth (300 at once by default).",
    )
    player_puzzles_per_hour: float = Field(
        default=300,
        gt=0,
        description="Puzzles a player may be given and attempt (each counts), in bursts of a "
        "quarter of an hour's worth.",
    )
    address_puzzles_per_hour: float = Field(
        default=600,
        gt=0,
        description="Puzzles given and attempted per address, in bursts of a quarter of an "
        "hour's worth: throwaway players learning answers share it.",
    )
    network_puzzles_per_hour: float = Field(
        default=2400,
        gt=0,
        description="Puzzles given and attempted per network (an IPv4 /24, an IPv6 /48), in "
        "bursts of a quarter of an hour's worth.",
    )
    account_codes_per_hour: float = Field(
        default=10,
        gt=0,
        description="Transfer codes an account may make (each valid 10 minutes), in bursts of "
        "half an hour's worth.",
    )
    daily_ranks: Literal["accounts", "everyone"] = Field(
        default="accounts",
        description="Whose daily games are ranked on the leaderboards: 'accounts' (players who "
        "saved their games with a passkey or a transfer code before starting the daily; "
        "anonymous players see where they would stand, apart) or 'everyone'.",
    )
    public_origin: str | None = Field(
        default=None,
        description="The address players open, e.g. https://dice.example.org (several, "
        "separated by commas: the one a request's Host names, else the first): passkeys are "
        "bound to its host name and transfer codes' links name it. Unset: passkeys and "
        "transfer codes work at localhost (and loopback addresses) only; any other Host "
        "header is refused (400 unknown_host), so a request cannot choose the name.",
    )

    @property
    def public_origins(self) -> list[str]:
        """``public_origin``'s origins (``scheme://host[:port]``), in the order given; empty
        when it is unset."""
        return [o.strip().rstrip("/") for o in (self.public_origin or "").split(",") if o.strip()]

    player_coach_per_minute: float = Field(
        default=30, gt=0, description="Hints and reviews per player (each costs CPU time)."
    )
    address_coach_per_minute: float = Field(
        default=120, gt=0, description="Hints and reviews per address."
    )
    player_challenges_per_hour: float = Field(
        default=30,
        gt=0,
        description="Challenges one player makes (each has the coach play its dice).",
    )
    address_challenges_per_hour: float = Field(
        default=60, gt=0, description="Challenges made from one address."
    )
    player_rooms_per_hour: float = Field(
        default=20, gt=0, description="Live rooms one player makes."
    )
    address_rooms_per_hour: float = Field(
        default=40, gt=0, description="Live rooms made from one address."
    )
    player_searches_per_hour: float = Field(
        default=30,
        gt=0,
        description="A player's finished games searched for their own puzzles (each costs the "
        "coach 1 to 3 CPU seconds).",
    )
    address_searches_per_hour: float = Field(
        default=60, gt=0, description="Finished games searched for puzzles, per address."
    )
    coach_processes: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Processes per server process that compute hints, reviews and puzzle "
        "grading (CPU work kept out of the server process, so it never slows the game's "
        "requests; the coach's background work has processes of its own).",
    )
    coach_queue: int = Field(
        default=8,
        ge=0,
        le=1000,
        description="Hints and reviews that may wait for a coach process; past that (with the "
        "ones running) a request answers 503 coach_busy with Retry-After at once.",
    )
    address_coach_at_once: int = Field(
        default=2,
        ge=1,
        le=100,
        description="Hints and reviews of one address in hand at once (running or waiting); "
        "one more answers 429 with Retry-After at once.",
    )
    background_processes: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Processes per server process for the coach's work nobody waits for (a "
        "daily's par, a challenge's coach score, a player's games searched for puzzles), apart "
        "from the hints' and reviews' so that these never wait behind it.",
    )
    background_queue: int = Field(
        default=16,
        ge=0,
        le=10_000,
        description="Background jobs that may wait for a background process; past that (with "
        "the ones running) new background work is put off until it is asked for again.",
    )
    background_at_once: int = Field(
        default=4,
        ge=1,
        le=1000,
        description="Background jobs one player, one address or one network may have in hand "
        "at once (running or waiting); past that their new work is put off likewise.",
    )
    database_timeout: float = Field(
        default=5.0,
        gt=0,
        le=600,
        description="Seconds a request waits for the database (to connect, for a pooled "
        "connection, for a lock or an answer) before it answers 503 database_unavailable.",
    )
    daily_par: bool = Field(
        default=True,
        description="Compute each daily's par in the background: the strong player plays the "
        "day's dice once (under a second of CPU per daily, on one worker).",
    )
    max_body_bytes: int = Field(default=16_384, ge=1024, description="Largest request body.")
    log_level: LogLevel = Field(default="info", description="Least level of a logged line.")
    database_wait: float = Field(
        default=60,
        ge=0,
        description="Seconds `serve` and `migrate` keep trying to reach the database at "
        "start before they give up.",
    )
    redis_url: str | None = Field(
        default=None,
        description="Several hosts: a Redis URL (redis://host:6379/0) through which every "
        "server process shares the rate limits' buckets and the reviews. Needs the `redis` "
        "extra (pip install 'magdagdon[redis]'). Unset, each process keeps its own.",
    )
    trusted_proxies: str = Field(
        default="",
        description="The proxies whose X-Forwarded-For and X-Forwarded-Proto `serve` believes: "
        "addresses or networks, comma-separated (127.0.0.1 for nginx on the same host; * for "
        "any, only where nothing but the proxy reaches the port). Empty (the default): none, "
        "so no client can choose the address its rate limits are counted under. The "
        "variable FORWARDED_ALLOW_IPS of earlier releases is read when this one is unset.",
    )
    threads: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="Worker threads per server process for requests' database work. Default: "
        "1 on SQLite (one writer at a time, and no threads contending for the GIL), "
        "4 on other databases (to overlap network round trips).",
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once (also from the file ``MAGDAGDON_ENV_FILE`` names)."""
    env_file = os.environ.get(ENV_FILE_VARIABLE) or None
    # _env_file is pydantic-settings' own argument (mypy sees it only through their plugin).
    return Settings(_env_file=env_file)  # type: ignore[call-arg]
