"""Running a sweep: skip finished tasks, claim each of the rest, run it, store its result.

Workers only compute; the driving process claims each task in the store just before it is
submitted (`ResultStore.claim`: two sweeps on one
store share the work, each task computed once) and writes each result, one committed
transaction at a time in completion order. At most twice as many tasks as workers are in
flight, so claims are taken as the work proceeds. Local runs use a
`concurrent.futures.ProcessPoolExecutor` whose workers die with the driving process (a
parent-death signal on Linux, and a watchdog thread on every platform) and ignore Ctrl-C,
which the driving process handles: it stops the workers, releases its claims and raises
`SweepInterrupted` saying what was kept. With ``scheduler=`` an address (or
a ``distributed.Client``), tasks go to a Dask distributed cluster through the same protocol.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from optmech._validation import check_int
from optmech.lp.engine.report import ticking
from optmech.sweep.spec import SweepSpec
from optmech.sweep.store import HEARTBEAT, ClaimOwner, ResultStore
from optmech.sweep.tasks import check_task_parameters, run_task
from optmech.sweep.workers import Pool, make_pool

__all__ = ["CONNECT_TIMEOUT", "POLL", "SweepInterrupted", "SweepSummary", "run_sweep"]

#: How long to wait for a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "5s"
#: Seconds between two looks at tasks another sweep on the same store is computing.
POLL = 0.5


@dataclass(frozen=True)
class SweepSummary:
    """What a call to `run_sweep` did.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from optmech.sweep import SweepSpec, run_sweep
    >>> tmp = tempfile.TemporaryDirectory()
    >>> spec = SweepSpec(task="staircase", grid={"epsilon": [0.5, 1.0]}, fixed={"cost": "abs"})
    >>> summary = run_sweep(spec, store=pathlib.Path(tmp.name) / "s.sqlite", workers=1)
    >>> summary.total, summary.completed, summary.failed, len(summary.keys)
    (2, 2, 0, 2)
    >>> tmp.cleanup()
    """

    total: int
    skipped: int
    completed: int
    failed: int
    seconds: float
    store: str
    #: Each distinct failure reason of this call (the exception's first line) and its count.
    failures: dict[str, int] = field(default_factory=dict)
    #: The sweep's task keys in grid order (the order of ``SweepSpec.tasks``).
    keys: tuple[str, ...] = ()
    #: Tasks finished by another sweep on the same store while this one ran.
    elsewhere: int = 0


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a sweep: the workers were stopped and the claims released; ``kept`` says
    how many of the sweep's tasks the store holds (``12 of 40 tasks stored in out.sqlite``).

    Examples
    --------
    >>> from optmech.sweep import SweepInterrupted
    >>> exc = SweepInterrupted(3, 10, "gain.sqlite")
    >>> exc.stored, exc.total, isinstance(exc, KeyboardInterrupt)
    (3, 10, True)
    """

    def __init__(self, stored: int, total: int, store: str) -> None:
        self.stored, self.total, self.store = stored, total, store
        self.kept = f"{stored} of {total} tasks stored in {store}"
        super().__init__(self.kept)


def _timed(name: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None, float]:
    """Worker body: run the task, return (result, error text, seconds). Never raises."""
    start = time.perf_counter()
    try:
        return run_task(name, params), None, time.perf_counter() - start
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
        return None, text, time.perf_counter() - start


def _reason(error: str) -> str:
    """The first line of a stored error (``Type: message``)."""
    return error.splitlines()[0] if error else "unknown error"


def _check_scheduler(scheduler: Any) -> None:
    if isinstance(scheduler, str) and not scheduler.strip():
        raise ValueError(
            "`scheduler` must be a Dask scheduler address such as tcp://10.0.0.5:8786; got ''."
        )


