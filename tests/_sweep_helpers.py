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
