"""Task functions used by the sweep tests (importable as ``_sweep_helpers:...``)."""

import time


def slow_square(*, x: float, delay: float = 0.0) -> dict[str, float]:
    """Return x² after sleeping ``delay`` seconds (a stand-in for an LP solve)."""
    time.sleep(delay)
    return {"square": float(x) * float(x)}


def fails_on_three(*, x: int) -> dict[str, int]:
    """Raise for x = 3, succeed otherwise."""
    if x == 3:
        raise RuntimeError("three is unlucky")
    return {"x": x}


def returns_nan(*, x: float) -> dict[str, float]:
    """A broken task that returns NaN."""
    return {"v": float("nan")}


def logged_square(*, x: float, log: str, delay: float = 0.0) -> dict[str, float]:
    """x² after ``delay`` seconds; appends a line naming x to the file ``log`` first (one
    ``write`` of an ``O_APPEND`` file: lines of concurrent processes never interleave), so a
    test can count how often each task was computed."""
    import os

    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{x!r}\n".encode())
    finally:
        os.close(fd)
    time.sleep(delay)
    return {"square": float(x) * float(x)}
