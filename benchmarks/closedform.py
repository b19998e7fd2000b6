"""Closed forms against the LP that reaches the same answer (how much the theorems save).

* ε-DP noise for |e| (and e²), Δ = 1: ``Staircase.optimal(...).expected_cost`` (Geng &
  Viswanath 2016) against ``design_noise`` (resolution 100, 20 periods): time ratio, value gap.
* GRS count query, uniform prior, |e| loss: ``geometric_bayes`` (G + Bayes remap, GRS
  Thm. 3.1) against ``bayesian_mechanism`` (the LP): time ratio, value gap.

Both sides run in this process, one after the other (ratios within one run).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from benchmarks._common import load, median_seconds


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the closed-form section."""
    import optmech
    from optmech.lp.design import design_noise
    from optmech.lp.remap import geometric_bayes
    from optmech.lp.user import bayesian_mechanism
    from optmech.mechanisms.staircase import Staircase

    rows: list[dict[str, Any]] = []
    m = 50 if quick else 100
    for cost in ("abs", "squared"):
        t_cf = median_seconds(
            lambda c=cost: Staircase.optimal(epsilon=1.0, cost=c).expected_cost(c), 5
        )
        closed = Staircase.optimal(epsilon=1.0, cost=cost).expected_cost(cost)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            noise = design_noise(
                optmech.PureDP(1.0), sensitivity=1.0, cost=cost, resolution=m, periods=20
            )
        t_lp = time.perf_counter() - start
        rows.append(
            _row(
                f"staircase vs additive LP ({cost}, m={m}, 20 periods)",
                t_cf,
                t_lp,
                closed,
                noise.value,
            )
        )
    for n in [50, 100] if quick else [50, 100, 200]:
        i = np.arange(n + 1)
        prior = np.full(n + 1, 1.0 / (n + 1))
        loss = np.abs(i[:, None] - i[None, :]).astype(np.float64)
        t_cf = median_seconds(lambda p=prior, ls=loss: geometric_bayes(p, ls, 0.5), 3)
        closed = geometric_bayes(prior, loss, 0.5).value
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bayesian_mechanism(prior, loss, 0.5)
        t_lp = time.perf_counter() - start
        rows.append(
            _row(f"G + Bayes remap vs GRS LP (n={n}, eps=0.5)", t_cf, t_lp, closed, res.value)
        )
    return rows


def _row(case: str, t_cf: float, t_lp: float, closed: float, lp_value: float) -> dict[str, Any]:
    row = {
        "section": "closedform",
        "case": case,
        "closed_form_s": t_cf,
        "lp_s": t_lp,
        "lp_over_closed_form": t_lp / t_cf,
        "closed_form_value": closed,
        "lp_value": lp_value,
        "relative_gap": (lp_value - closed) / closed,
        "load": load(),
    }
    print(
        f"[closedform] {case}: closed form {t_cf * 1e3:.2f} ms, LP {t_lp:.2f} s "
        f"({row['lp_over_closed_form']:.3g}x), value gap {row['relative_gap']:+.1e}, "
        f"load {row['load']:.2f}",
        flush=True,
    )
    return row
