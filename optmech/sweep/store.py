"""The SQLite result store of a sweep: one row per task, keyed by the task's parameter hash.

Each finished task is written in its own committed transaction by the process that drives the
sweep, so a sweep killed at any instant (even by SIGKILL) leaves only complete rows;
``INSERT ... ON CONFLICT`` on the primary key makes a row unique, and a row with status ``ok``
is never overwritten.

Several sweeps may share one store (two terminals, two machines on a shared disk): before
computing a task, a sweep *claims* it — one row of the ``claims`` table, written in an
``IMMEDIATE`` transaction (SQLite's write lock, so two claims of one task cannot both win),
naming the owner (host, process id and a token of the run) and a heartbeat the owner
refreshes while it runs. A task claimed by a live owner is left to it; the claim of an owner
that died (a process of this host that no longer exists, or a heartbeat older than
`STALE_AFTER`) is taken over. Recording a result releases its claim in the same
transaction.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from optmech.sweep.workers import process_exists

__all__ = ["HEARTBEAT", "STALE_AFTER", "ClaimOwner", "ResultStore"]

#: Seconds between two refreshes of a running sweep's claims.
HEARTBEAT = 10.0
#: Seconds after which a claim whose owner cannot be checked (another host) and whose heartbeat
#: stopped is taken to be abandoned.
STALE_AFTER = 120.0

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
);
CREATE TABLE IF NOT EXISTS claims (
    key        TEXT PRIMARY KEY,
    owner      TEXT NOT NULL,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    claimed_at REAL NOT NULL,
    heartbeat  REAL NOT NULL
);
"""
_RESULT_COLUMNS = ("key", "sweep", "task", "params", "status", "result", "error", "seconds")
#: The columns of the tidy table that are not parameters or results.
_FIXED_COLUMNS = ("key", "status", "error", "seconds")

#: What `ResultStore.claim` found: the task is now ours, already finished,
#: or being computed by a live owner.
ClaimState = Literal["claimed", "done", "busy"]


@dataclass(frozen=True)
class ClaimOwner:
    """Who claims tasks: this host, this process, and a token unique to one run."""

    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def name(self) -> str:
        """``host:pid:token``, the ``owner`` of its claim rows."""
        return f"{self.host}:{self.pid}:{self.token}"


def _owner_alive(host: str, pid: int, heartbeat: float, now: float) -> bool:
    """Whether a claim's owner may still be computing: on this host, its process exists (and
    its heartbeat is not stale, against a reused process id); elsewhere, its heartbeat is
    recent."""
    fresh = now - heartbeat <= STALE_AFTER
    if host == socket.gethostname():
        return fresh and process_exists(pid)
    return fresh


