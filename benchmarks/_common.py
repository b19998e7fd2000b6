"""Shared helpers of the benchmarks: timed subprocess cases (repeated, alternated), load
average, medians."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from benchmarks._highs import highs_model
from benchmarks._process import proc_peak_mb, run_process

_CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
import importlib
import optmech  # whole, before any clock (EAGER_IMPORT: see _env)
mod = importlib.import_module(sys.argv[1])
out = getattr(mod, sys.argv[2])(**json.loads(sys.argv[3]))
from benchmarks._process import proc_peak_mb
out["peak_rss_self_mb"] = proc_peak_mb()
print("@@RESULT@@" + json.dumps(out, default=float))
"""

#: Runs of every case (``python -m benchmarks --repeat``): timings are reported as the median
#: run's, with ``<key>_min`` and ``<key>_median`` over the runs.
REPEATS = 1

#: The per-run fields summarised over the runs (min and median).
TIMED = ("total", "build", "compile", "solve", "certify", "wall_with_startup", "peak_rss_mb")


def repeats() -> int:
    """Runs of every case (`REPEATS`, set by [`set_repeats`][set_repeats])."""
    return REPEATS


def set_repeats(runs: int) -> None:
    """Run every case ``runs`` times (at least 1)."""
    global REPEATS
    REPEATS = max(1, int(runs))


def load() -> float:
    """The 1-minute load average (the machine is shared: every timing row carries it)."""
    return float(os.getloadavg()[0])


