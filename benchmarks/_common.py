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
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "timeout_s": timeout, "load": before}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("@@RESULT@@")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": f"error: {tail[:200]}", "load": before}
    out: dict[str, Any] = json.loads(lines[-1][len("@@RESULT@@") :])
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


def fmt_field(row: dict[str, Any], key: str, fmt: str = ".2f") -> str:
    """``row[key]`` formatted, or ``"-"`` when missing."""
    val = row.get(key)
    return "-" if val is None else format(val, fmt)


def peak_rss_mb() -> float:
    """Peak resident memory of this process, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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
        import highspy
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
        a = sp.vstack([a_eq, a_ub], format="csc")
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        for key, val in opts.items():
            h.setOptionValue(key, val)
        model = highspy.HighsLp()
        model.num_col_, model.num_row_ = n, a.shape[0]
        model.col_cost_ = c
        model.col_lower_ = np.zeros(n)
        model.col_upper_ = np.full(n, highspy.kHighsInf)
        model.row_lower_ = np.concatenate([b_eq, np.full(a_ub.shape[0], -highspy.kHighsInf)])
        model.row_upper_ = np.concatenate([b_eq, b_ub])
        model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        model.a_matrix_.start_ = a.indptr
        model.a_matrix_.index_ = a.indices
        model.a_matrix_.value_ = a.data
        h.passModel(model)
        built = time.perf_counter()
        h.run()
        status = h.modelStatusToString(h.getModelStatus())
    done = time.perf_counter()
    return {"build": built - start, "solve": done - built, "status_solver": status}
