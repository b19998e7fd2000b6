"""The dual certificate of the staircase on the additive designer's grid
(``optmech.theorems.staircase_dual``).

Independent truth:

* the LP optimum comes from optmech's additive designer (``design_additive``: the full window
  over all pairs of cells, no symmetry or monotonicity imposed), with its own certified
  interval: the two intervals must intersect;
* the candidate's cost is the expected cost of the continuous staircase density of Geng &
  Viswanath (2016), eq. (22), with ``γ = step/m``, summed here period by period with
  `math.fsum` (a density constant on the grid's cells costs exactly its cell-averaged
  cost), and the best step is found here by brute force over every ``γ = g/m``;
* a staircase whose step is moved is not optimal: its cost, computed here, exceeds the
  optimum's, and the certificate must fail.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _reference import staircase_cost_by_periods

from optmech.theorems import StaircaseCertificate, staircase_certificate
from optmech.theorems.certificate_rows import certificate_rows


@pytest.mark.parametrize("cost", ["abs", "squared"])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_interval_meets_the_designers_lp(eps: float, cost: str) -> None:
    """The designer's LP over all grid densities (window rows over every pair of cells m
    apart or less) has its optimum in the certificate's interval: the intervals intersect."""
    from optmech.lp.additive import AdditiveSpec, design_additive
    from optmech.lp.engine.run import DesignRun
    from optmech.privacy import PureDP

    spec = AdditiveSpec(
        PureDP(eps), sensitivity=1.0, cost=cost, resolution=10, periods=3, window="pairs"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = design_additive(spec, DesignRun())
    cert = staircase_certificate(eps, cost, resolution=10, periods=3)
    assert cert.certified
    assert cert.lower_bound <= lp.value and lp.lower_bound <= cert.value


@pytest.mark.parametrize("cost", ["abs", "squared"])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_value_is_the_best_grid_staircase(eps: float, cost: str) -> None:
    """The step is the brute-force best over ``γ = g/m`` and the value is that staircase's
    cost (each cost a sum of positive terms: within 1e-12 relative)."""
    m = 24
    costs = [staircase_cost_by_periods(eps, g / m, cost) for g in range(1, m + 1)]
    best = int(np.argmin(costs)) + 1
    cert = staircase_certificate(eps, cost, resolution=m, periods=3)
    assert cert.step == best
    assert cert.value == pytest.approx(costs[best - 1], rel=1e-12)
    assert cert.certified and cert.lower_bound <= cert.value


@pytest.mark.parametrize("cost", ["abs", "squared"])
@pytest.mark.parametrize("shift", [-2, 2])
def test_a_moved_step_fails(cost: str, shift: int) -> None:
    """A staircase with its step two cells off the best is not optimal: its cost exceeds the
    best one's (computed here), the certificate fails and names a cell where the dual point
    falls below its value."""
    m, eps = 30, 1.0
    costs = [staircase_cost_by_periods(eps, g / m, cost) for g in range(1, m + 1)]
    best = int(np.argmin(costs)) + 1
    assert costs[best - 1 + shift] > costs[best - 1] * (1 + 1e-6)  # the precondition
    bad = staircase_certificate(eps, cost, resolution=m, step=best + shift)
    assert not bad.certified
    assert bad.value >= costs[best - 1 + shift] * (1 - 1e-12)
    assert bad.lower_bound <= costs[best - 1] * (1 + 1e-12)
    j, k = bad.worst_row
    assert -3 * m <= j < 3 * m and k == j // m
    assert bad.worst_violation > 0
    assert bad.row_duals[j + 3 * m] == bad.lower_bound or bad.row_duals.min() > bad.lower_bound


def test_result_protocol() -> None:
    cert = staircase_certificate(1.0, "squared", resolution=12)
    assert isinstance(cert, StaircaseCertificate)
    assert cert.upper_bound == cert.value and cert.gap == cert.value - cert.lower_bound
    assert cert.certified_epsilon == 1.0
    assert cert.assignment.shape == (cert.n,) == (2 * 3 * 12,)
    assert "staircase" in cert.summary() and "StaircaseCertificate(" in repr(cert)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"resolution": 1}, "resolution"),
        ({"periods": 1}, "periods"),
        ({"step": 0}, "step"),
        ({"sensitivity": -1.0}, "sensitivity"),
        ({"cost": lambda e: np.abs(e) - 1.0}, "non-negative"),
        ({"epsilon": 0.0}, "epsilon"),
    ],
)
def test_bad_input_raises(kwargs: dict, match: str) -> None:
    args = {"epsilon": 1.0, "cost": "abs", "resolution": 10} | kwargs
    with pytest.raises(ValueError, match=match):
        staircase_certificate(args.pop("epsilon"), args.pop("cost"), **args)


def test_catalogue_rows_include_the_staircase() -> None:
    rows = [r for r in certificate_rows(20) if r.check.startswith("staircase")]
    assert len(rows) == 6 and all(r.passed for r in rows)
    assert all("worst dual row: cell" in r.detail for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("cost", ["abs", "squared"])
def test_a_large_grid_certifies(cost: str) -> None:
    """10^5 cells per Δ (600 000 cells): the value is the continuous staircase's at
    ``γ = step/m`` and the interval is within the accuracy."""
    m, eps = 100_000, 1.0
    cert = staircase_certificate(eps, cost, resolution=m)
    assert cert.certified
    expected = staircase_cost_by_periods(eps, cert.step / m, cost)
    assert cert.value == pytest.approx(expected, rel=1e-11)
