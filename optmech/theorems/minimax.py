"""Checks of minimax users and of the impossibility beyond one count query, group ``count-lp``.

1. **Minimax optimality** (Gupte & Sundararajan (2010), Thm. 1): for a minimax user (side
   information ``S``, loss monotone in ``|i − r|``) the optimum over all ε-DP mechanisms equals
   that of ``G`` followed by the best *randomized* remap. Both sides are LP optima, each with a
   certified interval (`optmech.minimax_mechanism`,
   `optmech.geometric_minimax`); the theorem equates them, so a row
   passes when the two intervals intersect. No tolerance.
2. **Brenner & Nissim** (2014), Thm. 1: on the grid graph of two count queries, a user who
   wants the sum and a user who wants the first count have no common optimal mechanism. The
   joint LP of `optmech.common_mechanism` has a rigorous dual lower
   bound on the best common loss ratio, and the row passes when that bound exceeds 1. And ``G ⊗ G``
   with the Bayes remap (the geometric mechanism's analogue, its value in ball arithmetic) is
   strictly worse than the certified optimum for the sum.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import flint
import numpy as np

from optmech import (
    InaccurateSolutionWarning,
    bayesian_mechanism,
    common_mechanism,
    geometric_minimax,
    minimax_mechanism,
)
from optmech.costs import as_cost
from optmech.graphs import grid_graph, node_values
from optmech.theorems import _enclose as enc
from optmech.theorems._support import (
    interval_of,
    loss_matrix,
    random_users,
)
from optmech.theorems.catalogue import (
    CheckResult,
    agreement_row,
    bound_row,
    check,
    check_cases,
)

__all__ = ["brenner_nissim_rows", "minimax_optimality_check", "minimax_rows"]

GROUP = "count-lp"


def minimax_optimality_check(
    loss: Any,
    epsilon: float,
    side_information: Any = None,
    *,
    n: int | None = None,
    label: str = "",
) -> CheckResult:
    """One instance of Gupte & Sundararajan: minimax LP optimum vs ``G`` + best randomized remap.

    ``loss`` is a cost (then ``n`` is needed) or a square loss matrix, monotone in ``|i − r|``
    (`ValueError` otherwise). Both sides are LP optima with certified intervals; the
    row passes when they intersect and both are decisive.

    Examples
    --------
    >>> minimax_optimality_check("abs", 1.0, [0, 3], n=4).passed
    True
    """
    start = time.perf_counter()
    if n is not None and not isinstance(loss, np.ndarray | list | tuple):
        loss = as_cost(loss)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InaccurateSolutionWarning)
        ref = geometric_minimax(loss, epsilon, n=n, side_information=side_information)
        lp = minimax_mechanism(loss, epsilon, n=n, side_information=side_information)
    flagged = " (a solver flagged its interval wide)" if caught else ""
    size = lp.loss.shape[0] - 1
    side = [] if lp.side_information is None else lp.side_information.tolist()
    shown = side if len(side) <= 6 else f"{len(side)} inputs"
    return agreement_row(
        "minimax optimality (G + randomized remap)",
        label or f"n={size}, eps={lp.epsilon:.4g}, S={shown}",
        first=interval_of(lp),
        second=interval_of(ref),
        group=GROUP,
        detail=f"minimax LP ({lp.solver}) vs G + best randomized remap (LP, {ref.solver})"
        f"{flagged}; Gupte & Sundararajan: equal optima",
        certified_epsilon=lp.certified_epsilon,
        seconds=time.perf_counter() - start,
    )


def minimax_rows(*, seed: int, count: int, n_range: tuple[int, int]) -> list[CheckResult]:
    """`minimax_optimality_check` for random losses and side-information
    sets."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, n, eps, _, label, loss in random_users(rng, count, n_range, prior=False):
        size = int(rng.integers(1, n + 2))
        side = np.sort(rng.choice(n + 1, size=size, replace=False)).tolist()
        shown = side if len(side) <= 6 else f"{len(side)} inputs"
        rows.append(
            minimax_optimality_check(
                loss_matrix(loss, n),
                eps,
                side,
                label=f"n={n}, eps={eps:.4g}, {label}, S={shown}, seed={seed}#{k}",
            )
        )
    return rows


