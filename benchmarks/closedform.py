"""Closed forms against the LP that reaches the same answer (how much the theorems save).

* ε-DP noise for |e| (and e²), Δ = 1: ``Staircase.optimal(...).expected_cost`` (Geng &
  Viswanath 2016) against ``design_noise`` (resolution 100, 20 periods): time ratio, value gap.
* GRS count query, uniform prior, |e| loss: ``geometric_bayes`` (G + Bayes remap, GRS
  Thm. 3.1) against ``bayesian_mechanism`` (the LP): time ratio, value gap.

Both sides run in this process, one after the other (ratios within one run), after one
untimed call of each (so imports are not counted): min and median over at least 3 calls.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks._common import load, repeats, timings


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the closed-form section."""
    import optmech
    from optmech.lp.design import design_noise
    from optmech.lp.geometric_remaps import geometric_bayes
    from optmech.lp.user import bayesian_mechanism
    from optmech.mechanisms.staircase import Staircase

    rows: list[dict[str, Any]] = []
    m = 50 if quick else 100
    runs = max(repeats(), 3)
    for cost in ("abs", "squared"):

        def closed(c: str = cost) -> float:
            return Staircase.optimal(epsilon=1.0, cost=c).expected_cost(c)

        def lp(c: str = cost) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return design_noise(
                    optmech.PureDP(1.0), sensitivity=1.0, cost=c, resolution=m, periods=20
                ).value

        case = f"staircase vs additive LP ({cost}, m={m}, 20 periods)"
        rows.append(_row(case, closed, lp, runs))
    for n in [50, 100] if quick else [50, 100, 200]:
        i = np.arange(n + 1)
        prior = np.full(n + 1, 1.0 / (n + 1))
        loss = np.abs(i[:, None] - i[None, :]).astype(np.float64)

        def closed_grs(p: Any = prior, ls: Any = loss) -> float:
            return geometric_bayes(p, ls, 0.5).value

        def lp_grs(p: Any = prior, ls: Any = loss) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return bayesian_mechanism(p, ls, 0.5).value

        rows.append(_row(f"G + Bayes remap vs GRS LP (n={n}, eps=0.5)", closed_grs, lp_grs, runs))
    return rows


def _row(
    case: str, closed: Callable[[], float], lp: Callable[[], float], runs: int
) -> dict[str, Any]:
    closed_value, lp_value = closed(), lp()  # also the untimed first calls
    cf_min, t_cf = timings(closed, max(runs, 5))
    lp_min, t_lp = timings(lp, runs)
    row = {
        "section": "closedform",
        "case": case,
        "runs": runs,
        "closed_form_s": t_cf,
        "closed_form_s_min": cf_min,
        "lp_s": t_lp,
        "lp_s_min": lp_min,
        "lp_over_closed_form": t_lp / t_cf,
        "closed_form_value": closed_value,
        "lp_value": lp_value,
        "relative_gap": (lp_value - closed_value) / closed_value,
        "load": load(),
    }
    print(
        f"[closedform] {case}: closed form {t_cf * 1e3:.2f} ms, LP {t_lp:.2f} s "
        f"({row['lp_over_closed_form']:.3g}x), value gap {row['relative_gap']:+.1e}, "
        f"load {row['load']:.2f}",
        flush=True,
    )
    return row
