"""Certified intervals of the user LPs against exact optima, and when optmech warns.

Independent truth: Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1 — for a monotone loss
the optimum of the Bayesian user LP is the geometric mechanism followed by the Bayes remap,
computed here in exact rational arithmetic (``_reference.g_plus_bayes_remap_exact``).

No tolerance is needed. At the float ``ε = fl(ln 2)`` the LP's ``e^(−ε)`` is not exactly 1/2;
``math.exp(−ε)`` is within one ulp of it (libm's exp is faithfully rounded), so the true
``α = e^(−ε)`` lies between the two floats next to ``math.exp(−ε)``, both exact rationals. The
LP's optimum is non-decreasing in ``α`` (a larger ``α`` tightens ``x_a ≤ x_b / α``), so it lies
in ``[OPT(α_lo), OPT(α_hi)]`` — an enclosure about 1e-16 wide — and the certified interval must
satisfy ``lower_bound ≤ OPT(α_hi)`` and ``value ≥ OPT(α_lo)`` exactly. Priors are dyadic and
losses integers, so the LP's weights ``p_i L[i, r]`` are exact in floating point.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from _reference import g_plus_bayes_remap, g_plus_bayes_remap_exact

from optmech.costs import Absolute
from optmech.exceptions import InaccurateSolutionWarning, ProblemTooLargeError
from optmech.graphs import path_graph
from optmech.lp.solve import solve
from optmech.lp.user import (
    LinearObjective,
    LPData,
    UserObjective,
    bayesian_mechanism,
    build_user_lp,
    minimax_mechanism,
    resolve_setting,
)
from optmech.provenance import Provenance, RepairKind

LOSSES = {
    "abs": lambda i, r: abs(i - r),
    "squared": lambda i, r: (i - r) ** 2,
    "zero-one": lambda i, r: int(i != r),
}


def alpha_bracket(eps: float) -> tuple[Fraction, Fraction]:
    """Two floats around e^(−ε) (one ulp each side of math.exp), as exact rationals."""
    a = math.exp(-eps)
    return Fraction(math.nextafter(a, 0.0)), Fraction(math.nextafter(a, 1.0))


def exact_optimum_bracket(prior: list[Fraction], loss: str, eps: float) -> tuple[float, float]:
    """``[OPT(α_lo), OPT(α_hi)]`` in exact arithmetic, rounded outward to floats."""
    n = len(prior) - 1
    lm = [[Fraction(LOSSES[loss](i, r)) for r in range(n + 1)] for i in range(n + 1)]
    lo, hi = alpha_bracket(eps)
    opt_lo = g_plus_bayes_remap_exact(prior, lm, lo)
    opt_hi = g_plus_bayes_remap_exact(prior, lm, hi)
    return math.nextafter(float(opt_lo), -math.inf), math.nextafter(float(opt_hi), math.inf)


def dyadic_prior(n: int, seed: int) -> list[Fraction]:
    """A prior with denominators 2^k (exact in floats), every entry positive."""
    counts = [int(c) for c in np.random.default_rng(seed).integers(1, 8, size=n)]
    scale = 1 << sum(counts).bit_length()  # a power of two above the sum
    return [Fraction(c, scale) for c in counts] + [Fraction(scale - sum(counts), scale)]


CASES = [  # (n, ε, loss, prior seed or None for uniform)
    (3, math.log(2), "abs", None),
    (7, math.log(2), "abs", None),
    (7, math.log(3), "squared", None),
    (5, math.log(2), "zero-one", 1),
    (9, math.log(3), "abs", 2),
    (10, math.log(2), "squared", 3),
]


@pytest.mark.parametrize(("n", "eps", "loss", "seed"), CASES)
def test_interval_contains_the_exact_optimum(
    n: int, eps: float, loss: str, seed: int | None, lp_solver: str
) -> None:
    """``lower_bound ≤ OPT ≤ value`` with no tolerance (module docstring), and the interval
    is certified (at most 1e-6 wide, relative to max(value, 1))."""
    if seed is None:
        assert (n + 1) & n == 0  # uniform prior 1/(n + 1) dyadic
        prior = [Fraction(1, n + 1)] * (n + 1)
    else:
        prior = dyadic_prior(n, seed)
    p = np.array([float(v) for v in prior])
    assert [Fraction(v) for v in p] == prior
    opt_lo, opt_hi = exact_optimum_bracket(prior, loss, eps)
    res = bayesian_mechanism(p, loss, eps, solver=lp_solver, method="full")
    assert res.lower_bound <= opt_hi
    assert res.value >= opt_lo
    assert res.provenance.within_accuracy
    assert res.certified_epsilon <= eps
    assert res.symmetry_reduced == (seed is None)


def test_minimax_interval_contains_the_exact_optimum(lp_solver: str) -> None:
    """Minimax user, S = all inputs, |e|, n = 3, ε = ln 2, against two exact enclosures of
    its optimum: below, the Bayesian optimum for the uniform prior (an average is at most the
    maximum); above, the worst case of ``G`` at ``α_hi`` (a feasible mechanism: ``α_hi`` is
    above the true ``e^(−ε)``, so ``G`` is more private than asked). Both exact, no tolerance
    but the rounding of the last to a float (2^-50 relative, upward)."""
    n, eps = 3, math.log(2)
    res = minimax_mechanism("abs", eps, n=n, solver=lp_solver)
    prior = [Fraction(1, 4)] * 4
    avg_lo, _ = exact_optimum_bracket(prior, "abs", eps)
    _, hi = alpha_bracket(eps)
    worst_g = max(
        sum(
            (hi ** abs(i - r) * (1 - hi) / (1 + hi) if 0 < r < n else hi ** abs(i - r) / (1 + hi))
            * abs(i - r)
            for r in range(n + 1)
        )
        for i in range(n + 1)
    )
    assert res.value >= avg_lo  # ≥ optimum ≥ the average user's optimum
    assert res.lower_bound <= float(worst_g) * (1 + 2**-50)  # ≤ optimum ≤ G's worst case
    assert res.provenance.within_accuracy
    assert res.objective is UserObjective.MINIMAX


def test_zero_optimum_is_returned_as_exact_zero(lp_solver: str) -> None:
    """Prior [0, 1], |e|, ε = 15: answering 1 always is 0-DP and loses nothing, so the
    optimum is 0; it must come back as 0.0 exactly (it was 3.06e-7 = e^-15 from a solver that
    stopped at the vertex answering 0 on input 0), with 0 in the interval."""
    res = bayesian_mechanism([0.0, 1.0], Absolute(), 15, solver=lp_solver, method="full")
    assert res.value == 0.0
    assert res.lower_bound <= 0.0 <= res.value
    assert np.array_equal(res.mechanism, [[0.0, 1.0], [0.0, 1.0]])
    assert res.certified_epsilon == 0.0
    assert res.provenance.solver == "none" and res.provenance.status == "exact"
    assert res.provenance.attempts[-1].variant.startswith("known ε-DP mechanism")


def test_no_warning_when_the_interval_is_narrow() -> None:
    """n = 120 (Clarabel by policy): the solver may report "optimal_inaccurate", but the
    certified interval is ~1e-8 relative wide, so nothing is said (pytest turns warnings into
    errors) and the status is recorded."""
    n = 120
    i = np.arange(n + 1)
    res = bayesian_mechanism(np.full(n + 1, 1 / (n + 1)), np.abs(i[:, None] - i[None, :]), 0.5)
    prov = res.provenance
    assert isinstance(prov, Provenance)
    assert prov.status in ("optimal", "optimal_inaccurate") and prov.status == res.status
    assert prov.within_accuracy and prov.relative_gap <= 1e-6
    ref = g_plus_bayes_remap(np.full(n + 1, 1 / (n + 1)), np.abs(i[:, None] - i[None, :]), 0.5)
    # G + remap in floats is within (n + 1)² ulps of the optimum: 1e-12 relative.
    assert res.lower_bound <= ref * (1 + 1e-12) and res.value >= ref * (1 - 1e-12)


def test_warns_when_the_interval_is_wider_than_asked() -> None:
    """An accuracy below what any solver reaches (1e-15) must produce the warning, naming
    the interval; the result is still returned and still certified in its interval."""
    n = 40
    i = np.arange(n + 1)
    loss = np.abs(i[:, None] - i[None, :])
    with pytest.warns(InaccurateSolutionWarning, match="wider than the requested accuracy 1e-15"):
        res = bayesian_mechanism(
            np.full(n + 1, 1 / (n + 1)), loss, 0.5, solver="CLARABEL", accuracy=1e-15
        )
    assert not res.provenance.within_accuracy
    assert res.lower_bound <= res.value


def test_duals_are_read_by_name() -> None:
    """An extra constraint placed first in ``problem.constraints`` (where a positional reader
    would take it for the simplex rows) does not change the lower bound: both bounds are within
    the solver's 1e-10 tolerances of each other, and both below the exact optimum (1e-9
    relative: HiGHS vertices at 1e-10 feasibility, a dozen rows)."""
    n, eps = 7, math.log(2)
    setting = resolve_setting("abs", num_inputs=n + 1)
    weights = np.full(n + 1, 1 / (n + 1))[:, None] * setting.loss
    objective = LinearObjective(weights)
    bounds = []
    for extra in (None, lambda x: [x <= 1.0]):
        lp = build_user_lp(LPData(weights.shape, weights=weights), eps, path_graph(n), extra=extra)
        solve(lp.problem, solver="HIGHS", kind="count")
        assert lp.problem.constraints[len(lp.extra)] is lp.simplex
        bounds.append(objective.lower_bound(lp.duals(), lp.coefficients, 1.0, setting))
    _, opt_hi = exact_optimum_bracket([Fraction(1, n + 1)] * (n + 1), "abs", eps)
    assert max(bounds) <= opt_hi
    assert bounds[0] == pytest.approx(bounds[1], rel=1e-9)
    assert bounds[0] >= opt_hi * (1 - 1e-9)


def test_repair_is_recorded_as_a_repair_record(lp_solver: str) -> None:
    """The repair is a ``Repair(kind, weight, cost)`` whose numbers match the matrices: the value
    is the objective at the returned mechanism (recomputed here in exact rationals, the value
    rounded up by at most 1e-12 relative), the cost is that minus the objective at the raw
    mechanism (recomputed here in floating point: 1e-12 absolute), a weight only for a
    mixture, and the interval contains the GRS optimum (geometric mechanism + Bayes remap,
    Ghosh, Roughgarden & Sundararajan (2012), Thm. 3.1; 1e-12 relative for its float sum)."""
    n, eps = 5, 0.5
    prior = np.full(n + 1, 1 / (n + 1))
    res = bayesian_mechanism(prior, "abs", eps, solver=lp_solver)
    repair = res.repair
    assert isinstance(repair.kind, RepairKind)
    loss = np.abs(np.subtract.outer(np.arange(n + 1), np.arange(n + 1))).astype(float)
    exact = sum(
        Fraction(float(p)) * Fraction(float(m)) * Fraction(float(c))
        for p, row, lrow in zip(prior, res.mechanism, loss, strict=True)
        for m, c in zip(row, lrow, strict=True)
    )
    assert Fraction(res.value) >= exact and res.value <= float(exact) * (1 + 1e-12)
    raw = float(np.sum(prior[:, None] * res.raw_mechanism * loss))
    assert repair.cost == pytest.approx(res.value - raw, abs=1e-12)
    assert (repair.weight > 0) == (repair.kind == RepairKind.UNIFORM_MIXTURE)
    optimum = g_plus_bayes_remap(prior, loss, eps)
    assert res.lower_bound <= optimum * (1 + 1e-12) and optimum <= res.value * (1 + 1e-12)


def test_repr_is_compact() -> None:
    res = bayesian_mechanism(np.full(30, 1 / 30), "abs", 0.5)
    text = repr(res)
    assert text.startswith("UserMechanism(bayesian, 30x30, value=")
    assert "\n" not in text and "[[" not in text and len(text) < 300


def test_memory_refusal_quotes_the_estimate() -> None:
    with pytest.raises(
        ProblemTooLargeError, match=r"about 0\.0\d+ GB of solver memory\), more than max_memory_gb"
    ):
        bayesian_mechanism(np.full(11, 1 / 11), "abs", 1.0, max_memory_gb=1e-4, method="full")
    with pytest.raises(ProblemTooLargeError, match=r"GB of solver memory\), more than max_var"):
        bayesian_mechanism(np.full(11, 1 / 11), "abs", 1.0, max_variables=100, method="full")
    with pytest.raises(ValueError, match="`max_memory_gb` must be"):
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, max_memory_gb=0)
    with pytest.raises(ValueError, match="`accuracy` must be"):
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, accuracy=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, max_memory_gb=math.inf)
