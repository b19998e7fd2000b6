"""Shared helpers of the benchmarks: timed subprocess cases, load average, medians."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

_CHILD = """
import json, resource, sys, warnings
warnings.simplefilter("ignore")
import importlib
mod = importlib.import_module(sys.argv[1])
out = getattr(mod, sys.argv[2])(**json.loads(sys.argv[3]))
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("@@RESULT@@" + json.dumps(out, default=float))
"""


def load() -> float:
    """The 1-minute load average (the machine is shared: every timing row carries it)."""
    return float(os.getloadavg()[0])


def run_case(module: str, func: str, timeout: float, **kwargs: Any) -> dict[str, Any]:
    """Run ``module.func(**kwargs)`` in a fresh interpreter with a wall-clock limit.

    Returns the function's dict plus ``peak_rss_mb`` and ``load``; on a time-out
    ``{"status": "timeout"}``, on a crash ``{"status": "error: ..."}``.
    """
    before = load()
    start = time.perf_counter()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, module, func, json.dumps(kwargs)],
            capture_output=True, text=True, timeout=timeout, check=False, env=env,
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "timeout_s": timeout, "load": before}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": f"error: {tail[:200]}", "load": before}
    out: dict[str, Any] = json.loads(lines[-1][len("@@RESULT@@"):])
    out.setdefault("status", "ok")
    out["load"] = max(before, load())
    out["wall_with_startup"] = time.perf_counter() - start
    return out


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_rss_mb() -> float:
    """Peak resident memory of this process, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
