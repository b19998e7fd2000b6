"""Continuous Gaussian-DP designs (``design_noise(GaussianDP(μ), sensitivity=1, cost="abs")``)
against the Gaussian mechanism itself, E|N(0, 1/μ²)| = √(2/π)/μ (Dong, Roth & Su 2022).

Per case (μ, cells per Δ, accuracy, solver; the default support, 7 periods at μ = 1): the
whole design's time in a fresh process and its peak resident memory, the cutting-plane rounds,
the certified interval ``[lower_bound, value]`` and its relative width, the value's gap to the
Gaussian's closed form (above 0: this grid cannot reach the Gaussian), where the returned noise
came from (``reference``: the grid Gaussian) and the certified μ.
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Any

from benchmarks._common import run_case

MODULE = "benchmarks.gdp"


def design_case(mu: float, m: int, accuracy: float, solver: str | None) -> dict[str, Any]:
    """One GDP design, timed (child process)."""
    import optmech
    from optmech.lp.design import design_noise

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a wide interval is reported in the row, not raised
        noise = design_noise(
            optmech.GaussianDP(mu),
            sensitivity=1,
            cost="abs",
            resolution=m,
            accuracy=accuracy,
            solver=solver,
        )
    total = time.perf_counter() - t0
    gaussian = math.sqrt(2.0 / math.pi) / mu
    return {
        "total": total,
        "status": noise.provenance.status,
        "solver": noise.provenance.solver,
        "rounds": len(noise.provenance.rounds),
        "value": noise.value,
        "lower_bound": noise.lower_bound,
        "interval": (noise.value - noise.lower_bound) / noise.value,
        "gap_to_gaussian": noise.value / gaussian - 1.0,
        "source": noise.record.source,
        "certified_mu": noise.certified_mu,
    }


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """The default design (8 cells per Δ, accuracy 1e-6), a loose-accuracy one (stopped at the
    first round whose lower bound is within 2% of the grid Gaussian), coarse grids, and the
    default design at μ = 0.5 and 2."""
    cases = [(1.0, 2, 1e-6), (1.0, 4, 1e-6)]
    if not quick:
        cases += [(1.0, 8, 0.02), (1.0, 8, 1e-6), (0.5, 8, 1e-6), (2.0, 8, 1e-6)]
    rows = []
    for mu, m, accuracy in cases:
        out = run_case(MODULE, "design_case", timeout, mu=mu, m=m, accuracy=accuracy, solver=None)
        rows.append({"section": "gdp", "mu": mu, "m": m, "accuracy": accuracy, **out})
    return rows
