"""The browser client's files of the last releases, kept so that an open page never breaks.

Every file of a release is served under ``/r/<release>/``, and a page of one release loads
only files of that release (web/assets.py). After an upgrade, a page opened before it still
imports modules it had not needed yet (a screen opened for the first time): the server keeps
its last :data:`KEPT` releases' files in ``client_files`` and answers such a request from
there, whichever worker or host it reaches. A server that starts stores its own release's
files once (the first worker to do so wins; the others find it there) and forgets the
releases older than the last :data:`KEPT`.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import IntegrityError

from .db import Database
from .models import client_files, utcnow

KEPT = 3
"""Releases whose files are kept (this one and the two before)."""


class Releases:
    """The store's operations on the client's files (part of :class:`~magdagdon.store.Store`)."""

    db: Database

    def keep_release(self, release: str, files: Mapping[str, tuple[str, bytes]]) -> None:
        """Store a release's files (``path → (media type, body)``) unless they are stored;
        then forget all but the last :data:`KEPT` releases."""
        with self.db.transaction() as c:
            known = c.scalar(
                select(client_files.c.path).where(client_files.c.release == release).limit(1)
            )
        if known is None:
            now = utcnow()
            rows = [
                {"release": release, "path": p, "media_type": m, "body": b, "created_at": now}
                for p, (m, b) in files.items()
            ]
            try:
                with self.db.transaction(write=True) as c:
                    c.execute(insert(client_files), rows)
            except IntegrityError:
                pass  # another worker stored it at the same moment
        with self.db.transaction(write=True) as c:
            newest = (
                select(client_files.c.release)
                .group_by(client_files.c.release)
                .order_by(func.max(client_files.c.created_at).desc(), client_files.c.release)
                .limit(KEPT)
            )
            kept = list(c.execute(newest).scalars().all())
            if release not in kept:
                kept.append(release)
            c.execute(delete(client_files).where(client_files.c.release.not_in(kept)))

    def release_file(self, release: str, path: str) -> tuple[str, bytes] | None:
        """A kept release's file: its media type and body (None: not kept)."""
        with self.db.transaction() as c:
            row = c.execute(
                select(client_files.c.media_type, client_files.c.body).where(
                    client_files.c.release == release, client_files.c.path == path
                )
            ).first()
        return (row.media_type, bytes(row.body)) if row is not None else None
