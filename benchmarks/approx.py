"""Additive (ε, δ) noise at practical δ (optmech.design_noise, default settings), Δ = 1.

Per (ε, δ) and cost (|e|, e²): the whole design in a fresh process — wall time, peak memory,
the grid the defaults chose (cells per Δ, periods), the certified δ, the relative width of the
certified interval, and the value against the truncated Laplace of Geng, Ding, Guo & Kumar
(2020), density ∝ ``e^(−ε|x|)`` on ``[−A, A]``, ``A = ln(1 + (e^ε − 1)/(2δ))/ε``, in closed
form. The target: ε in [0.1, 5] and δ in [1e-12, 1e-2] each within 30 s and 1 GB on 2 cores,
never above the truncated Laplace. Below ``DELTA_MIN`` of ``optmech.lp.additive.spec`` (1e-11)
the ε-DP design answers, its lower bound from the LP at 1e-11 (``source`` says which design was
returned: ``pure`` or the LP's ``solver``).
"""

from __future__ import annotations

import functools
import math
import time
from typing import Any

from benchmarks._common import fmt_field, run_cases

MODULE = "benchmarks.approx"


def truncated_laplace(epsilon: float, delta: float, cost: str) -> float:
    """E|X| or E X² of the truncated Laplace (Geng, Ding, Guo & Kumar 2020), Δ = 1."""
    lam = 1.0 / epsilon
    a = lam * math.log1p(math.expm1(epsilon) / (2.0 * delta))
    tail = math.exp(-a / lam) / -math.expm1(-a / lam)
    if cost == "abs":
        return lam - a * tail
    return 2.0 * lam * lam - (a * a + 2.0 * a * lam) * tail


def design_case(epsilon: float, delta: float, cost: str) -> dict[str, Any]:
    """One default design (child process)."""
    import warnings

    import optmech
    from optmech.privacy import ApproxDP

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a wide interval is reported in the row
        noise = optmech.design_noise(ApproxDP(epsilon, delta), sensitivity=1, cost=cost)
    total = time.perf_counter() - start
    prov = noise.provenance
    reference = truncated_laplace(epsilon, delta, cost)
    return {
        "total": total,
        "status": prov.status,
        "solver": prov.solver,
        "m": noise.period,
        "cells": len(noise.densities),
        "value": prov.value,
        "interval": (prov.value - prov.lower_bound) / prov.value,
        "certified_delta": noise.certified_delta,
        "source": noise.record.source,
        "truncated_laplace": reference,
        "value_over_truncated_laplace": prov.value / reference,
    }


def cases(quick: bool) -> list[tuple[float, float]]:
    """The (ε, δ) grid: quick, the target's corners; full, ε × δ."""
    if quick:
        return [(0.1, 1e-12), (1.0, 1e-6), (5.0, 1e-12)]
    return [(e, d) for d in (1e-2, 1e-6, 1e-9, 1e-12) for e in (0.1, 0.3, 1.0, 2.0, 5.0)]


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the approx section, one per (ε, δ, cost)."""
    rows: list[dict[str, Any]] = []
    for epsilon, delta in cases(quick):
        for cost in ("abs", "sq"):
            kwargs = {"epsilon": epsilon, "delta": delta, "cost": cost}
            (out,) = run_cases([(MODULE, "design_case", kwargs)], timeout)
            row = {"section": "approx", **kwargs, **out}
            f = functools.partial(fmt_field, row)
            print(
                f"[approx] ε={epsilon:g} δ={delta:g} {cost}: {row['status']} total "
                f"{f('total')} s, m {row.get('m', '–')}, cells {row.get('cells', '–')}, "
                f"interval {f('interval', '.1e')}, value/TL "
                f"{f('value_over_truncated_laplace', '.4f')}, certified δ "
                f"{f('certified_delta', '.3g')} ({row.get('source', '–')}), "
                f"rss {f('peak_rss_mb', '.0f')} MB, "
                f"load {f('load')}",
                flush=True,
            )
            rows.append(row)
    return rows
