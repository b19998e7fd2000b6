"""``shuffle_mechanism``: the local randomizer designed for a central target after shuffling.

Each matrix returned is re-certified here by ``shuffle_epsilon`` (the certificate the designer
claims to use), its local ε₀ and clone probability are recomputed by brute force over the pairs
of inputs, its value from the prior and the loss, and the RR-on-Bins baseline's value from the
dynamic programme of ``optimal_bins`` at the baseline's ε₀.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import optmech
from optmech.constraints import MaxRisk
from optmech.lp.shuffle.frontier import (
    blanket_rows,
    clone_probability,
    largest_certified,
    variation_cap,
    variation_rows,
    witness,
)
from optmech.mechanisms.rr_on_bins import optimal_bins


def _local_epsilon(q: np.ndarray) -> float:
    """The largest log ratio within a column, by brute force over ordered pairs of rows."""
    worst = 0.0
    for a, b in itertools.permutations(range(q.shape[0]), 2):
        used = (q[a] > 0) | (q[b] > 0)
        worst = max(worst, float(np.max(np.log(q[a, used]) - np.log(q[b, used]))))
    return worst


def _clone_p(q: np.ndarray) -> float:
    """The least ``2 min_x Q(y|x) / (Q(y|x0) + Q(y|x1))`` over pairs and outputs, by loops."""
    floor = q.min(axis=0)
    best = math.inf
    for a, b in itertools.combinations(range(q.shape[0]), 2):
        for y in range(q.shape[1]):
            pair = q[a, y] + q[b, y]
            if pair > 0:
                best = min(best, 2.0 * floor[y] / pair)
    return best


@pytest.mark.slow  # about 12 s: five blanket lines, two variation lines, two baselines
def test_eight_labels_meet_the_central_target_with_amplification_and_beat_rr_on_bins() -> None:
    labels = np.arange(8.0)
    prior = np.full(8, 1 / 8)
    res = optmech.shuffle_mechanism(prior, "squared", 1.0, 1e-6, n=10_000, inputs=labels)
    q = res.mechanism
    again = optmech.shuffle_epsilon(q, 10_000, 1e-6)
    assert again.epsilon <= 1.0
    assert res.certified_epsilon == again.epsilon  # the certificate of the matrix returned
    assert _local_epsilon(q) > 1.0  # amplification used
    assert res.local_epsilon >= _local_epsilon(q) * (1 - 1e-12)
    err = np.asarray(res.outputs)[None, :] - labels[:, None]
    assert res.value == pytest.approx(float(np.sum(prior[:, None] * q * err**2)), rel=1e-12)
    bins = res.baselines["RR-on-Bins"]
    assert bins.guarantee.epsilon <= 1.0
    dp = optimal_bins(labels, prior, bins.local_epsilon, "squared")
    assert bins.value == pytest.approx(dp.value, rel=1e-9)
    assert res.value <= bins.value
    # The variation-ratio and blanket certificates calibrate RR-on-Bins beyond every blanket
    # line; the LP judged by its own matrix's certificate (a variation line) reaches about its
    # ε₀, or RR-on-Bins itself is returned.
    assert res.source.startswith(("LP, variation", "baseline RR-on-Bins"))
    assert res.local_epsilon >= bins.local_epsilon
    # ... and at its own ε₀ it is as good as RR-on-Bins' optimal bins there (dynamic programme)
    assert res.value <= optimal_bins(labels, prior, res.local_epsilon, "squared").value * (1 + 1e-6)
    assert [v.outputs_count for v in res.variation] == [1.0, 8.0]
    for v in res.variation:
        assert v.central_epsilon <= 1.0
        assert v.excluded_epsilon is not None and v.local_epsilon < v.excluded_epsilon
        assert res.lower_bound <= v.lower_bound <= v.value * (1 + 1e-6)
    assert res.value <= res.baselines["GRR"].value
    assert res.lower_bound <= res.value
    assert res.privacy_certified is True
    # Each line's bound holds for the line's members at an ε₀ below the line's excluded one:
    # RR-on-Bins (p ≥ e^-ε₀: any ε₀-LDP matrix is on the line θ = 0) at its calibrated ε₀ and
    # GRR (p = 2/(e^ε₀ + 1): on θ = 1) at the line's certified ε₀ (the variation-ratio bound
    # certifies GRR beyond the blanket line's excluded ε₀, where the line's bound says
    # nothing), their values from their closed forms.
    first, last = res.frontier[0], res.frontier[-1]
    assert (first.theta, last.theta) == (0.0, 1.0)
    assert bins.local_epsilon < first.excluded_epsilon  # type: ignore[operator]
    assert first.lower_bound <= dp.value
    spread = sum(prior[x] * (labels - labels[x]) @ (labels - labels[x]) for x in range(8))
    grr = res.baselines["GRR"]
    assert grr.value == pytest.approx(spread / (math.exp(grr.local_epsilon) + 7), rel=1e-9)
    assert last.local_epsilon < last.excluded_epsilon  # type: ignore[operator]
    assert last.lower_bound <= spread / (math.exp(last.local_epsilon) + 7)


def _small(**kw: object) -> optmech.ShuffleMechanism:
    args: dict[str, object] = {
        "n": 2000,
        "inputs": [0.0, 1.0, 2.0],
        "thetas": (0.0, 1.0),
        "variation_lines": (),
    }
    args.update(kw)
    prior = args.pop("prior", "uniform")
    cost = args.pop("cost", "squared")
    return optmech.shuffle_mechanism(prior, cost, 1.0, 1e-6, **args)  # type: ignore[arg-type]


@pytest.mark.slow  # about 1.5 s
def test_minimax_is_the_worst_inputs_loss_and_each_line_keeps_its_blanket_rows() -> None:
    res = _small(prior=None, objective="minimax", cost="abs", thetas=(0.0, 0.5, 1.0))
    q = res.mechanism
    worst = np.max(np.sum(q * np.abs(np.asarray(res.outputs)[None, :] - res.inputs[:, None]), 1))
    assert res.value == pytest.approx(float(worst), rel=1e-12)
    assert optmech.shuffle_epsilon(q, 2000, 1e-6).epsilon <= 1.0
    assert [p.theta for p in res.frontier] == [0.0, 0.5, 1.0]
    for point in res.frontier:  # the bisection's ends bracket the bound's answer
        assert point.excluded_epsilon is not None
        assert point.local_epsilon < point.excluded_epsilon
        assert point.lower_bound <= (point.value or math.inf)
    # the least frontier bound is the result's, and at most its value
    assert res.lower_bound == pytest.approx(min(p.lower_bound for p in res.frontier))


@pytest.mark.slow  # about 1.5 s
def test_a_constraint_holds_on_the_returned_matrix() -> None:
    res = _small(constraints=[MaxRisk(0.12)], variation_lines=(1.0,))
    q = res.mechanism
    risks = np.sum(q * (np.asarray(res.outputs)[None, :] - res.inputs[:, None]) ** 2, axis=1)
    assert float(risks.max()) <= 0.12 * (1 + 1e-9)
    assert res.source.startswith("LP")  # baselines are no candidates under constraints
    assert optmech.shuffle_epsilon(q, 2000, 1e-6).epsilon <= 1.0
    assert [v.outputs_count for v in res.variation] == [1.0]  # searched under the constraint
    assert res.value <= res.variation[0].value * (1 + 1e-9)


def test_the_witness_has_the_local_epsilon_and_clone_probability_asked() -> None:
    for eps0, theta in [(0.5, 0.0), (2.0, 0.3), (4.0, 1.0)]:
        p = clone_probability(eps0, theta)
        w = witness(eps0, p)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-15)
        assert _local_epsilon(w) == pytest.approx(eps0, rel=1e-12)
        assert _clone_p(w) == pytest.approx(p, rel=1e-12)


def test_the_clone_probability_spans_the_envelope_to_randomized_response() -> None:
    eps0 = 1.3
    assert clone_probability(eps0, 0.0) == pytest.approx(math.exp(-eps0))
    rr = optmech.LocalRandomizer.randomized_response(5, eps0).matrix
    assert clone_probability(eps0, 1.0) == pytest.approx(_clone_p(rr), rel=1e-12)


def test_the_blanket_rows_are_every_pair_of_inputs_for_every_output() -> None:
    from types import SimpleNamespace

    import cvxpy as cp

    z = cp.Variable(3 * 2 + 2)
    rows = blanket_rows(3, 2, 0.5).function(
        SimpleNamespace(mechanism=cp.reshape(z[:6], (3, 2), order="C"), envelope=z[6:])
    )
    q = np.array([[0.5, 0.5], [0.3, 0.7], [0.2, 0.8]])
    t = q.min(axis=0)
    z.value = np.concatenate([q.ravel(), t])
    (con,) = rows
    expected = [q[a] + q[b] - 4.0 * t for a, b in itertools.combinations(range(3), 2)]
    np.testing.assert_allclose(con.expr.value, np.array(expected), atol=1e-15)


def _total_variation(q: np.ndarray) -> float:
    """The largest half L1 distance between two rows, by loops over pairs."""
    return max(
        0.5 * float(np.abs(q[a] - q[b]).sum())
        for a, b in itertools.combinations(range(q.shape[0]), 2)
    )


def test_the_variation_cap_is_randomized_responses_total_variation() -> None:
    for eps0, b in [(0.5, 2), (1.3, 5), (4.0, 9)]:
        rr = optmech.LocalRandomizer.randomized_response(b, eps0).matrix
        assert variation_cap(eps0, b) == pytest.approx(_total_variation(rr), rel=1e-12)
    assert variation_cap(2.0, 1.0) == pytest.approx(1.0 - math.exp(-2.0), rel=1e-12)


def test_the_envelope_mass_caps_every_pairs_total_variation() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        q = rng.dirichlet(np.ones(6), size=4)
        assert _total_variation(q) <= 1.0 - q.min(axis=0).sum() + 1e-15
    rr = optmech.LocalRandomizer.randomized_response(5, 1.3).matrix  # exact on RR
    assert _total_variation(rr) == pytest.approx(1.0 - rr.min(axis=0).sum(), rel=1e-12)


def test_the_variation_row_bounds_the_envelopes_mass() -> None:
    from types import SimpleNamespace

    import cvxpy as cp

    t = cp.Variable(3)
    (con,) = variation_rows(0.25).function(SimpleNamespace(envelope=t))
    t.value = np.array([0.2, 0.3, 0.25])
    assert float(con.violation()) == 0.0  # 0.75 ≥ 1 − 0.25
    t.value = np.array([0.2, 0.3, 0.2])
    assert float(con.violation()) == pytest.approx(0.05, rel=1e-12)


def test_the_bisection_keeps_only_points_at_or_below_the_target() -> None:
    calls: list[float] = []

    def central(e: float) -> float:
        calls.append(e)
        return math.sqrt(e)  # certified up to e = 4

    b = largest_certified(central, 2.0, rtol=1e-4)
    assert b is not None and b.excluded is not None
    assert b.certified <= 4.0 < b.excluded
    assert b.excluded - b.certified <= 1e-4 * b.excluded
    assert math.sqrt(b.certified) == b.central
    assert largest_certified(lambda e: 10.0, 1.0) is None  # nothing certified
    top = largest_certified(lambda e: 0.0, 1.0)
    assert top is not None and top.excluded is None and top.certified == 50.0


@pytest.mark.parametrize(
    ("kwargs", "name", "shown"),
    [
        ({"n": 1}, "`n`", "1"),
        ({"n": 2.5}, "`n`", "2.5"),
        ({"delta": 0.0}, "`delta`", "0"),
        ({"delta": 1.0}, "`delta`", "1"),
        ({"delta": float("nan")}, "`delta`", "nan"),
        ({"epsilon": 0.0}, "`epsilon`", "0"),
        ({"epsilon": -1.0}, "`epsilon`", "-1"),
        ({"epsilon": 51.0}, "`epsilon`", "51"),
        ({"prior": [0.5, 0.6, 0.1]}, "`prior`", "1.2"),
        ({"prior": [0.5, 0.5]}, "`prior`", "2"),
        ({"prior": "flat"}, "`prior`", "flat"),
        ({"objective": "nope"}, "`objective`", "nope"),
        ({"objective": "minimax"}, "`prior`", "str"),
        ({"prior": None}, "`prior`", "None"),
        ({"thetas": (1.5,)}, "`thetas`", "1.5"),
        ({"thetas": ()}, "`thetas`", "()"),
        ({"variation_lines": (0.5,)}, "`variation_lines`", "0.5"),
        ({"variation_lines": "ab"}, "`variation_lines`", "ab"),
        ({"tolerance": 0.0}, "`tolerance`", "0"),
        ({"solver": "NOPE"}, "`solver`", "NOPE"),
        ({"normalize": 1}, "`normalize`", "1"),
        ({"inputs": [1.0, 0.0, 2.0]}, "`inputs`", "1"),
    ],
)
def test_bad_arguments_are_refused_by_name_with_the_value(
    kwargs: dict[str, object], name: str, shown: str
) -> None:
    args: dict[str, object] = {
        "prior": "uniform",
        "cost": "squared",
        "epsilon": 1.0,
        "delta": 1e-6,
        "n": 100,
        "inputs": [0.0, 1.0, 2.0],
    }
    args.update(kwargs)
    prior, cost, eps, delta = (args.pop(k) for k in ("prior", "cost", "epsilon", "delta"))
    with pytest.raises((ValueError, TypeError)) as info:
        optmech.shuffle_mechanism(prior, cost, eps, delta, **args)  # type: ignore[arg-type]
    message = str(info.value)
    assert name in message and shown in message, message
