"""RR-on-Bins (Ghazi et al. (2023)) against brute force over every set partition of the labels.

Independent truth: for n ≤ 7 labels every set partition (Bell(7) = 877 of them, contiguous or
not) is tried; each bin's best output is evaluated here from the definition — the weighted mean
for the squared error, the best label by direct evaluation for the absolute error (a convex
piecewise-linear sum is smallest at one of its breakpoints, the labels) — and the partition's
expected loss is computed from the randomized-response matrix built here. The programme's
value must equal the minimum to 1e-12 relative (float sums of at most 49 terms).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import numpy as np
import pytest

import optmech
from optmech.costs import Absolute, Power, Squared, ZeroOne


def _partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        for k in range(len(part)):
            yield [*part[:k], [first, *part[k]], *part[k + 1 :]]
        yield [[first], *part]


def _loss(loss: str, out: np.ndarray, x: np.ndarray) -> np.ndarray:
    err = out[None, :] - x[:, None]
    return err * err if loss == "squared" else np.abs(err)


def _best_output(x: np.ndarray, w: np.ndarray, loss: str) -> float:
    if loss == "squared":
        return float(np.sum(w * x) / np.sum(w))
    values = [float(np.sum(w * np.abs(c - x))) for c in x]
    return float(x[int(np.argmin(values))])


def _brute_force(x: np.ndarray, p: np.ndarray, eps: float, loss: str) -> float:
    ratio = math.exp(eps)
    best = math.inf
    for part in _partitions(list(range(x.size))):
        k = len(part)
        outputs = np.empty(k)
        q = np.full((x.size, k), 1.0 / (ratio + k - 1))
        for j, members in enumerate(part):
            w = p.copy()
            w[members] *= ratio
            outputs[j] = _best_output(x, w, loss)
            q[members, j] = ratio / (ratio + k - 1)
        best = min(best, float(np.sum(p[:, None] * q * _loss(loss, outputs, x))))
    return best


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_programme_equals_brute_force_over_every_partition(seed: int, loss: str) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    x = np.sort(rng.choice(np.arange(200), n, replace=False)).astype(float) / 9.0
    p = rng.dirichlet(np.full(n, 0.6))
    eps = float(rng.uniform(0.05, 5.0))
    res = optmech.rr_on_bins(p, loss, eps, inputs=x)
    truth = _brute_force(x, p, eps, loss)
    assert res.value == pytest.approx(truth, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("loss", [Squared(), Absolute(), Power(2), Power(1), "squared"])
def test_result_is_a_certified_randomizer_of_the_bins(loss: object) -> None:
    rng = np.random.default_rng(7)
    x = np.sort(rng.choice(np.arange(100), 9, replace=False)).astype(float)
    p = rng.dirichlet(np.ones(9))
    eps = 1.3
    res = optmech.rr_on_bins(p, loss, eps, inputs=x)
    k = len(res.bins)
    assert res.mechanism.shape == (9, k) and res.outputs.size == k
    assert sum(len(b) for b in res.bins) == 9
    flat = [v for b in res.bins for v in b]
    assert flat == sorted(flat) == x.tolist()  # contiguous bins, in order
    assert np.allclose(res.mechanism.sum(axis=1), 1.0, atol=1e-15)
    pairs = np.array([(i, j) for i in range(9) for j in range(i + 1, 9)])
    cert = optmech.certify_mechanism(res.mechanism, pairs).epsilon
    assert cert <= eps and res.certified_epsilon == cert
    assert res.expected_loss() == pytest.approx(res.value, rel=1e-11)
    draws = res.rvs(x[0], size=30, rng=random.Random(1))
    assert set(np.unique(draws)) <= set(res.outputs.tolist())


def test_tight_privacy_costs_nearly_the_prior_variance() -> None:
    """Every ε-LDP row is at least ``e^(−ε)`` times any other, so the expected loss is at least
    ``e^(−ε)`` times that of the best constant answer (the prior's variance for the squared
    error), and the constant answer itself is private: ``e^(−ε) var ≤ value ≤ var``."""
    x = np.array([0.0, 1.0, 3.0])
    p = np.array([0.3, 0.3, 0.4])
    eps = 1e-4
    res = optmech.rr_on_bins(p, "squared", eps, inputs=x)
    var = float(p @ (x - p @ x) ** 2)
    assert math.exp(-eps) * var <= res.value <= var


def test_larger_instances_agree_with_the_envelope_lp() -> None:
    """30 labels: on a grid containing the bins' outputs, the complete-graph LP's certified
    interval contains the programme's value (Ghazi et al. (2023): RR-on-Bins is optimal)."""
    rng = np.random.default_rng(3)
    x = np.sort(rng.choice(np.arange(1000), 30, replace=False)).astype(float) / 100
    p = rng.dirichlet(np.ones(30))
    res = optmech.rr_on_bins(p, "absolute", 2.0, inputs=x)
    y = np.union1d(np.linspace(x[0], x[-1], 20), res.outputs)
    lp = optmech.local_mechanism(p, "absolute", 2.0, inputs=x, outputs=y)
    slack = 1e-9 * res.value
    assert lp.lower_bound - slack <= res.value <= lp.value + slack


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"inputs": [0.0, 2.0, 1.0]}, ValueError, "`inputs` must be strictly increasing"),
        ({"inputs": [0.0, 1.0, 1.0]}, ValueError, "duplicate"),
        ({"prior": [0.5, 0.5]}, ValueError, "`prior` must have one entry per input"),
        ({"epsilon": 0.0}, ValueError, "`epsilon`"),
        ({"loss": ZeroOne()}, ValueError, "`loss` must be the squared or the absolute"),
        ({"loss": Power(3)}, ValueError, "`loss` must be the squared or the absolute"),
    ],
)
def test_bad_input(kwargs: dict, error: type, match: str) -> None:
    args = {"prior": [0.2, 0.3, 0.5], "loss": "squared", "epsilon": 1.0, "inputs": [0, 1, 2]}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        optmech.rr_on_bins(args.pop("prior"), args.pop("loss"), args.pop("epsilon"), **args)
