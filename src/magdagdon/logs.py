"""Log lines a person can use: a timestamp, the level, the request they belong to.

:func:`log_config` is the ``logging.config.dictConfig`` of ``magdagdon serve`` (Uvicorn
takes it as ``log_config``, in every worker process). Every line goes to standard error,
which systemd hands to the journal. A line logged while a request is served carries that
request's id (:data:`request_id`, set by :class:`~magdagdon.web.request_id.RequestIdMiddleware`
and sent back in the ``X-Request-ID`` header); other lines carry ``-``.

Access lines name the client by its address alone: behind a trusted proxy Uvicorn takes it
from ``X-Forwarded-For`` with no port (its own format would show ``203.0.113.7:0``). They
never show a header, so never the player's cookie; no line shows a seed or a password.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from datetime import datetime
from typing import Any, Final, Literal

LogLevel = Literal["critical", "error", "warning", "info", "debug"]
LOG_LEVELS: Final[tuple[LogLevel, ...]] = ("critical", "error", "warning", "info", "debug")

request_id: ContextVar[str] = ContextVar("magdagdon_request_id", default="-")
"""The id of the request being served in this context (``-`` outside a request)."""


class RequestIdFilter(logging.Filter):
    """Puts the current request's id on every record as ``request_id``."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add the id; keep the record."""
        record.request_id = request_id.get()
        return True


class OneAddress(logging.Filter):
    """Drops Uvicorn's "Uvicorn running on http://127.0.0.1:PORT": the server says the one
    address that works (``magdagdon serve``'s "is served at", a localhost one where passkeys
    work), not two."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Keep every record but that one."""
        return not str(record.msg).startswith("Uvicorn running on")


class Formatter(logging.Formatter):
    """Local time in ISO 8601 with milliseconds and the UTC offset."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """The record's time, e.g. ``2026-12-01T09:30:00.125+02:00``."""
        moment = datetime.fromtimestamp(record.created).astimezone()
        return moment.isoformat(timespec="milliseconds")


class AccessFormatter(Formatter):
    """Uvicorn's access records as ``ADDRESS "METHOD PATH HTTP/1.1" STATUS``."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        """Rewrite the message from Uvicorn's arguments (client, method, path, version,
        status), then format as usual."""
        args = record.args
        if isinstance(args, tuple) and len(args) == 5:
            client, method, path, version, status = args
            # "host:port" (an IPv6 host has colons of its own): the host alone.
            address = str(client).rpartition(":")[0] or "-"
            record.message = f'{address} "{method} {path} HTTP/{version}" {status}'
        return super().formatMessage(record)


FORMAT: Final = "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"
ACCESS_FORMAT: Final = "%(asctime)s %(levelname)s [%(request_id)s] access: %(message)s"


def log_config(level: LogLevel = "info") -> dict[str, Any]:
    """The logging configuration of the server at ``level`` (Uvicorn's ``log_config``)."""
    name = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {"()": f"{__name__}.RequestIdFilter"},
            "one_address": {"()": f"{__name__}.OneAddress"},
        },
        "formatters": {
            "default": {"()": f"{__name__}.Formatter", "fmt": FORMAT},
            "access": {"()": f"{__name__}.AccessFormatter", "fmt": ACCESS_FORMAT},
        },
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            },
            "access": {
                "class": "logging.StreamHandler",
                "formatter": "access",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            },
        },
        "root": {"handlers": ["default"], "level": "WARNING"},
        "loggers": {
            "magdagdon": {"handlers": ["default"], "level": name, "propagate": False},
            "uvicorn": {"handlers": ["default"], "level": name, "propagate": False},
            "uvicorn.error": {"level": name, "filters": ["one_address"]},
            "uvicorn.access": {"handlers": ["access"], "level": name, "propagate": False},
            # Alembic says "Context impl …" on every start; the migrations are logged by
            # magdagdon.startup, one line each.
            "alembic": {"handlers": ["default"], "level": "WARNING", "propagate": False},
        },
    }
