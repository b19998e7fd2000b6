"""Running a sweep: skip finished tasks, run the rest in parallel, store each result as it lands.

Workers only compute; the driving process is the single writer of the store, so rows are
written one committed transaction at a time in completion order. Local runs use a
`concurrent.futures.ProcessPoolExecutor`; with ``scheduler=`` an address (or a
``distributed.Client``), tasks go to a Dask distributed cluster through the same
submit/as-completed protocol.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from optmech._validation import check_int
from optmech.sweep.spec import SweepSpec
from optmech.sweep.store import ResultStore
from optmech.sweep.tasks import check_task_parameters, run_task

__all__ = ["CONNECT_TIMEOUT", "SweepSummary", "run_sweep"]

#: How long to wait for a Dask scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = "5s"


@dataclass(frozen=True)
class SweepSummary:
    """What a call to [`run_sweep`][run_sweep] did."""

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


def _timed(name: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None, float]:
    """Worker body: run the task, return (result, error text, seconds). Never raises."""
    start = time.perf_counter()
    try:
        return run_task(name, params), None, time.perf_counter() - start
    except Exception as exc:
        text = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"
        return None, text, time.perf_counter() - start


def _local(
    name: str, todo: list[tuple[str, dict[str, Any]]], workers: int
) -> Iterator[tuple[str, dict[str, Any], tuple[Any, Any, float]]]:
    if workers == 1:
        for key, params in todo:
            yield key, params, _timed(name, params)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures: dict[Future[Any], tuple[str, dict[str, Any]]] = {
            pool.submit(_timed, name, params): (key, params) for key, params in todo
        }
        for fut in as_completed(futures):
            key, params = futures[fut]
            yield key, params, fut.result()


def _dask(
    name: str, todo: list[tuple[str, dict[str, Any]]], scheduler: Any
) -> Iterator[tuple[str, dict[str, Any], tuple[Any, Any, float]]]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_as_completed
    except ImportError as exc:  # pragma: no cover - dask is a declared dependency of the extra
        raise ValueError(
            "`scheduler` needs dask.distributed: pip install 'optmech[dask]'."
        ) from exc
    own = not isinstance(scheduler, Client)
    client = _connect(Client, scheduler) if own else scheduler
    try:
        futures = {}
        for key, params in todo:
            fut = client.submit(_timed, name, params, key=f"optmech-{key}", pure=False)
            futures[fut] = (key, params)
        for fut in dask_as_completed(list(futures)):
            key, params = futures[fut]
            yield key, params, fut.result()
    finally:
        if own:
            client.close()


def _connect(client_class: Any, address: Any) -> Any:
    """A client of the scheduler at ``address``, or a one-line ValueError naming it."""
    try:
        return client_class(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(
            f"`scheduler`: no Dask scheduler answered at {address!r} within "
            f"{CONNECT_TIMEOUT} ({reason}); start one (dask scheduler) or fix the address."
        ) from None


def _reason(error: str) -> str:
    """The first line of a stored error (``Type: message``)."""
    return error.splitlines()[0] if error else "unknown error"


def run_sweep(
    spec: SweepSpec,
    *,
    store: str | Path | None = None,
    scheduler: Any = None,
    workers: int | None = None,
    progress: bool = True,
) -> SweepSummary:
    """Run every unfinished task of ``spec`` and store the results.

    Parameters
    ----------
    spec : SweepSpec
        The sweep.
    store : str or Path, optional
        SQLite file; defaults to ``spec.store`` or ``<name>.sqlite`` in the working directory.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``tcp://host:8786``) or client; local processes if omitted.
    workers : int, optional
        Local worker processes (default: the machine's cores); 1 runs in this process.
    progress : bool
        Show a progress bar with ETA on standard error.

    Returns
    -------
    SweepSummary
        Counts of tasks skipped (already done), completed and failed in this call.
    """
    if not isinstance(spec, SweepSpec):
        raise TypeError(f"`spec` must be a SweepSpec (see load_spec); got {type(spec).__name__}.")
    # An unknown task or a misspelt parameter: a clear error before anything runs.
    check_task_parameters(spec.task, {*spec.grid, *spec.fixed})
    n_workers = (os.cpu_count() or 1) if workers is None else check_int("workers", workers, low=1)
    path = Path(store or spec.store or f"{spec.name}.sqlite")
    start = time.perf_counter()
    tasks = spec.tasks()
    with ResultStore(path) as db:
        done = db.done_keys()
        todo = [(k, p) for k, p in tasks if k not in done]
        stream = (
            _local(spec.task, todo, n_workers)
            if scheduler is None
            else _dask(spec.task, todo, scheduler)
        )
        bar = None
        if progress and todo:
            from tqdm import tqdm

            bar = tqdm(total=len(todo), desc=spec.name, unit="task", file=sys.stderr)
        completed = 0
        reasons: Counter[str] = Counter()
        try:
            for key, params, (result, error, seconds) in stream:
                db.record(
                    key,
                    sweep=spec.name,
                    task=spec.task,
                    params=params,
                    result=result,
                    error=error,
                    seconds=seconds,
                )
                if error is None:
                    completed += 1
                else:
                    reasons[_reason(error)] += 1
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
    return SweepSummary(
        total=len(tasks),
        skipped=len(tasks) - len(todo),
        completed=completed,
        failed=sum(reasons.values()),
        seconds=time.perf_counter() - start,
        store=str(path),
        failures=dict(reasons.most_common()),
        keys=tuple(k for k, _ in tasks),
    )
