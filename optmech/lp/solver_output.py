"""What LP solvers print: routed to the logger ``"optmech.lp.solve"`` at DEBUG, or to /dev/null.

Solvers written in C print to file descriptor 1, below Python's ``sys.stdout``; cvxpy logs to
its own logger. `solver_log` gathers both for one solve, and
`quiet_highs_banner` spends HiGHS's once-per-process banner where nobody
reads it, so that machine-readable output (``optmech verify --json``) stays clean.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import sys
import tempfile
from collections.abc import Iterator

__all__ = ["quiet_highs_banner", "solver_log", "stdout_to"]

#: The logger of `optmech.lp.solve`, which the solvers' output joins.
_log = logging.getLogger("optmech.lp.solve")


@contextlib.contextmanager
def stdout_to(target: int) -> Iterator[None]:
    """Send file descriptor 1 to ``target``, flushing Python's and C's buffers on both sides."""
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    libc.fflush(None)
    saved = os.dup(1)
    try:
        os.dup2(target, 1)
        yield
    finally:
        sys.stdout.flush()
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)


class _ToDebug(logging.Handler):
    """Forwards cvxpy's log records to this module's logger at DEBUG."""

    def emit(self, record: logging.LogRecord) -> None:
        _log.debug("cvxpy: %s", record.getMessage())


@contextlib.contextmanager
def solver_log(name: str) -> Iterator[None]:
    """Route the solver's log through the logger ``"optmech.lp.solve"`` at DEBUG: what the solver
    prints (to file descriptor 1) is kept in a temporary file and logged line by line after the
    solve, and cvxpy's own log records are forwarded."""
    cvx = logging.getLogger("__cvxpy__")
    saved = cvx.handlers[:]
    cvx.handlers = [_ToDebug()]
    try:
        with tempfile.TemporaryFile() as sink:
            try:
                with stdout_to(sink.fileno()):
                    yield
            finally:
                sink.seek(0)
                for line in sink.read().decode("utf-8", "replace").splitlines():
                    if line.strip():
                        _log.debug("%s: %s", name, line)
    finally:
        cvx.handlers = saved


@functools.cache
def quiet_highs_banner() -> None:
    """Let HiGHS print its licence banner once, to /dev/null.

    highspy prints two lines to C's stdout the first time a ``Highs`` object is built in a
    process, whatever its output options; that corrupts machine-readable output such as
    ``optmech verify --json``. The banner is printed once per process, so building one object
    with stdout silenced spends it.
    """
    try:
        import highspy
    except ImportError:  # HiGHS not installed: nothing to silence
        return
    try:
        with open(os.devnull, "wb") as devnull, stdout_to(devnull.fileno()):
            highspy.Highs()
    except OSError:  # no file descriptor 1 to redirect (an embedding host): leave it
        return
