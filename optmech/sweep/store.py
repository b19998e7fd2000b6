"""The SQLite result store of a sweep: one row per task, keyed by the task's parameter hash.

Each finished task is written in its own committed transaction by the single process that
drives the sweep, so a sweep killed at any instant (even by SIGKILL) leaves only complete rows;
``INSERT ... ON CONFLICT`` on the primary key makes a row unique, and a row with status ``ok``
is never overwritten.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["ResultStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key         TEXT PRIMARY KEY,
    sweep       TEXT NOT NULL,
    task        TEXT NOT NULL,
    params      TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('ok', 'error')),
    result      TEXT,
    error       TEXT,
    seconds     REAL NOT NULL,
    finished_at REAL NOT NULL
)
"""


class ResultStore:
    """An embedded SQLite store of sweep results.

    Parameters
    ----------
    path : str or Path
        Database file (created with its folder if missing).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     store = ResultStore(os.path.join(d, "s.sqlite"))
    ...     store.record("k1", sweep="demo", task="t", params={"a": 1}, result={"v": 2.0},
    ...                  seconds=0.1)
    ...     rows = store.rows()
    ...     store.close()
    >>> rows[0]["result"]
    {'v': 2.0}
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=30.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(_SCHEMA)
        self._conn.commit()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done_keys(self) -> set[str]:
        """Keys of tasks finished successfully (never recomputed)."""
        return {k for (k,) in self._conn.execute("SELECT key FROM results WHERE status = 'ok'")}

    def record(
        self,
        key: str,
        *,
        sweep: str,
        task: str,
        params: dict[str, Any],
        result: dict[str, Any] | None,
        seconds: float,
        error: str | None = None,
    ) -> None:
        """Write one task's outcome in its own transaction; an ``ok`` row is never replaced."""
        status = "ok" if error is None else "error"
        with self._conn:
            self._conn.execute(
                """
                INSERT INTO results (key, sweep, task, params, status, result, error, seconds,
                                     finished_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET
                    status = excluded.status, result = excluded.result, error = excluded.error,
                    seconds = excluded.seconds, finished_at = excluded.finished_at
                WHERE results.status != 'ok'
                """,
                (
                    key,
                    sweep,
                    task,
                    json.dumps(params, sort_keys=True),
                    status,
                    None if result is None else json.dumps(result, sort_keys=True),
                    error,
                    float(seconds),
                    time.time(),
                ),
            )

    def rows(self, *, sweep: str | None = None) -> list[dict[str, Any]]:
        """All rows (optionally of one sweep), parameters and results decoded."""
        query = (
            "SELECT key, sweep, task, params, status, result, error, seconds, finished_at "
            "FROM results"
        )
        args: tuple[Any, ...] = ()
        if sweep is not None:
            query += " WHERE sweep = ?"
            args = (sweep,)
        out = []
        for key, sw, task, params, status, result, error, seconds, finished in self._conn.execute(
            query + " ORDER BY finished_at", args
        ):
            out.append(
                {
                    "key": key,
                    "sweep": sw,
                    "task": task,
                    "params": json.loads(params),
                    "status": status,
                    "result": None if result is None else json.loads(result),
                    "error": error,
                    "seconds": seconds,
                    "finished_at": finished,
                }
            )
        return out

    def to_csv(
        self, path: str | Path, *, sweep: str | None = None, order: Sequence[str] | None = None
    ) -> int:
        """Write a tidy CSV (one column per parameter and result field, then ``status``,
        ``error`` — the failure's first line — and ``seconds``); returns the row count.

        ``order``: task keys in the order the rows should appear (a sweep's grid order); rows
        not listed follow in completion order. Default: completion order.
        """
        import csv

        rows = self.rows(sweep=sweep)
        if order is not None:
            rank = {key: i for i, key in enumerate(order)}
            rows.sort(key=lambda r: rank.get(r["key"], len(rank)))
        param_cols = sorted({k for r in rows for k in r["params"]})
        result_cols = sorted({k for r in rows for k in (r["result"] or {})})
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".partial")
        with tmp.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(["key", *param_cols, *result_cols, "status", "error", "seconds"])
            for r in rows:
                error = (r["error"] or "").splitlines()
                writer.writerow(
                    [r["key"][:12]]
                    + [
                        json.dumps(r["params"].get(c))
                        if isinstance(r["params"].get(c), list | dict)
                        else r["params"].get(c)
                        for c in param_cols
                    ]
                    + [(r["result"] or {}).get(c) for c in result_cols]
                    + [r["status"], error[0] if error else "", r["seconds"]]
                )
        tmp.replace(target)
        return len(rows)
