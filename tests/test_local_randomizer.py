"""`LocalRandomizer` against independent truths: the closed-form ε of randomized response and of
hand-built tables, the exact-arithmetic certifier, the complete graph against the path, the law
the sampler draws computed in exact rationals, and the randomizers of the local results.

The conformance checks every randomizer passes (fit, empirical privacy, refused arguments,
repr, self-description, sampler) are in the family battery (``test_family_battery.py``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import optmech
from optmech.certify import certify
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.mechanisms.randomized_response import binary_mechanism, randomized_response
from optmech.utilities import MutualInformation


@pytest.mark.parametrize(("k", "epsilon"), [(2, 0.1), (3, math.log(2.0)), (7, 2.5), (40, 8.0)])
def test_randomized_response_epsilon_is_its_closed_form(k: int, epsilon: float) -> None:
    """Generalised RR: ``P(true)/P(other) = e^ε`` exactly (Warner (1965)), so ε₀ = ε; the
    rounded-up ε₀ is at least the exact-arithmetic certificate's value minus one ulp (that
    certificate is the exact ε₀ of the floats rounded up) and within 1e-13 of ε."""
    rr = LocalRandomizer.randomized_response(k, epsilon)
    w = math.exp(epsilon)
    np.testing.assert_allclose(rr.probabilities(0)[:2], [w / (w + k - 1), 1 / (w + k - 1)])
    exact = certify(rr, exact=True).value
    assert rr.epsilon >= math.nextafter(exact, 0.0)
    assert rr.epsilon == pytest.approx(epsilon, rel=1e-13)
    assert certify(rr).value == pytest.approx(epsilon, rel=1e-13)
    np.testing.assert_array_equal(rr.matrix, randomized_response(k, epsilon))  # same numbers


def test_binary_mechanism_is_a_local_randomizer_at_its_epsilon() -> None:
    """Kairouz, Oh & Viswanath's binary mechanism: every column's max/min is ``e^ε``."""
    q = LocalRandomizer(binary_mechanism(np.array([True, False, True, False]), 1.5))
    assert q.epsilon == pytest.approx(1.5, rel=1e-13)


def test_every_pair_of_inputs_neighbours_not_only_the_path() -> None:
    """The path ``0 ~ 1 ~ 2`` sees ratios up to 0.3/0.1 = 3; every pair sees 0.6/0.1 = 6."""
    m = np.array([[0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]])
    q = LocalRandomizer(m)
    assert certify(m).value == pytest.approx(math.log(3.0), rel=1e-12)  # the path
    assert certify(q).value == pytest.approx(math.log(6.0), rel=1e-12)
    assert q.epsilon == pytest.approx(math.log(6.0), rel=1e-12)
    assert q.privacy == optmech.PureDP(q.epsilon)


def test_a_zero_facing_a_positive_entry_has_no_finite_epsilon() -> None:
    q = LocalRandomizer([[1.0, 0.0], [0.5, 0.5]])
    assert q.epsilon == math.inf and q.privacy is None
    assert certify(q).value == math.inf
    assert q.to_dict()["epsilon"] == "inf"
    constant = LocalRandomizer([[0.2, 0.8], [0.2, 0.8]])
    assert constant.epsilon == 0.0 and constant.privacy is None


def test_the_sampled_law_in_exact_rationals() -> None:
    """``rvs`` compares 53-bit uniforms with the cumulative row: output 0 has probability
    ``⌈2^53 p⌉/2^53`` (p = 0.1 is not dyadic), computed here with fractions."""
    p = 0.1
    q = LocalRandomizer([[p, 1 - p], [1 - p, p]])
    first = Fraction(math.ceil(Fraction(p) * 2**53), 2**53)
    assert Fraction(float(q.sampled_matrix()[0, 0])) == first
    assert q.sampled_matrix().sum(axis=1).tolist() == [1.0, 1.0]
    assert q.sampled_epsilon() == pytest.approx(math.log(9.0), rel=1e-12)
    tiny = LocalRandomizer([[1e-20, 1 - 1e-20], [0.5, 0.5]])  # drawn as 2^-53 (u = 0 only)
    assert tiny.sampled_matrix()[0, 0] == 2.0**-53
    assert tiny.epsilon == pytest.approx(math.log(0.5e20), rel=1e-12)
    assert tiny.sampled_epsilon() == pytest.approx(52 * math.log(2.0), rel=1e-12)


def test_probabilities_follow_the_labels() -> None:
    q = LocalRandomizer([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]], inputs=[3.0, 1.0, 2.0])
    np.testing.assert_array_equal(q.probabilities([1.0, 3.0]), [[0.2, 0.8], [0.9, 0.1]])
    assert q.probabilities(2.0).tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match=r"`x` must hold inputs of the randomizer \[3.0, 1.0"):
        q.probabilities(4.0)


def test_plot_labels_the_inputs_and_outputs() -> None:
    import matplotlib.pyplot as plt

    q = LocalRandomizer.randomized_response(3, 1.0, inputs=["x", "y", "z"])
    ax = q.plot()
    try:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["x", "y", "z"]
        assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y", "z"]
    finally:
        plt.close(ax.figure)
    assert "<caption>LocalRandomizer</caption>" in q._repr_html_()
    assert q.summary().splitlines()[0] == "LocalRandomizer"


# -- every local result exposes its randomizer ----------------------------------------------------
def _check(result: object, epsilon: float, inputs: object, outputs: object) -> None:
    q = result.randomizer  # type: ignore[attr-defined]
    assert isinstance(q, LocalRandomizer)
    np.testing.assert_array_equal(q.matrix, result.mechanism)  # type: ignore[attr-defined]
    np.testing.assert_array_equal(q.inputs, inputs)
    np.testing.assert_array_equal(q.outputs, outputs)
    assert certify(q).value <= epsilon * (1 + 1e-9)
    assert optmech.check(q, optmech.PureDP(epsilon))


def test_local_mechanism_randomizer() -> None:
    res = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2])
    _check(res, 1.0, [0, 1, 2], res.outputs)


def test_rr_on_bins_randomizer() -> None:
    x = [0.0, 1.0, 2.0, 3.0]
    res = optmech.rr_on_bins([0.1, 0.4, 0.4, 0.1], "squared", 1.0, inputs=x)
    _check(res, 1.0, x, res.outputs)


def test_extremal_mechanism_randomizer() -> None:
    res = optmech.extremal_mechanism(MutualInformation([0.3, 0.7]), math.log(3.0))
    _check(res, math.log(3.0), [0, 1], np.arange(res.mechanism.shape[1]))


# -- (ε, δ) where a pure ε does not say enough ----------------------------------------------------
def _delta_by_subsets(m: np.ndarray, ratio: int) -> Fraction:
    """``max over ordered pairs (i, j) and output sets S of P_i(S) − ratio·P_j(S)``, in exact
    rationals by enumerating every S (the definition of (ε, δ)-DP, ``ratio = e^ε``)."""
    rows, cols = m.shape
    q = [[Fraction(float(v)) for v in row] for row in m]
    best = Fraction(0)
    for i in range(rows):
        for j in range(rows):
            for mask in range(1 << cols):
                s = [r for r in range(cols) if mask >> r & 1]
                best = max(best, sum((q[i][r] - ratio * q[j][r] for r in s), Fraction(0)))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_delta_at_epsilon_matches_the_definition(seed: int) -> None:
    """A random randomizer with zeros (no finite ε): its certified δ at ε = ln 2 (``e^ε = 2``
    exactly in the floats) is at least the exact δ of the definition, by at most 1e-14; a claim
    at that δ holds and one at 0.9 of it fails."""
    gen = np.random.default_rng(seed)
    m = gen.random((3, 4)) * (gen.random((3, 4)) < 0.7)
    m[:, 0] += 0.1
    m /= m.sum(axis=1, keepdims=True)
    q = LocalRandomizer(m)
    assert math.exp(math.log(2.0)) == 2.0
    exact = _delta_by_subsets(q.matrix, 2)
    report = certify(q, optmech.ApproxDP(math.log(2.0), 0.5))
    assert Fraction(report.value) >= exact
    assert report.value <= float(exact) + 1e-14
    assert optmech.check(q, optmech.ApproxDP(math.log(2.0), float(exact)))
    assert not optmech.check(q, optmech.ApproxDP(math.log(2.0), 0.9 * float(exact)))