class _Run:
    """The loop of one `run_sweep` call: claim, submit, record (module docstring)."""

    def __init__(self, spec: SweepSpec, db: ResultStore, pool: Pool, bar: Any) -> None:
        self.spec, self.db, self.pool, self.bar = spec, db, pool, bar
        self.owner = ClaimOwner()
        self.since = time.time()
        self.completed = self.elsewhere = 0
        self.reasons: Counter[str] = Counter()

    def _tick(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def _record(self, key: str, params: dict[str, Any], outcome: tuple[Any, Any, float]) -> None:
        result, error, seconds = outcome
        self.db.record(
            key,
            sweep=self.spec.name,
            task=self.spec.task,
            params=params,
            result=result,
            error=error,
            seconds=seconds,
            owner=self.owner,
        )
        if error is None:
            self.completed += 1
        else:
            self.reasons[_reason(error)] += 1
        self._tick()

    def run(self, todo: list[tuple[str, dict[str, Any]]]) -> None:
        """Compute every task of ``todo`` here or see it finished elsewhere."""
        pending = deque(todo)
        waiting: list[tuple[str, dict[str, Any]]] = []
        in_flight: dict[Any, tuple[str, dict[str, Any]]] = {}
        beat = retry = time.monotonic()
        while pending or waiting or in_flight:
            while pending and len(in_flight) < self.pool.capacity:
                key, params = pending.popleft()
                state = self.db.claim(key, self.owner, since=self.since)
                if state == "claimed":
                    in_flight[self.pool.submit(params, key)] = (key, params)
                elif state == "done":
                    self.elsewhere += 1
                    self._tick()
                else:
                    waiting.append((key, params))
            if in_flight:
                for future in self.pool.wait(list(in_flight), timeout=POLL):
                    key, params = in_flight.pop(future)
                    self._record(key, params, self.pool.outcome(future))
            elif waiting:
                time.sleep(max(0.0, retry + POLL - time.monotonic()))
            if waiting and time.monotonic() >= retry + POLL:  # ask again about the busy ones
                pending.extend(waiting)
                waiting.clear()
                retry = time.monotonic()
            if time.monotonic() - beat >= HEARTBEAT:
                self.db.heartbeat(self.owner)
                beat = time.monotonic()


def run_sweep(
    spec: SweepSpec,
    *,
    store: str | Path | None = None,
    scheduler: Any = None,
    workers: int | None = None,
    progress: bool = False,
) -> SweepSummary:
    """Run every unfinished task of ``spec`` and store the results.

    Several calls may share one store at once (in other processes or on other machines): each
    task is claimed in the store before it is computed, so it is computed once, and each call
    returns when every task of the sweep is finished, by it or by another.

    Parameters
    ----------
    spec : SweepSpec
        The sweep.
    store : str or Path, optional
        SQLite file; defaults to ``spec.store`` or ``<name>.sqlite`` in the working directory.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``tcp://host:8786``) or client; local processes if omitted.
    workers : int, optional
        Local worker processes (default: the machine's cores, at most one per task); 1 runs in
        this process.
    progress : bool
        Show a progress bar with ETA on standard error (tqdm); off by default.

    Returns
    -------
    SweepSummary
        Counts of tasks skipped (already done), completed and failed in this call, and
        finished by another sweep on the same store meanwhile.

    Raises
    ------
    SweepInterrupted
        Ctrl-C (a `KeyboardInterrupt`): the workers are stopped, this call's claims released,
        and every result recorded so far is kept.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from optmech.sweep import ResultStore, SweepSpec, run_sweep
    >>> tmp = tempfile.TemporaryDirectory()
    >>> store = pathlib.Path(tmp.name) / "gain.sqlite"
    >>> spec = SweepSpec(task="staircase", grid={"epsilon": [0.5, 1.0]}, fixed={"cost": "abs"})
    >>> summary = run_sweep(spec, store=store, workers=1)
    >>> summary.completed, run_sweep(spec, store=store, workers=1).skipped  # resumes, no rework
    (2, 2)
    >>> len(ResultStore(store).rows())
    2
    >>> tmp.cleanup()
    """
    if not isinstance(spec, SweepSpec):
        raise TypeError(f"`spec` must be a SweepSpec (see load_spec); got {type(spec).__name__}.")
    # An unknown task, a misspelt or a missing parameter: a clear error before anything runs.
    check_task_parameters(spec.task, {*spec.grid, *spec.fixed})
    n_workers = (os.cpu_count() or 1) if workers is None else check_int("workers", workers, low=1)
    _check_scheduler(scheduler)
    path = Path(store or spec.store or f"{spec.name}.sqlite")
    start = time.perf_counter()
    tasks = spec.tasks()
    with ResultStore(path) as db:
        done = db.done_keys()
        todo = [(k, p) for k, p in tasks if k not in done]
        bar = None
        if progress and todo:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc=spec.name, unit="task", file=sys.stderr)
        run = None
        try:
            with make_pool(
                _timed, spec.task, min(n_workers, max(len(todo), 1)), scheduler, CONNECT_TIMEOUT
            ) as pool:
                run = _Run(spec, db, pool, bar)
                with ticking(bar) if bar is not None else contextlib.nullcontext():
                    _interruptible(run, todo, db, tasks, path)
        finally:
            if bar is not None:
                bar.close()
    assert run is not None
    return SweepSummary(
        total=len(tasks),
        skipped=len(tasks) - len(todo),
        completed=run.completed,
        failed=sum(run.reasons.values()),
        seconds=time.perf_counter() - start,
        store=str(path),
        failures=dict(run.reasons.most_common()),
        keys=tuple(k for k, _ in tasks),
        elsewhere=run.elsewhere,
    )


def _interruptible(
    run: _Run,
    todo: list[tuple[str, dict[str, Any]]],
    db: ResultStore,
    tasks: list[tuple[str, dict[str, Any]]],
    path: Path,
) -> None:
    """``run.run(todo)``; on any exit but success the pool is stopped and the claims released,
    and Ctrl-C becomes `SweepInterrupted`."""
    try:
        run.run(todo)
    except BaseException as exc:
        run.pool.stop()
        db.release_claims(run.owner)
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, SweepInterrupted):
            kept = db.done_keys()
            stored = sum(key in kept for key, _ in tasks)
            raise SweepInterrupted(stored, len(tasks), str(path)) from None
        raise