@check("minimax optimality (G + randomized remap)", group=GROUP, quick=True)
def _minimax_quick() -> list[CheckResult]:
    return minimax_rows(seed=40, count=10, n_range=(3, 20))


@check("minimax optimality (sweep n ≤ 50)", group=GROUP, quick=False)
def _minimax_sweep() -> list[CheckResult]:
    return minimax_rows(seed=41, count=14, n_range=(13, 50))


# --------------------------------------------------------------------------------------------
# Brenner & Nissim
# --------------------------------------------------------------------------------------------
def _kron(a: flint.arb_mat, b: flint.arb_mat) -> flint.arb_mat:
    ra, ca, rb, cb = a.nrows(), a.ncols(), b.nrows(), b.ncols()
    return flint.arb_mat(
        [[a[i // rb, j // cb] * b[i % rb, j % cb] for j in range(ca * cb)] for i in range(ra * rb)]
    )


def brenner_nissim_rows(cases: list[tuple[int, float]]) -> list[CheckResult]:
    """Two count queries (grid graph): no mechanism is optimal for both users."""
    rows = []
    for k, eps in cases:
        start = time.perf_counter()
        graph = grid_graph((k, k))
        values = node_values(graph)
        prior = np.full(len(values), 1.0 / len(values))
        loss_sum = np.abs(np.arange(2 * k - 1)[None, :] - values.sum(axis=1)[:, None])
        loss_first = np.abs(np.arange(k)[None, :] - values[:, 0][:, None])
        opt_sum = bayesian_mechanism(prior, loss_sum, eps, graph=graph)
        opt_first = bayesian_mechanism(prior, loss_first, eps, graph=graph)
        joint = common_mechanism(
            [prior, prior],
            [loss_sum, loss_first],
            eps,
            graph=graph,
            optima=[interval_of(opt_sum)[1], interval_of(opt_first)[1]],
        )
        instance = f"grid {k}x{k}, eps={eps:g}, uniform prior"
        lower, upper = interval_of(joint)
        rows.append(
            bound_row(
                "Brenner–Nissim: no common optimal mechanism",
                instance,
                value=(lower, upper),
                reference=(1.0, 1.0),
                relation=">",
                group=GROUP,
                detail=f"users |r − (a+b)| and |r − a|; any single mechanism, remapped by each "
                f"user, loses a factor in [{lower:.9f}, {upper:.9f}] for one of them (joint LP "
                "on output pairs: rigorous dual bound, users' optima taken as certified upper "
                "ends); a lower bound > 1 proves no common optimum",
                certified_epsilon=joint.certified_epsilon,
                seconds=time.perf_counter() - start,
            )
        )
        start = time.perf_counter()
        with enc.precision():
            g1 = enc.geometric_matrix(k - 1, eps)
            product = _kron(g1, g1)  # independent geometric noise on each count: ε-DP here
            via_sum = enc.bounds(enc.bayes_remap_value(product, prior, loss_sum))
        sum_interval = interval_of(opt_sum)
        rows.append(
            bound_row(
                "Brenner–Nissim: G ⊗ G is not universally optimal",
                instance,
                value=via_sum,
                reference=sum_interval,
                relation=">",
                group=GROUP,
                detail=f"sum user: G⊗G + Bayes remap in [{via_sum[0]:.9g}, {via_sum[1]:.9g}] "
                f"(ball arithmetic) vs LP optimum in [{sum_interval[0]:.9g}, "
                f"{sum_interval[1]:.9g}] (certified)",
                seconds=time.perf_counter() - start,
            )
        )
    return rows


check_cases(
    "Brenner–Nissim (two count queries)",
    "Brenner–Nissim (sweep)",
    group=GROUP,
    rows=brenner_nissim_rows,
    quick=[(3, 1.0), (4, 0.5), (4, 2.0)],
    # Not ε = 0.1: on grids this small both users' optimum is then the constant answer (the
    # posterior median), so a common optimal mechanism exists trivially (measured: ratio 1).
    sweep=[(k, e) for k in (3, 5, 6) for e in (0.5, 1.0, 3.0)],
)
