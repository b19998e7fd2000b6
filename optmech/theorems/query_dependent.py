"""Checks of query-output-dependent noise (Geng & Viswanath (2016), Thm. 10), group ``count-lp``.

When the noise law may depend on the query value (periodic in it, period ``P``), the worst case
over query values cannot beat the best query-independent noise, which for an integer query is
the discrete staircase (Geng & Viswanath (2016), §VI). Each row solves the worst-case LP of
`optmech.dependent_noise_lp` (tails closed exactly, so every feasible
point is an ε-DP family on ℤ and the discrete staircase is feasible: the LP's optimum *is* the
theorem's value) and passes when ``min_r E c(staircase_r)``, enclosed in ball arithmetic
(`optmech.theorems._enclose`), lies in the certified interval
``[lower_bound, value]`` and the returned family certifies at ε with no slack. No allowance, no
tolerance.
"""

from __future__ import annotations

from optmech import dependent_noise_lp
from optmech.costs import as_cost
from optmech.theorems import _enclose as enc
from optmech.theorems._support import timed
from optmech.theorems.catalogue import CheckResult, certificate_row, check_cases

__all__ = ["dependent_rows"]

GROUP = "count-lp"


def _dependent_row(eps: float, delta: int, cost: str, period: int) -> CheckResult:
    lp = dependent_noise_lp(eps, sensitivity=delta, cost=cost, period=period)
    with enc.precision():
        ball, r_star = enc.discrete_staircase_optimum(eps, delta, as_cost(cost))
        reference = enc.bounds(ball)
    prov = lp.provenance
    return certificate_row(
        "query-dependent worst case = independent optimum",
        f"eps={eps:g}, D={delta}, {cost}, period={period}",
        lower=prov.lower_bound,
        upper=prov.value,
        reference=reference,
        group=GROUP,
        detail=f"worst-case LP over {period}-periodic noise families ({lp.solver}, grid "
        f"±{lp.half_width}, tails closed geometrically, repair weight "
        f"{lp.repair_lambda:.1e}) vs discrete staircase r*={r_star} (ball arithmetic)",
        extra_ok=lp.certified_epsilon <= eps,
        extra_rule="certified ε ≤ ε",
        certified_epsilon=lp.certified_epsilon,
    )


def dependent_rows(cases: list[tuple[float, int, str, int]]) -> list[CheckResult]:
    """Worst case over query values of periodic dependent noise = discrete staircase optimum."""
    return [timed(_dependent_row, *case) for case in cases]


check_cases(
    "query-dependent worst case (Geng & Viswanath Thm. 10)",
    "query-dependent worst case (sweep)",
    group=GROUP,
    rows=dependent_rows,
    quick=[
        (1.0, 5, "abs", 2),
        (1.0, 5, "squared", 5),
        (5.0, 10, "abs", 2),
        (0.3, 3, "abs", 6),
        (2.0, 2, "zero-one:1", 4),
        (0.05, 2, "abs", 3),
    ],
    sweep=[
        (e, d, c, p)
        for e in (0.05, 0.5, 2.0, 5.0)
        for d in (1, 3, 6)
        for c in ("abs", "squared", "power:0.5")
        for p in (1, d + 1, 2 * d)
    ],
)
