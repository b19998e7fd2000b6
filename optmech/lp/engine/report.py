"""Logging and progress of the LP designers and user LPs: what each stage did, how big, how long.

optmech logs through the standard `logging` module, under the logger ``"optmech"`` and one
child logger per module (``"optmech.lp.solve"``, ``"optmech.lp.additive.designer"``, ...). It
adds only a `logging.NullHandler`, so nothing is printed unless the application configures
logging. The stages of a design or a user LP are INFO records:

* ``build`` — the LP's variables, rows and nonzeros, and the seconds it took;
* ``solve`` — one per attempt: solver, variant, status, seconds (and the LP's size as solved);
* ``certify`` and ``repair`` — what the independent certificate found, what the repair did;
* ``round`` (cutting planes), ``refine`` and ``cross-check`` where they run.

Each record carries its numbers in ``record.optmech`` (a dict: ``stage``, ``seconds`` and the
sizes), for handlers that want them as data. The solver's own log is routed through the logger
``"optmech.lp.solve"`` at DEBUG (`optmech.lp.solve.solve`).

`reporting` is what the public entry points wrap their work in: ``verbose=True`` logs these INFO
records to stderr for the duration of the call, and ``progress=True`` shows a tqdm bar that advances
with every stage (and with every attempt, round and repair step). The bar has a total when the call
knows it (``total=``, or `set_total` once found), and `ticking` redraws it twice a second, so that
its elapsed time moves while a solver blocks.

Examples
--------
>>> import logging
>>> with stage("build", logging.getLogger("optmech.doc"), variables=3, rows=2) as extra:
...     extra["nonzeros"] = 5
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

__all__ = ["LOGGER", "TICK_SECONDS", "reporting", "set_total", "stage", "tick", "ticking"]

#: The logger of the whole library; every module logs to a child of it.
LOGGER = logging.getLogger("optmech")
LOGGER.addHandler(logging.NullHandler())

_log = logging.getLogger(__name__)
#: The progress bar of the call being reported (None: no progress asked for).
_BAR: ContextVar[Any] = ContextVar("optmech_progress_bar", default=None)
#: The stream handler of a ``verbose=True`` call (None: none active).
_VERBOSE: ContextVar[logging.Handler | None] = ContextVar("optmech_verbose", default=None)
#: How often a bar is redrawn while nothing advances it (a blocking solve), in seconds.
TICK_SECONDS = 0.5


@contextlib.contextmanager
def stage(
    name: str, logger: logging.Logger | None = None, **numbers: Any
) -> Iterator[dict[str, Any]]:
    """Time one stage (``"build"``, ``"solve"``, ...); on success log it at INFO on ``logger``
    (default this module's) with its ``numbers`` (known before it runs) and those put in the
    yielded dict while it runs, and advance the progress bar."""
    found: dict[str, Any] = {}
    bar = _BAR.get()
    if bar is not None:  # shown while the stage runs (a solve may take a while)
        bar.set_description_str(f"optmech {name}")
    start = time.perf_counter()
    yield found
    seconds = time.perf_counter() - start
    if bar is not None:
        bar.update(1)
    where = logger or _log
    if where.isEnabledFor(logging.INFO):
        data = {**numbers, **found}
        text = ", ".join(
            f"{k}={v:.10g}" if isinstance(v, float) else f"{k}={v!s}" for k, v in data.items()
        )
        where.info(
            "%s: %s (%.3g s)",
            name,
            text or "done",
            seconds,
            extra={"optmech": {"stage": name, "seconds": seconds, **data}},
        )


def tick(description: str) -> None:
    """Advance the progress bar of the call being reported by one step (no log record): for
    the inner steps of a stage, e.g. each certification of a repair's search."""
    bar = _BAR.get()
    if bar is not None:
        bar.set_description_str(f"optmech {description}", refresh=False)
        bar.update(1)


def set_total(total: int) -> None:
    """Give the progress bar of the call being reported its total number of steps, once known
    (e.g. the tasks of a sweep); nothing without a bar."""
    bar = _BAR.get()
    if bar is not None:
        bar.total = int(total)
        bar.refresh()


@contextlib.contextmanager
def ticking(bar: Any, seconds: float = TICK_SECONDS) -> Iterator[threading.Thread]:
    """Redraw ``bar`` every ``seconds`` from a daemon thread while the body runs, so that its
    elapsed time (and rate) moves while a blocking call (a solve) advances nothing; the thread
    is stopped and joined on the way out, whatever happens in the body.

    Examples
    --------
    >>> import io
    >>> from tqdm import tqdm
    >>> bar = tqdm(total=2, file=io.StringIO())
    >>> with ticking(bar, seconds=0.01) as thread:
    ...     bar.update(2)
    >>> thread.is_alive()
    False
    """
    stop = threading.Event()

    def redraw() -> None:
        while not stop.wait(seconds):
            bar.refresh()

    thread = threading.Thread(target=redraw, name="optmech-progress", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join()


@contextlib.contextmanager
def reporting(
    *, verbose: bool = False, progress: bool = False, what: str = "", total: int | None = None
) -> Iterator[None]:
    """Report the stages of one call: INFO records to stderr (``verbose``), a progress bar.

    Nested calls add nothing: the outermost call's handler and bar serve them all. Nothing is
    changed when neither is asked for (the application's logging configuration alone decides).
    With ``verbose`` the logger ``"optmech"`` is set to INFO meanwhile if it was quieter, and
    restored. The bar (on stderr, described by ``what``) has ``total`` steps when the call knows
    them (else none, or `set_total` later) and is redrawn every ``TICK_SECONDS`` (`ticking`).
    """
    with contextlib.ExitStack() as stack:  # undone in reverse order, whatever happens
        if verbose and _VERBOSE.get() is None:
            handler = logging.StreamHandler(sys.stderr)
            handler.setLevel(logging.INFO)
            handler.setFormatter(logging.Formatter("optmech %(name)s: %(message)s"))
            stack.callback(LOGGER.setLevel, LOGGER.level)
            stack.callback(LOGGER.removeHandler, handler)
            LOGGER.addHandler(handler)
            if LOGGER.getEffectiveLevel() > logging.INFO:
                LOGGER.setLevel(logging.INFO)
            stack.callback(_VERBOSE.reset, _VERBOSE.set(handler))
        if progress and _BAR.get() is None:
            from tqdm import tqdm

            bar = tqdm(
                desc=f"optmech {what}", total=total, unit=" step", file=sys.stderr, leave=False
            )
            stack.callback(bar.close)
            stack.callback(_BAR.reset, _BAR.set(bar))
            stack.enter_context(ticking(bar))
        yield
