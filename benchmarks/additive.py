"""Additive ε-DP noise LP (optmech.design_noise; Geng & Viswanath 2016), |e| cost, Δ = 1, ε = 1.

Per resolution m (cells per sensitivity) and solver, with 20 periods each side: phases —
``build`` (grid, costs, window rows, the cvxpy problem), ``compile`` (cvxpy canonicalisation),
``solve`` (inside the solver), ``certify`` (clip, repair, independent certification, the
certified interval's Lagrangian bound) —, its relative width ``interval``, the gap
of the certified value to the staircase optimum, pipeline / the same solver on the same sparse
matrices (no cvxpy), and the fitted exponent ``b`` of ``solve time ∝ cells^b``. The mirror
reduction (|e| is symmetric, ``reduce_symmetric=True``) and the block window form are on, as in
``design_noise``'s defaults; ``monotone=True`` (the staircase's proven shape) is
measured as a separate row because it restricts the class.
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

import numpy as np

from benchmarks._common import fmt_field, run_cases, solve_direct

MODULE = "benchmarks.additive"
V_STAR_ABS_EPS1 = math.exp(0.5) / (math.e - 1.0)  # staircase optimum for |e|, ε = 1, Δ = 1


def _build(m: int, k: int, monotone: bool = False) -> Any:
    import optmech
    from optmech.lp.additive import AdditiveSpec, build_additive_lp

    spec = AdditiveSpec(
        optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=m, periods=k, monotone=monotone
    )
    return build_additive_lp(spec)


def pipeline_case(m: int, k: int, solver: str, monotone: bool = False) -> dict[str, Any]:
    """Build, solve (optmech.lp.solve) and certify; phases in seconds (child process)."""
    from optmech.lp.additive import finish_design
    from optmech.lp.solve import solve

    t0 = time.perf_counter()
    lp = _build(m, k, monotone)
    t1 = time.perf_counter()
    info = solve(lp.problem, solver=solver, kind="additive")
    t2 = time.perf_counter()
    noise = finish_design(lp, info)
    t3 = time.perf_counter()
    return {
        "total": t3 - t0,
        "build": t1 - t0,
        "compile": info.compile_time,
        "solve": info.solve_time,
        "solve_call": t2 - t1,
        "certify": t3 - t2,
        "status": info.status,
        "solver": info.solver,
        "iterations": info.iterations,
        "variables": info.num_variables,
        "rows": info.num_constraints,
        "cells": lp.num_values,
        "window": lp.window,
        "value": noise.value,
        "interval": (noise.value - noise.lower_bound) / noise.value,
        "gap_to_closed_form": noise.value / V_STAR_ABS_EPS1 - 1.0,
        "certified_epsilon": noise.certified_epsilon,
    }


def direct_case(m: int, k: int, solver: str, monotone: bool = False) -> dict[str, Any]:
    """The same matrices (lp.c, lp.a_eq, lp.a_ub) handed to the solver's API (child process)."""
    from optmech.lp.additive import build_additive_lp  # noqa: F401  (imported before the clock)

    start = time.perf_counter()
    lp = _build(m, k, monotone)
    matrices = time.perf_counter() - start
    out = solve_direct(solver, "additive", lp.c, lp.a_eq, np.ones(1), lp.a_ub, lp.b_ub)
    return {**out, "total": time.perf_counter() - start, "build": matrices + out["build"]}


def scaling_exponent(cells: list[float], seconds: list[float]) -> float | None:
    """Least-squares slope of log(seconds) against log(cells) (None with < 2 points)."""
    pts = [(c, s) for c, s in zip(cells, seconds, strict=True) if c > 0 and s and s > 0]
    if len(pts) < 2:
        return None
    x = np.log([p[0] for p in pts])
    y = np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def run(quick: bool, timeout: float, periods: int = 20) -> list[dict[str, Any]]:
    """Rows of the additive section (plus one ``scaling`` row per solver)."""
    from optmech.lp.solve import available_solvers

    sizes = [10, 30, 100] if quick else [10, 30, 100, 300, 1000]
    solvers = [s for s in ("HIGHS", "CLARABEL") if s in available_solvers()]
    rows: list[dict[str, Any]] = []
    for m in sizes:
        for solver in solvers:
            # HiGHS (simplex) takes minutes above m ≈ 300 at 20 periods (SOLVER_POLICY).
            if solver == "HIGHS" and m > 300:
                continue
            rows.append(_one(m, periods, solver, False, timeout))
    big = sizes[-1]
    rows.append(_one(big, periods, "CLARABEL", True, timeout))
    for solver in solvers:
        sub = [
            r
            for r in rows
            if r["solver"] == solver
            and not r["monotone"]
            and r["status"] in ("optimal", "optimal_inaccurate")
        ]
        expo = scaling_exponent([r["cells"] for r in sub], [r["solve"] for r in sub])
        total = scaling_exponent([r["cells"] for r in sub], [r["total"] for r in sub])
        row = {
            "section": "additive",
            "kind": "scaling",
            "solver": solver,
            "cells": [r["cells"] for r in sub],
            "solve_exponent": expo,
            "total_exponent": total,
        }
        print(
            f"[additive] scaling {solver}: solve time ∝ cells^{expo}, total ∝ cells^{total}",
            flush=True,
        )
        rows.append(row)
    return rows


def _one(m: int, k: int, solver: str, monotone: bool, timeout: float) -> dict[str, Any]:
    row: dict[str, Any] = {
        "section": "additive",
        "m": m,
        "periods": k,
        "solver": solver,
        "monotone": monotone,
    }
    kwargs = {"m": m, "k": k, "solver": solver, "monotone": monotone}
    # The pipeline and the direct call alternate (A B A B ...), so load changes fall on both.
    pipe, direct = run_cases(
        [(MODULE, "pipeline_case", kwargs), (MODULE, "direct_case", kwargs)], timeout
    )
    row.update(pipe)
    row["solver"] = solver
    if pipe["status"] in ("optimal", "optimal_inaccurate"):
        row["direct_total"] = direct.get("total")
        row["direct_total_min"] = direct.get("total_min")
        row["direct_status"] = direct.get("status_solver", direct["status"])
        if direct.get("total"):
            row["pipeline_over_direct"] = pipe["total"] / direct["total"]
            row["compile_share"] = pipe["compile"] / pipe["total"]

    f = functools.partial(fmt_field, row)

    print(
        f"[additive] m={m} k={k} {solver}{' monotone' if monotone else ''}: {row['status']} "
        f"total {f('total')} s (build {f('build')}, compile {f('compile')}, solve "
        f"{f('solve')}, certify {f('certify')}), gap {f('gap_to_closed_form', '+.1e')}, "
        f"pipeline/direct {f('pipeline_over_direct')}, rss {f('peak_rss_mb', '.0f')} MB, "
        f"load {f('load')}",
        flush=True,
    )
    return row
