"""2-D additive ε-DP noise LP (``optmech.design_noise(dimension=2)``), ℓ1 cost, Δ = 1, ε = 1.

Per ball of shifts (ℓ1, ℓ2, ℓ∞), resolution m (cells per Δ) and periods K, in a fresh
process with a wall-clock limit: the phases — ``build`` (orbits, costs, tail series, window and
band rows), ``compile`` (cvxpy), ``solve`` (HiGHS), ``certify`` (repair, the independent 2-D
certificate, the certified interval) —, the LP's size, the peak resident memory
(``VmHWM``, see ``benchmarks._process``), and the gap of the value to the d-dimensional
staircase. The performance targets are the first case (ℓ∞, m = 8, K = 6: solved and certified
in under 60 s) and, on the ladder, m = 20 at K = 4 for each ball in under 60 s (measured on 2
shared cores: 40-53 s with HiGHS's interior point, against 226-310 s with dual simplex); m = 32
is estimated at 2.0-2.6 GB, below the default ``max_memory_gb``, and takes far longer than the
ladder's limit (ℓ∞: 1184 s, 1.6 GB above the imports; ``benchmarks.size2d``). The "ladder"
grows m at K = 4 for each ball until a case exceeds the time limit (``LADDER_LIMIT``, 90 s, or
``--timeout`` if less), so the last case that finished is the largest grid solved within it.
"""

from __future__ import annotations

import time
from typing import Any

from benchmarks._common import run_case

MODULE = "benchmarks.additive2d"


def design_case(norm: str, m: int, k: int) -> dict[str, Any]:
    """Build, solve and certify one 2-D design; phases in seconds (child process).

    The solve is the design's own (``solve_built``: every attempt of ``solve_robust``, the
    failed ones listed in ``attempts``), so a case ends as ``design_noise`` would.
    """
    import optmech
    from optmech.costs.norm import Norm
    from optmech.lp.additive2d import AdditiveSpec2D, build_additive_lp_2d, finish_design_2d
    from optmech.lp.engine.run import DesignRun
    from optmech.lp.engine.solving import solve_built

    t0 = time.perf_counter()
    spec = AdditiveSpec2D(optmech.PureDP(1.0), 1.0, "l1", norm, resolution=m, periods=k)
    lp = build_additive_lp_2d(spec)
    t1 = time.perf_counter()
    solved, info = solve_built(lp, DesignRun(), kind="additive2d", feasible=True, fresh=True)
    t2 = time.perf_counter()
    noise = finish_design_2d(solved, info)
    t3 = time.perf_counter()
    best = optmech.StaircaseND.optimal(epsilon=1.0, cost=Norm(1), norm=norm)
    return {
        "total": t3 - t0,
        "build": t1 - t0,
        "compile": info.compile_time,
        "solve": info.solve_time,
        "certify": t3 - t2,
        "status": info.status,
        "solver": info.solver,
        "variables": info.num_variables,
        "rows": info.num_constraints,
        "cells": (2 * spec.cells) ** 2,
        "value": noise.value,
        "interval": (noise.value - noise.lower_bound) / noise.value,
        "gap_to_staircase_nd": noise.value / best.expected_cost(Norm(1)) - 1.0,
        "certified_epsilon": noise.certified_epsilon,
        "attempts": [f"{a.variant}: {a.status} ({a.seconds:.3g} s)" for a in info.attempts],
    }


#: Seconds per case of the ladder (at most ``--timeout``): the ladder stops at the first case
#: over it, so its last solved case is the largest grid solved within this limit.
LADDER_LIMIT = 90.0


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """The target case, then a resolution ladder per ball until one exceeds `LADDER_LIMIT`."""
    rows = []
    target = run_case(MODULE, "design_case", timeout, norm="linf", m=4 if quick else 8, k=6)
    rows.append({"section": "additive2d", "kind": "target", "norm": "linf",
                 "m": 4 if quick else 8, "periods": 6, **target})  # fmt: skip
    ladder = (2, 4, 6) if quick else (8, 12, 16, 20, 24, 32)
    limit = min(timeout, LADDER_LIMIT)
    for norm in ("linf", "l2", "l1"):
        for m in ladder:
            out = run_case(MODULE, "design_case", limit, norm=norm, m=m, k=4)
            rows.append(
                {"section": "additive2d", "kind": "ladder", "norm": norm, "m": m, "periods": 4,
                 **out}
            )  # fmt: skip
            if out["status"] not in ("optimal", "optimal_inaccurate"):
                break
    return rows