class ResultStore:
    """An embedded SQLite store of sweep results.

    Parameters
    ----------
    path : str or Path
        Database file (created with its folder if missing). A file that is not a sweep store,
        or a place where none can be written, is a `ValueError` naming ``store``.

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
        if not str(path).strip() or self.path.is_dir():
            raise ValueError(f"`store` must be a file path; got {str(path)!r}.")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(
                f"`store` {str(path)!r} cannot be created or opened ({exc})."
            ) from None
        try:
            self._check_integrity()  # before anything is written to it
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.executescript(_SCHEMA)
            self._check_schema()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            reason = " ".join(str(exc).split())
            raise ValueError(
                f"`store` {str(path)!r} is not a sweep store that can be written ({reason}); "
                "give a new file or an existing sweep store."
            ) from None

    def _check_integrity(self) -> None:
        """Refuse a damaged file before writing anything to it: SQLite's ``quick_check`` reads
        every page (a few milliseconds per megabyte) and reports a corrupted one."""
        found = [row[0] for row in self._conn.execute("PRAGMA quick_check")]
        if found != ["ok"]:
            detail = "; ".join(str(f) for f in found[:2]) or "no answer"
            raise sqlite3.DatabaseError(f"the file is damaged: {detail}")

    def _check_schema(self) -> None:
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(results)")}
        missing = sorted(set(_RESULT_COLUMNS) - columns)
        if missing:
            raise sqlite3.DatabaseError(f"its `results` table lacks the columns {missing}")

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One ``IMMEDIATE`` transaction: the database's write lock from its first statement,
        committed at the end, rolled back on any exception."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

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
        owner: ClaimOwner | None = None,
    ) -> None:
        """Write one task's outcome in its own transaction; an ``ok`` row is never replaced.
        With ``owner``, the owner's claim of the task is released in the same transaction."""
        status = "ok" if error is None else "error"
        with self._write() as conn:
            conn.execute(
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
            if owner is not None:
                conn.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, owner.name))

    # -- claims: several sweeps on one store (module docstring) ---------------------------------
    def claim(self, key: str, owner: ClaimOwner, *, since: float) -> ClaimState:
        """Claim task ``key`` for ``owner``, atomically: ``"claimed"`` (compute it now),
        ``"done"`` (finished: ``ok``, or failed at or after ``since``, the claiming run's start
        time, so a failure of a concurrent sweep is not retried at once) or ``"busy"``
        (claimed by a live owner; ask again later)."""
        now = time.time()
        with self._write() as conn:
            row = conn.execute(
                "SELECT status, finished_at FROM results WHERE key = ?", (key,)
            ).fetchone()
            if row is not None and (row[0] == "ok" or row[1] >= since):
                return "done"
            held = conn.execute(
                "SELECT owner, host, pid, heartbeat FROM claims WHERE key = ?", (key,)
            ).fetchone()
            if (
                held is not None
                and held[0] != owner.name
                and _owner_alive(held[1], held[2], held[3], now)
            ):
                return "busy"
            conn.execute(
                """
                INSERT INTO claims (key, owner, host, pid, claimed_at, heartbeat)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET
                    owner = excluded.owner, host = excluded.host, pid = excluded.pid,
                    claimed_at = excluded.claimed_at, heartbeat = excluded.heartbeat
                """,
                (key, owner.name, owner.host, owner.pid, now, now),
            )
        return "claimed"

    def heartbeat(self, owner: ClaimOwner) -> None:
        """Refresh the heartbeat of every claim of ``owner`` (it is still computing them)."""
        with self._write() as conn:
            conn.execute(
                "UPDATE claims SET heartbeat = ? WHERE owner = ?", (time.time(), owner.name)
            )

    def release_claims(self, owner: ClaimOwner | None = None) -> int:
        """Drop the claims of ``owner`` (every claim with None, after a crash on another host);
        returns how many were dropped."""
        with self._write() as conn:
            if owner is None:
                cursor = conn.execute("DELETE FROM claims")
            else:
                cursor = conn.execute("DELETE FROM claims WHERE owner = ?", (owner.name,))
        return cursor.rowcount

    def claims(self) -> list[dict[str, Any]]:
        """The current claims: ``key``, ``owner``, ``host``, ``pid``, ``claimed_at``,
        ``heartbeat`` (seconds since the epoch)."""
        names = ("key", "owner", "host", "pid", "claimed_at", "heartbeat")
        query = f"SELECT {', '.join(names)} FROM claims ORDER BY claimed_at"
        return [dict(zip(names, row, strict=True)) for row in self._conn.execute(query)]

    # -- reading --------------------------------------------------------------------------------
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

    def table(
        self, *, sweep: str | None = None, order: Sequence[str] | None = None
    ) -> tuple[list[str], list[list[Any]]]:
        """The tidy table of the rows: ``(columns, records)``, one record per task.

        Columns: ``key`` (the full SHA-256 of the task), one per parameter, one per result
        field, then ``status``, ``error`` (the failure's first line) and ``seconds``. A result
        field named like a parameter or one of those columns is ``result.NAME``, and a
        parameter named like one of those columns is ``param.NAME``: no two columns share a
        name. List and mapping parameters are JSON text.

        ``order``: task keys in the order the records should appear (a sweep's grid order);
        rows not listed follow in completion order. Default: completion order.
        """
        rows = self.rows(sweep=sweep)
        if order is not None:
            rank = {key: i for i, key in enumerate(order)}
            rows.sort(key=lambda r: rank.get(r["key"], len(rank)))
        params = sorted({k for r in rows for k in r["params"]})
        results = sorted({k for r in rows for k in (r["result"] or {})})
        param_names = [f"param.{c}" if c in _FIXED_COLUMNS else c for c in params]
        taken = set(param_names) | set(_FIXED_COLUMNS)
        result_names = [f"result.{c}" if c in taken else c for c in results]
        records = []
        for r in rows:
            error = (r["error"] or "").splitlines()
            values = [
                json.dumps(r["params"].get(c))
                if isinstance(r["params"].get(c), list | dict)
                else r["params"].get(c)
                for c in params
            ]
            records.append(
                [r["key"], *values]
                + [(r["result"] or {}).get(c) for c in results]
                + [r["status"], error[0] if error else "", r["seconds"]]
            )
        return ["key", *param_names, *result_names, "status", "error", "seconds"], records

    def to_csv(
        self, path: str | Path, *, sweep: str | None = None, order: Sequence[str] | None = None
    ) -> int:
        """Write the tidy table (`table`) as CSV, through a temporary file
        renamed into place; returns the row count.

        ``order``: task keys in the order the rows should appear (a sweep's grid order); rows
        not listed follow in completion order. Default: completion order.
        """
        import csv

        columns, records = self.table(sweep=sweep, order=order)
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".partial")
        with tmp.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(columns)
            writer.writerows(records)
        tmp.replace(target)
        return len(records)

    def to_dataframe(self, *, sweep: str | None = None, order: Sequence[str] | None = None) -> Any:
        """The tidy table (`table`) as a `pandas.DataFrame`, one row per
        task, the same columns as `to_csv`.

        Needs pandas (``pip install 'optmech[pandas]'``).

        Examples
        --------
        >>> import tempfile, os
        >>> with tempfile.TemporaryDirectory() as d, ResultStore(os.path.join(d, "s")) as s:
        ...     s.record("k1", sweep="demo", task="t", params={"a": 1}, result={"v": 2.0},
        ...              seconds=0.1)
        ...     frame = s.to_dataframe()
        >>> frame[["key", "a", "v", "status"]].values.tolist()
        [['k1', 1, 2.0, 'ok']]
        """
        pandas = _pandas("ResultStore.to_dataframe()")
        columns, records = self.table(sweep=sweep, order=order)
        return pandas.DataFrame.from_records(records, columns=columns)


def _pandas(what: str) -> Any:
    """The pandas module, or an ImportError naming the extra that installs it."""
    try:
        import pandas
    except ImportError:
        raise ImportError(
            f"{what} needs pandas, an optional dependency: pip install 'optmech[pandas]'."
        ) from None
    return pandas
