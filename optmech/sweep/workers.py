"""Where a sweep's tasks run: in this process, in local worker processes, or on a Dask cluster.

Each kind of pool offers the same few operations to the runner (submit one task, wait for the
first finished, read an outcome, stop everything); the runner claims and records. Local worker
processes die with the process that drives the sweep, however it ends — SIGKILL included: on
Linux each worker asks the kernel for ``SIGKILL`` when its parent dies (``prctl`` with
``PR_SET_PDEATHSIG``), and on every platform a watchdog thread in each worker ends it once its
parent has changed (the orphan is re-parented). Workers ignore Ctrl-C: the driving process
stops them itself, so an interrupted sweep prints no worker tracebacks.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["WATCHDOG", "Pool", "make_pool", "process_exists"]

#: Seconds between two looks of a worker's watchdog at its parent.
WATCHDOG = 0.5
#: ``prctl`` option: the signal the kernel sends this process when its parent dies.
_PR_SET_PDEATHSIG = 1

Outcome = tuple[Any, Any, float]
Body = Callable[[str, dict[str, Any]], Outcome]


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists on this host (signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except OSError:
        return False
    return True


def _watch(first_parent: int) -> None:
    while True:
        time.sleep(WATCHDOG)
        if os.getppid() != first_parent:  # the parent died: this process was re-parented
            os._exit(1)


def _die_with_parent(driver: int) -> None:
    """Make this worker process end when its parent does (module docstring)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    parent = os.getppid()
    if parent != driver and not process_exists(driver):  # it died before the signal was set
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="parent-watchdog").start()


def _worker_start(driver: int) -> None:
    """Initializer of each local worker process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driving process's to handle
    _die_with_parent(driver)


class Pool:
    """Runs tasks in this process, one at a time (the base of the other pools)."""

    #: Most tasks in flight at once (submitted, not yet recorded).
    capacity = 1

    def __init__(self, body: Body, task: str) -> None:
        self.body, self.task = body, task

    def submit(self, params: dict[str, Any], key: str) -> Any:
        """Start task ``params`` (identified by ``key``); returns its future."""
        future: concurrent.futures.Future[Outcome] = concurrent.futures.Future()
        future.set_result(self.body(self.task, params))
        return future

    def wait(self, futures: list[Any], timeout: float) -> Iterable[Any]:
        """The futures of ``futures`` that are finished, waiting at most ``timeout`` seconds for
        the first."""
        return futures

    def outcome(self, future: Any) -> Outcome:
        """(result, error text, seconds) of a finished task."""
        result: Outcome = future.result()
        return result

    def stop(self) -> None:
        """Abandon every task in flight (Ctrl-C, or an error of the driving process)."""

    def close(self) -> None:
        """Release the pool after a complete run."""

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ProcessPool(Pool):
    """Local worker processes (`concurrent.futures.ProcessPoolExecutor`) that die with the
    driving process and ignore Ctrl-C (module docstring)."""

    def __init__(self, body: Body, task: str, workers: int) -> None:
        super().__init__(body, task)
        self.workers = workers
        self.capacity = 2 * workers
        self._broken = self._stopped = False
        self._pool = self._start()

    def _start(self) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            max_workers=self.workers, initializer=_worker_start, initargs=(os.getpid(),)
        )

    def submit(self, params: dict[str, Any], key: str) -> Any:
        if self._broken:  # a worker died: the old pool refuses work, start a new one
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool, self._broken = self._start(), False
        return self._pool.submit(self.body, self.task, params)

    def wait(self, futures: list[Any], timeout: float) -> Iterable[Any]:
        done, _ = concurrent.futures.wait(
            futures, timeout=timeout, return_when=concurrent.futures.FIRST_COMPLETED
        )
        return done

    def outcome(self, future: Any) -> Outcome:
        try:
            return super().outcome(future)
        except concurrent.futures.process.BrokenProcessPool:
            self._broken = True
            return (
                None,
                "BrokenProcessPool: a worker process died while running this task (killed, or "
                "out of memory); the task is run again by the next run of the sweep",
                0.0,
            )

    def stop(self) -> None:
        self._stopped = True
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(OSError, ValueError):
                process.terminate()
        # A worker that died first (a Ctrl-C reaching it before its initializer ignored it)
        # leaves the executor's wake-up pipe closed: its shutdown then raises BrokenPipeError,
        # which must not replace the interrupt being handled.
        with contextlib.suppress(OSError):
            self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                process.join(timeout=5)

    def close(self) -> None:
        if not self._stopped:
            self._pool.shutdown(wait=True)


class DaskPool(Pool):
    """Tasks on a Dask distributed cluster (a scheduler address, or a ``distributed.Client``)."""

    def __init__(self, body: Body, task: str, scheduler: Any, connect_timeout: str) -> None:
        super().__init__(body, task)
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - dask is declared by the extra
            raise ValueError(
                "`scheduler` needs dask.distributed: pip install 'optmech[dask]'."
            ) from exc
        self._own = not isinstance(scheduler, Client)
        self.client = _connect(Client, scheduler, connect_timeout) if self._own else scheduler
        self.capacity = 2 * max(sum(self.client.nthreads().values()), 1)
        self._futures: list[Any] = []

    def submit(self, params: dict[str, Any], key: str) -> Any:
        future = self.client.submit(self.body, self.task, params, key=f"optmech-{key}", pure=False)
        self._futures.append(future)
        return future

    def wait(self, futures: list[Any], timeout: float) -> Iterable[Any]:
        from distributed import wait

        try:
            done, _ = wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        return done

    def outcome(self, future: Any) -> Outcome:
        try:
            return super().outcome(future)
        except Exception as exc:  # a lost worker, a cancelled task: an error row, retried later
            return None, f"{type(exc).__name__}: {exc}", 0.0

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.client.cancel([f for f in self._futures if not f.done()])
        self.close()

    def close(self) -> None:
        if self._own:
            self.client.close()
            self._own = False


def _connect(client_class: Any, address: Any, timeout: str) -> Any:
    """A client of the scheduler at ``address``, or a one-line ValueError naming it."""
    try:
        return client_class(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(
            f"`scheduler`: no Dask scheduler answered at {address!r} within {timeout} "
            f"({reason}); start one (dask scheduler) or fix the address."
        ) from None


@contextlib.contextmanager
def make_pool(
    body: Body, task: str, workers: int, scheduler: Any, connect_timeout: str
) -> Iterator[Pool]:
    """The pool for a run: Dask when ``scheduler`` is given, else ``workers`` local processes
    (this process when 1). Closed at the end of the block; stopped by the runner on error."""
    if scheduler is not None:
        pool: Pool = DaskPool(body, task, scheduler, connect_timeout)
    elif workers == 1:
        pool = Pool(body, task)
    else:
        pool = ProcessPool(body, task, workers)
    try:
        yield pool
    finally:
        pool.close()