def _env() -> dict[str, str]:
    """The child's environment: this checkout on the path, and the package's public names
    imported whole by ``import optmech`` (``EAGER_IMPORT``, read by ``lazy_loader``; unless the
    caller's environment sets it, e.g. to ``0``), so that a case's clock times its work and not
    the first use of a module (the ``startup`` section times imports, in processes of its own).
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return dict(
        os.environ,
        PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
        EAGER_IMPORT=os.environ.get("EAGER_IMPORT", "1"),
    )


def run_once(module: str, func: str, timeout: float, **kwargs: Any) -> dict[str, Any]:
    """One run of ``module.func(**kwargs)`` in a fresh interpreter with a wall-clock limit.

    Returns the function's dict plus ``peak_rss_mb`` (the child's own peak, see
    ``benchmarks._process``: never the driver's), ``peak_rss_source``, ``wall_with_startup``
    and ``load``; on a time-out ``{"status": "timeout"}``, on a crash ``{"status": "error: ..."}``.
    """
    before = load()
    argv = [sys.executable, "-c", _CHILD, module, func, json.dumps(kwargs)]
    proc = run_process(argv, timeout=timeout, env=_env())
    if proc.timed_out:
        return {"status": "timeout", "timeout_s": timeout, "load": before}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": f"error: {tail[:200]}", "load": before}
    out: dict[str, Any] = json.loads(lines[-1][len("@@RESULT@@") :])
    out.setdefault("status", "ok")
    own = out.pop("peak_rss_self_mb", None)
    peaks = [p for p in (own, proc.peak_rss_mb) if p is not None]
    out["peak_rss_mb"] = max(peaks) if peaks else None
    out["peak_rss_source"] = proc.peak_source
    out["load"] = max(before, load())
    out["wall_with_startup"] = proc.wall
    return out


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row from the runs of a case: the median run (by ``total``), ``<key>_min`` and
    ``<key>_median`` of every field of `TIMED`, ``runs`` and the load range."""
    ok = [r for r in runs if isinstance(r.get("total"), (int, float))]
    if not ok:
        return {**runs[-1], "runs": len(runs)}
    ordered = sorted(ok, key=lambda r: r["total"])
    row = dict(ordered[(len(ordered) - 1) // 2])
    for key in TIMED:
        vals = [r[key] for r in ok if isinstance(r.get(key), (int, float))]
        if vals:
            row[f"{key}_min"] = min(vals)
            row[f"{key}_median"] = statistics.median(vals)
            row[key] = statistics.median(vals)
    row["runs"] = len(ok)
    loads = [r["load"] for r in runs if "load" in r]
    row["load"] = max(loads)
    row["load_min"] = min(loads)
    if len(ok) < len(runs):
        row["failed_runs"] = [r["status"] for r in runs if r not in ok]
    return row


def run_cases(
    cases: list[tuple[str, str, dict[str, Any]]], timeout: float, repeats: int | None = None
) -> list[dict[str, Any]]:
    """Run several cases ``repeats`` times (default `REPEATS`), alternating (A B A B ...), so
    that a change in the machine's load falls on all of them alike; one summary row each
    ([`summarise`][summarise]). A case that times out or fails is not run again."""
    runs: list[list[dict[str, Any]]] = [[] for _ in cases]
    for _ in range(repeats or REPEATS):
        for i, (module, func, kwargs) in enumerate(cases):
            last = str(runs[i][-1].get("status", "")) if runs[i] else ""
            if last == "timeout" or last.startswith("error"):
                continue
            runs[i].append(run_once(module, func, timeout, **kwargs))
    return [summarise(r) for r in runs]


def run_case(module: str, func: str, timeout: float, **kwargs: Any) -> dict[str, Any]:
    """Run ``module.func(**kwargs)`` `REPEATS` times, each in a fresh interpreter with a
    wall-clock limit ([`run_once`][run_once]); the summary row of
    [`summarise`][summarise]. On a time-out ``{"status": "timeout"}``, on a crash
    ``{"status": "error: ..."}``."""
    return run_cases([(module, func, kwargs)], timeout)[0]


def timings(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(min, median) wall time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``repeat`` calls of ``fn``."""
    return timings(fn, repeat)[1]


def fmt_field(row: dict[str, Any], key: str, fmt: str = ".2f") -> str:
    """``row[key]`` formatted, or ``"-"`` when missing."""
    val = row.get(key)
    return "-" if val is None else format(val, fmt)


def peak_rss_mb() -> float | None:
    """Peak resident memory of this process, MB (``VmHWM``; None where unreadable)."""
    return proc_peak_mb()


def solve_direct(
    solver: str,
    kind: str,
    c: Any,
    a_eq: Any,
    b_eq: Any,
    a_ub: Any,
    b_ub: Any,
    *,
    nonneg: Any = None,
) -> dict[str, Any]:
    """``min c·x`` s.t. ``a_eq x = b_eq``, ``a_ub x ≤ b_ub``, ``x ≥ 0``, through the solver's API.

    No cvxpy: the baseline of "pipeline / direct". Options are optmech's own
    (``default_options(solver, kind)``), so both sides solve with the same settings. For
    Clarabel, ``nonneg`` (a sparse selection matrix, default the identity) says which entries of
    ``x`` carry an explicit ``x ≥ 0`` row, as the pipeline's builder does; HiGHS takes ``x ≥ 0``
    as column bounds. Returns seconds spent handing the model over (``build``) and solving
    (``solve``), and the solver's status.
    """
    import numpy as np
    import scipy.sparse as sp

    from optmech.lp.solve import default_options

    # Imported before the clock starts, as the pipeline's side imports before its clock.
    if solver == "CLARABEL":
        import clarabel
    else:
        import highspy  # noqa: F401  (highs_model's own import is then free)
    start = time.perf_counter()
    n = c.size
    opts = default_options(solver, kind)
    if solver == "CLARABEL":
        sel = sp.identity(n, format="csr") if nonneg is None else nonneg
        a = sp.vstack([a_eq, a_ub, -sel], format="csc")
        b = np.concatenate([b_eq, b_ub, np.zeros(sel.shape[0])])
        cones = [
            clarabel.ZeroConeT(a_eq.shape[0]),
            clarabel.NonnegativeConeT(a_ub.shape[0] + sel.shape[0]),
        ]
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        for key, val in opts.items():
            setattr(settings, key, val)
        built = time.perf_counter()
        status = str(
            clarabel.DefaultSolver(sp.csc_matrix((n, n)), c, a, b, cones, settings).solve().status
        )
    else:
        h = highs_model(c, a_eq, b_eq, a_ub, b_ub, opts)
        built = time.perf_counter()
        h.run()
        status = h.modelStatusToString(h.getModelStatus())
    done = time.perf_counter()
    return {"build": built - start, "solve": done - built, "status_solver": status}
