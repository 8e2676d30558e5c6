"""SQLite persistence for Monte Carlo studies: one row per finished replication."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

__all__ = ["StudyStore", "StoreMismatchError"]


class StoreMismatchError(ValueError):
    """Raised when a store holds a different study, grid or seed than the one asked for."""


def _table_name(name: str) -> str:
    safe = re.sub(r"[^0-9a-zA-Z_]", "_", name)
    return f"runs_{safe}"


class StudyStore:
    """Replications of one study in one SQLite file.

    The file may hold several studies (one table each). A study is identified
    by ``name``; its fingerprint (function, settings and seed) is recorded the
    first time and must match on every later open.
    """

    def __init__(self, path, name: str, fingerprint: dict):
        self.path = Path(path)
        self.name = name
        self.table = _table_name(name)
        self._conn = sqlite3.connect(str(self.path), timeout=60)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: each commit survives a crash of this process (the case a
        # resumable study needs) without an fsync per replication.
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS statlearn_studies "
            "(name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)"
        )
        fp = json.dumps(fingerprint, sort_keys=True)
        row = self._conn.execute(
            "SELECT fingerprint FROM statlearn_studies WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            self._conn.execute(
                "INSERT INTO statlearn_studies (name, fingerprint) VALUES (?, ?)", (name, fp)
            )
        elif row[0] != fp:
            old = json.loads(row[0])
            keys = set(old) | set(fingerprint)
            diff = sorted(k for k in keys if old.get(k) != fingerprint.get(k))
            self._conn.close()
            raise StoreMismatchError(
                f"store {str(self.path)!r} already holds study {name!r} with a different "
                f"{', '.join(diff)}; refusing to mix results. Use another store file or name."
            )
        self._conn.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} "
            "(setting INTEGER NOT NULL, rep INTEGER NOT NULL, payload TEXT NOT NULL, "
            "PRIMARY KEY (setting, rep))"
        )
        self._conn.commit()

    @staticmethod
    def recorded_fingerprint(path, name: str) -> dict | None:
        """The fingerprint stored for ``name`` in ``path``, or ``None``."""
        path = Path(path)
        if not path.exists():
            return None
        conn = sqlite3.connect(str(path))
        try:
            row = conn.execute(
                "SELECT fingerprint FROM statlearn_studies WHERE name = ?", (name,)
            ).fetchone()
        except sqlite3.OperationalError:
            return None
        finally:
            conn.close()
        return None if row is None else json.loads(row[0])

    def done(self) -> dict[tuple[int, int], dict]:
        """All stored replications as ``{(setting, rep): outputs}``."""
        rows = self._conn.execute(f"SELECT setting, rep, payload FROM {self.table}").fetchall()
        return {(s, r): json.loads(p) for s, r, p in rows}

    def put(self, setting: int, rep: int, outputs: dict) -> None:
        """Write one finished replication and commit at once."""
        self._conn.execute(
            f"INSERT OR REPLACE INTO {self.table} (setting, rep, payload) VALUES (?, ?, ?)",
            (setting, rep, json.dumps(outputs)),
        )
        self._conn.commit()

    def close(self) -> None:
        self._conn.close()
