"""The performance settings of optmech.lp.solve give the same certified answers.

Independent truths: the GRS optimum for a count query (geometric mechanism + Bayes remap, GRS
Thm. 3.1, computed by optmech.lp.remap without an LP), the staircase optimum e^(ε/2)/(e^ε − 1)
for |e| (Geng & Viswanath 2016), and the same LP solved with Clarabel's previous settings (the faer
factorisation, feasibility tolerance 1e-10) or with HiGHS simplex.
"""

from __future__ import annotations

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest

import optmech
from optmech.lp.additive import AdditiveSpec, build_additive_lp, finish_design
from optmech.lp.geometric_remaps import geometric_bayes
from optmech.lp.solve import SOLVER_POLICY, default_options, solve
from optmech.lp.user import bayesian_mechanism


def _uniform_abs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n + 1)
    return np.full(n + 1, 1.0 / (n + 1)), np.abs(i[:, None] - i[None, :]).astype(np.float64)


def test_clarabel_solves_every_kind_and_records_its_options() -> None:
    """Each kind of LP runs Clarabel with the options its solve records, and finds the vertex
    optimum of a tiny LP to 1e-8 (the tolerances' effect; their values are the GRS and additive
    checks below)."""
    x = cp.Variable(2, nonneg=True)
    problem = cp.Problem(cp.Minimize(x[0] + 2 * x[1]), [cp.sum(x) == 1])
    for kind in SOLVER_POLICY:
        info = solve(problem, solver="CLARABEL", kind=kind)
        assert info.options == default_options("CLARABEL", kind)
        assert x.value == pytest.approx([1.0, 0.0], abs=1e-8)
        assert info.objective == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("n, eps", [(40, 0.5), (60, 0.1), (30, 2.0)])
def test_grs_lp_on_clarabel_matches_the_theorem(n: int, eps: float) -> None:
    """Certified ε-DP, and within 1e-7 (relative) of G + Bayes remap, never below it."""
    prior, loss = _uniform_abs(n)
    res = bayesian_mechanism(prior, loss, eps, solver="CLARABEL")
    ref = geometric_bayes(prior, loss, eps).value
    assert res.certified_epsilon <= eps * (1 + 1e-9)
    assert res.value >= ref * (1 - 1e-12)
    assert res.value <= ref * (1 + 1e-7)
    assert res.lower_bound <= ref * (1 + 1e-12)


def test_additive_lp_qdldl_equals_faer_and_the_staircase() -> None:
    """Clarabel with QDLDL (default) and with faer (its own default) reach the same optimum."""
    values = []
    for method in ("qdldl", "faer"):
        spec = AdditiveSpec(
            optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=40, periods=10
        )
        lp = build_additive_lp(spec)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an "inaccurate" status is certified below
            info = solve(
                lp.problem,
                solver="CLARABEL",
                kind="additive",
                options={"direct_solve_method": method},
            )
        assert info.options["direct_solve_method"] == method
        noise = finish_design(lp, info)
        assert noise.certified_epsilon <= 1.0 + 1e-9
        values.append(noise.value)
    v_star = math.exp(0.5) / (math.e - 1.0)
    assert values[0] == pytest.approx(values[1], rel=1e-8)
    # Grid optimum at m = 40 is above the continuous one by < 1e-3 (second order in 1/m).
    assert v_star <= values[0] <= v_star * (1 + 1e-3)
