"""`optmech.local_mechanism`: the envelope LP of an ε-LDP randomizer against independent truth.

Independent truth: the pairwise complete-graph LP (every ordered pair of inputs, ``n(n − 1)·m``
rows) solved by scipy's ``linprog`` with the constraints written from their definitions
(`tests/_local_reference.py`); RR-on-Bins' dynamic programme (itself checked by brute force in
`tests/test_rr_on_bins.py`); closed forms. Tolerances: the reference optimum is accurate to about
``REFERENCE_RTOL`` = 1e-7 relative (linprog's HiGHS tolerances); optmech's optimum lies in its
certified interval ``[lower_bound, value]``. Every returned mechanism is certified ε-LDP over every
pair of inputs by ``optmech.certify_mechanism``, independently of the result's own field.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import optmech
from optmech.constraints import MaxCost, MaxRisk, Monotone, TailBound, Unbiased
from optmech.costs import Absolute, Squared
from tests._local_reference import (
    REFERENCE_RTOL,
    Rows,
    monotone_rows,
    pairwise_optimum,
    risk_rows,
    tail_rows,
    unbiased_rows,
)


def _complete_epsilon(mechanism: np.ndarray) -> float:
    n = mechanism.shape[0]
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)])
    return optmech.certify_mechanism(mechanism, pairs).epsilon


def _contains(res: optmech.LocalMechanism, reference: float) -> bool:
    slack = REFERENCE_RTOL * max(abs(reference), 1.0)
    return res.lower_bound - slack <= reference <= res.value + slack


def _instance(seed: int, n: int, m: int, *, wide: bool = False) -> tuple:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.choice(np.arange(60), n, replace=False)).astype(float) / 6.0
    p = rng.dirichlet(np.ones(n))
    span = x[-1] - x[0]
    low, high = (x[0] - span, x[-1] + span) if wide else (x[0], x[-1])
    y = np.linspace(low, high, m)
    eps = float(rng.uniform(0.3, 3.0))
    return x, p, y, eps


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cost", [Squared(), Absolute()])
def test_bayesian_optimum_matches_the_pairwise_lp(seed: int, cost: object) -> None:
    x, p, y, eps = _instance(seed, 5, 17)
    res = optmech.local_mechanism(p, cost, eps, inputs=x, outputs=y)
    reference = pairwise_optimum(p, cost.loss_matrix(x, y), eps)  # type: ignore[attr-defined]
    assert _contains(res, reference)
    assert res.value - res.lower_bound <= 1e-6 * max(res.value, 1.0)
    assert _complete_epsilon(res.mechanism) <= eps
    assert res.certified_epsilon <= eps


@pytest.mark.parametrize("seed", range(3))
def test_minimax_optimum_matches_the_pairwise_lp(seed: int) -> None:
    x, _, y, eps = _instance(10 + seed, 4, 13)
    res = optmech.local_mechanism(None, "squared", eps, objective="minimax", inputs=x, outputs=y)
    reference = pairwise_optimum(None, Squared().loss_matrix(x, y), eps)
    assert res.objective == "minimax"
    assert _contains(res, reference)
    risks = np.sum(res.mechanism * res.loss, axis=1)
    assert float(np.max(risks)) <= res.value * (1 + 1e-12)
    assert _complete_epsilon(res.mechanism) <= eps


def test_unbiased_optimum_matches_the_pairwise_lp() -> None:
    x, p, y, eps = _instance(21, 4, 21, wide=True)
    rows = Rows()
    unbiased_rows(rows, x, y)
    reference = pairwise_optimum(p, Squared().loss_matrix(x, y), eps, rows)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=Unbiased())
    assert _contains(res, reference)
    assert np.max(np.abs(res.mechanism @ y - x)) <= 1e-9 * np.max(np.abs(y))
    assert _complete_epsilon(res.mechanism) <= eps
    (record,) = res.provenance.constraints
    assert record.name == "Unbiased()" and record.residual <= 1e-9


@pytest.mark.parametrize(
    "kind",
    ["risk", "monotone", "tail", "maxcost", "unbiased+monotone", "unbiased+risk"],
)
def test_constrained_optima_match_the_pairwise_lp(kind: str) -> None:
    x, p, y, eps = _instance(33, 4, 15, wide="unbiased" in kind)
    loss = Squared().loss_matrix(x, y)
    base = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    risk = float(np.max(np.sum(base.mechanism * loss, axis=1)))
    rows, cons = Rows(), []
    if "unbiased" in kind:
        unbiased_rows(rows, x, y)
        cons.append(Unbiased())
    if kind == "risk":
        bound = 0.8 * risk
        risk_rows(rows, loss, bound)
        cons.append(MaxRisk(bound))
    if kind == "unbiased+risk":
        unbiased = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=cons)
        bound = 0.999 * float(np.max(np.sum(unbiased.mechanism * loss, axis=1)))
        risk_rows(rows, loss, bound)
        cons.append(MaxRisk(bound))
    if "monotone" in kind:
        monotone_rows(rows, x.size, y.size)
        cons.append(Monotone())
    if kind == "tail":
        t = (x[-1] - x[0]) / 2
        far = np.abs(y[None, :] - x[:, None]) > t
        q = 0.9 * float(np.max(np.sum(np.where(far, base.mechanism, 0.0), axis=1)))
        tail_rows(rows, x, y, t, q)
        cons.append(TailBound(t, q))
    if kind == "maxcost":
        absolute = Absolute().loss_matrix(x, y)
        bound = 0.95 * float(p @ np.sum(base.mechanism * absolute, axis=1))
        rows.a_ub.append((p[:, None] * absolute).ravel())
        rows.b_ub.append(bound)
        cons.append(MaxCost(Absolute(), bound))
    reference = pairwise_optimum(p, loss, eps, rows)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=cons)
    assert _contains(res, reference)
    assert _complete_epsilon(res.mechanism) <= eps
    names = [c.name for c in cons]
    assert [r.name for r in res.provenance.constraints] == names
    assert all(r.residual <= 1e-9 for r in res.provenance.constraints)


def test_grid_containing_the_bins_outputs_gives_rr_on_bins() -> None:
    """Ghazi et al. (2023): RR-on-Bins is optimal over all real outputs, so on a grid that
    contains its outputs the LP optimum equals it."""
    x, p, _, eps = _instance(44, 6, 5)
    rr = optmech.rr_on_bins(p, "squared", eps, inputs=x)
    y = np.union1d(np.linspace(x[0], x[-1], 9), rr.outputs)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    assert _contains(res, rr.value)
    assert res.grid is not None and res.grid.continuous_optimum == pytest.approx(rr.value)


@pytest.mark.parametrize("cost", ["squared", "absolute"])
def test_a_grid_without_the_outputs_is_above_rr_on_bins_within_the_rounding_bound(
    cost: str,
) -> None:
    """Randomised rounding to the grid costs at most h²/4 (squared) or h/2 (absolute)."""
    x, p, y, eps = _instance(45, 6, 12)
    rr = optmech.rr_on_bins(p, cost, eps, inputs=x)
    res = optmech.local_mechanism(p, cost, eps, inputs=x, outputs=y)
    h = float(np.max(np.diff(y)))
    allowance = h * h / 4 if cost == "squared" else h / 2
    assert res.value >= rr.value * (1 - 1e-12)
    assert res.lower_bound <= rr.value + allowance
    assert res.grid is not None and res.grid.gap_bound == pytest.approx(allowance)


def test_loss_as_cost_callable_and_matrix_agree() -> None:
    x, p, y, eps = _instance(50, 4, 9)
    by_cost = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    by_callable = optmech.local_mechanism(
        p, lambda out, inp: (out - inp) ** 2, eps, inputs=x, outputs=y
    )
    by_matrix = optmech.local_mechanism(p, (y[None, :] - x[:, None]) ** 2, eps, inputs=x, outputs=y)
    values = [r.value for r in (by_cost, by_callable, by_matrix)]
    assert max(values) - min(values) <= 1e-6 * max(values)
    assert by_callable.grid is not None and by_callable.grid.gap_bound is None


def test_custom_callable_constraint_is_passed_and_reported() -> None:
    x, p, y, eps = _instance(51, 4, 9)
    free = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    busiest = int(np.argmax(free.mechanism.sum(axis=0)))

    def cap(v: object) -> list:
        return [v.mechanism[:, busiest] <= 0.1]  # type: ignore[attr-defined]

    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=cap)
    assert res.value >= free.value
    assert float(np.max(res.mechanism[:, busiest])) <= 0.1 + 1e-9
    (record,) = res.provenance.constraints
    assert record.kind == "custom" and record.residual <= 1e-9


def test_clarabel_sized_unbiased_lp_is_polished_and_certified() -> None:
    """n·m above the count policy's HiGHS limit: the interior-point point is polished on its
    support by simplex; the certified interval stays decisive."""
    x, p, y, eps = _instance(60, 10, 300, wide=True)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=Unbiased())
    assert any("polish" in a.variant for a in res.provenance.attempts)
    assert res.value - res.lower_bound <= 1e-6 * res.value
    assert _complete_epsilon(res.mechanism) <= eps
    assert np.max(np.abs(res.mechanism @ y - x)) <= 1e-9 * np.max(np.abs(y))


@pytest.mark.parametrize("eps", [0.02, 12.0])
def test_extreme_epsilons_stay_certified(eps: float) -> None:
    x, p, y, _ = _instance(61, 5, 11)
    res = optmech.local_mechanism(p, "absolute", eps, inputs=x, outputs=y)
    reference = pairwise_optimum(p, Absolute().loss_matrix(x, y), eps)
    assert _contains(res, reference)
    assert _complete_epsilon(res.mechanism) <= eps


def test_large_epsilon_approaches_the_non_private_loss() -> None:
    """At ε = 30 the optimum lies between the non-private loss ``Σ_i p_i min_r L[i, r]`` and that
    of the randomized response onto each input's best output, which gives every other output
    ``1/(e^ε + m − 1)``: at most ``(m − 1)·max L/(e^ε + m − 1)`` more."""
    x, p, y, _ = _instance(61, 5, 11)
    loss = Absolute().loss_matrix(x, y)
    eps = 30.0
    res = optmech.local_mechanism(p, "absolute", eps, inputs=x, outputs=y)
    best = float(p @ loss.min(axis=1))
    above = (y.size - 1) * float(loss.max()) / (math.exp(eps) + y.size - 1)
    assert best - 1e-12 <= res.lower_bound <= res.value <= best + above + 1e-12
    assert _complete_epsilon(res.mechanism) <= eps


def test_result_interface() -> None:
    x, p, y, eps = _instance(62, 3, 7)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    assert isinstance(res, optmech.UserMechanism)
    assert res.mechanism.shape == (3, 7) and np.array_equal(res.outputs, y)
    draws = res.rvs(x[1], size=50, rng=random.Random(0))
    assert set(np.unique(draws)) <= set(y.tolist())
    assert "LocalMechanism(bayesian" in repr(res)
    assert res.sampled_epsilon() <= eps + 1e-12
    import matplotlib

    matplotlib.use("Agg")
    assert res.plot() is not None


def test_to_opendp_measurement_maps_distinct_inputs_to_the_certified_epsilon() -> None:
    pytest.importorskip("opendp")
    x, p, y, eps = _instance(63, 3, 5)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    meas = res.to_opendp()
    assert meas.map(1) == res.sampled_epsilon() and meas.map(0) == 0.0
    assert float(meas(float(x[0]))) in set(y.tolist())


# -- refusals ---------------------------------------------------------------------------------
def test_too_large_is_refused_before_building() -> None:
    x = np.arange(200.0)
    with pytest.raises(optmech.ProblemTooLargeError, match="200 inputs x 2000 outputs"):
        optmech.local_mechanism(
            np.full(200, 1 / 200), "squared", 1.0, inputs=x, outputs=np.linspace(0, 199, 2000)
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"inputs": [0.0, 2.0, 1.0]}, r"`inputs` must be strictly increasing.*unsorted"),
        ({"inputs": [0.0, 1.0, 1.0]}, r"`inputs` must be strictly increasing.*duplicate"),
        ({"outputs": [0.0, 0.5, 0.5]}, r"`outputs` must be strictly increasing"),
        ({"prior": [0.5, 0.5]}, r"`prior` must have one entry per input \(3\); got 2"),
        ({"epsilon": 0.0}, r"`epsilon` must be .*\(0, 50\]; got 0.0"),
        ({"epsilon": -1.0}, r"`epsilon` must be .*got -1.0"),
        ({"constraints": [Unbiased()]}, r"`outputs` must reach strictly below"),
        ({"loss": np.ones((2, 2))}, r"`loss` matrix must have one row per input"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict, match: str) -> None:
    args = {
        "prior": [0.2, 0.3, 0.5],
        "loss": "squared",
        "epsilon": 1.0,
        "inputs": [0.0, 1.0, 2.0],
        "outputs": [0.0, 0.5, 1.0, 1.5, 2.0],
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        optmech.local_mechanism(args.pop("prior"), args.pop("loss"), args.pop("epsilon"), **args)


def test_constraints_of_the_wrong_type_are_refused() -> None:
    with pytest.raises(TypeError, match="`constraints` must be"):
        optmech.local_mechanism([0.5, 0.5], "squared", 1.0, inputs=[0, 1], constraints="unbiased")


def test_infeasible_constraint_is_named() -> None:
    x, p, y, eps = _instance(70, 4, 9)
    with pytest.raises(optmech.InfeasibleConstraintsError, match=r"MaxRisk\(bound=0.001\) alone"):
        optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y, constraints=MaxRisk(1e-3))


def test_jointly_infeasible_constraints_are_named_together() -> None:
    x, _, y, eps = _instance(71, 4, 15, wide=True)
    unbiased = optmech.local_mechanism(
        None, "squared", eps, objective="minimax", inputs=x, outputs=y, constraints=Unbiased()
    )
    free = optmech.local_mechanism(None, "squared", eps, objective="minimax", inputs=x, outputs=y)
    bound = 0.9 * unbiased.lower_bound  # below the unbiased minimax optimum: not with Unbiased
    assert free.value < bound  # ... but the unconstrained minimax optimum meets it alone
    with pytest.raises(optmech.InfeasibleConstraintsError) as info:
        optmech.local_mechanism(
            None,
            "squared",
            eps,
            objective="minimax",
            inputs=x,
            outputs=y,
            constraints=[Unbiased(), MaxRisk(bound)],
        )
    assert set(info.value.constraints) == {"Unbiased()", f"MaxRisk(bound={bound!r})"}


def test_epsilon_is_certified_from_the_matrix_not_trusted() -> None:
    """The result's ε is the certifier's, over every pair of inputs, at most the ε asked."""
    x, p, y, eps = _instance(72, 6, 11)
    res = optmech.local_mechanism(p, "squared", eps, inputs=x, outputs=y)
    assert res.certified_epsilon == _complete_epsilon(res.mechanism)
    assert math.isfinite(res.certified_epsilon) and res.certified_epsilon <= eps
