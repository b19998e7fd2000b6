"""Unbiased local randomizers at every ε the designer accepts, up to its largest (50), and caps
at the least value they can take (the edges of the constrained LPs' repair).

At a large ε the debiasing outputs carry about ``e^(−ε)`` of the mass, below any solver's
tolerance; the repair must still return a mechanism that is exactly what it claims. Independent
truth, computed here:

* the privacy of the returned matrix, by the largest log ratio of two entries of a column over
  every pair of labels (a direct computation, not the library's certifier);
* unbiasedness and row sums, by the matrix's own means and sums;
* the value, by the expected squared error of the returned matrix under the prior, and bounded
  below by the least variance of any distribution on the grid with mean ``x``: ``(x − a)(b − x)``
  for ``a``, ``b`` the grid points around ``x`` (a mean-``x`` distribution's variance is at least
  that of the two-point one on its neighbours), which every unbiased mechanism pays, private or
  not.
"""

from __future__ import annotations

import numpy as np
import pytest

import optmech
from optmech.constraints import Unbiased
from optmech.lp.matrix.repair import bracket_means

LABELS = np.array([0.0, 1.0, 2.0, 5.0])
#: The grid ``optmech local --unbiased`` uses for these labels by default.
GRID = np.linspace(-10.0, 15.0, 121)


def _log_ratio(mechanism: np.ndarray) -> float:
    """The largest ``log Q[i, r] / Q[j, r]`` over rows ``i, j`` and used columns ``r``."""
    used = mechanism.max(axis=0) > 0
    q = mechanism[:, used]
    if np.any(q == 0):
        return float("inf")
    logs = np.log(q)
    return float(np.max(logs.max(axis=0) - logs.min(axis=0)))


def _interpolation_floor(x: np.ndarray, grid: np.ndarray, prior: np.ndarray) -> float:
    hi = np.searchsorted(grid, x, side="left")
    on = grid[np.minimum(hi, grid.size - 1)] == x
    a, b = grid[np.maximum(hi - 1, 0)], grid[np.minimum(hi, grid.size - 1)]
    return float(np.sum(prior * np.where(on, 0.0, (x - a) * (b - x))))


@pytest.mark.parametrize("eps", [17.0, 18.0, 20.0, 22.0, 25.0, 30.0, 40.0, 50.0])
def test_unbiased_design_holds_at_large_epsilon(eps: float) -> None:
    prior = np.full(4, 0.25)
    res = optmech.local_mechanism(
        prior, "squared", eps, inputs=LABELS, outputs=GRID, constraints=Unbiased()
    )
    q = res.mechanism
    assert np.all(q >= 0.0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(q @ GRID, LABELS, rtol=0, atol=1e-9)
    ratio = _log_ratio(q)
    assert ratio <= eps * (1 + 1e-12)
    assert res.certified_epsilon <= eps
    assert abs(res.certified_epsilon - ratio) <= 1e-9 * eps
    direct = float(prior @ np.sum(q * (GRID[None, :] - LABELS[:, None]) ** 2, axis=1))
    assert res.value == pytest.approx(direct, rel=1e-9)
    floor = _interpolation_floor(LABELS, GRID, prior)
    assert res.lower_bound <= res.value
    assert res.value >= floor * (1 - 1e-12)
    assert res.value <= floor * (1 + 1e-3)  # the price of privacy vanishes like e^(−ε)


def test_means_on_the_edge_of_a_row_support_are_bracketed() -> None:
    """A row whose mean is its support's smallest output (the solver's zeros at a large ε):
    mass at the nearest outputs beyond the means makes every row's mean exact, nothing
    negative."""
    outputs = np.array([-1.0, 0.0, 1.0, 2.0, 3.0])
    means = np.array([0.0, 2.0])
    y = np.array([[0.0, 1.0, 1e-13, 0.0, 0.0], [0.0, 1e-13, 0.0, 1.0, 0.0]])
    fixed = bracket_means(y, outputs, means)
    assert fixed is not None
    out, _ = fixed
    assert np.all(out >= 0.0)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(out @ outputs, means, rtol=0, atol=1e-15)
    assert bracket_means(y, np.array([0.0, 1.0, 2.0, 3.0, 4.0]), means) is None


def test_a_risk_cap_a_hair_above_the_least_worst_risk_is_met_or_refused_by_tolerance() -> None:
    """``MaxRisk`` at 1e-10 (relative) above the least worst-case risk (the minimax optimum,
    with ``Unbiased``): either a mechanism whose every row's expected loss, computed here,
    is within the tolerance of the cap, or an InfeasibleConstraintsError that names the cap
    and the tolerance; never a solver's or repair's failure."""
    from optmech.constraints import MaxRisk

    x = np.array([16.0, 17.0, 28.0])
    prior = np.array([0.6847, 0.0215, 0.2938])
    grid = np.linspace(x[0] - 36.0, x[-1] + 36.0, 61)
    worst = optmech.local_mechanism(
        None, "abs", 8.0, objective="minimax", inputs=x, outputs=grid, constraints=Unbiased()
    )
    cap = MaxRisk(worst.value * (1 + 1e-10))
    try:
        res = optmech.local_mechanism(
            prior, "abs", 8.0, inputs=x, outputs=grid, constraints=[Unbiased(), cap]
        )
    except optmech.InfeasibleConstraintsError as exc:
        assert exc.constraints == (cap.name,) and "tolerance 1e-09" in str(exc)
        return
    risks = np.sum(res.mechanism * np.abs(grid[None, :] - x[:, None]), axis=1)
    assert np.all(risks <= cap.bound * (1 + 1e-9))


@pytest.mark.parametrize("above", [1e-10, 1e-9])
def test_a_count_query_cap_at_the_least_worst_risk_is_met_or_refused_by_tolerance(
    above: float,
) -> None:
    """The same for a Bayesian user of a count query (the GRS LP with constraints): a cap
    ``MaxRisk`` at ``above`` (relative) over the lower end of the minimax optimum's certified
    interval, where the solvers alone fail."""
    from optmech.constraints import MaxRisk

    prior = np.array([0.1014, 0.0474, 0.1432, 0.6772, 0.0309])
    prior /= prior.sum()
    worst = optmech.minimax_mechanism("squared", 8.0, n=4)
    cap = MaxRisk(worst.lower_bound * (1 + above))
    try:
        res = optmech.bayesian_mechanism(prior, "squared", 8.0, constraints=[cap])
    except optmech.InfeasibleConstraintsError as exc:
        assert exc.constraints == (cap.name,) and "tolerance 1e-09" in str(exc)
        return
    values = np.arange(5.0)
    outputs = np.asarray(res.outputs, dtype=float)
    risks = np.sum(res.mechanism * (outputs[None, :] - values[:, None]) ** 2, axis=1)
    assert np.all(risks <= cap.bound * (1 + 1e-9))
