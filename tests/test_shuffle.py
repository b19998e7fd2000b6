"""The shuffled guarantee of a local randomizer (``optmech.shuffle_epsilon``) against truths
computed here another way.

- Binary randomized response: the exact worst-case curve is the largest, over the number k of
  other users holding the likelier input and both directions, of
  ``Σ_s (P₁(s) − e^ε P₀(s))₊`` for the count ``Bin(k, a) + Bin(n − 1 − k, 1 − a) + B₁``; here
  the count's pmf is ``scipy.stats.binom.pmf`` convolved directly (the module uses the FFT of
  the generating function instead).
- Small k-ary randomizers: the histogram's law is enumerated for every pair and every choice
  of the other users' inputs (brute force over all datasets).

A certified ε is sound when the true δ at it is at most δ; a lower bound is sound when the true
δ at it is at least δ. One published number is reproduced: the example of Feldman, McMillan &
Talwar's public code (apple/ml-shuffling-amplification, README and example.py), n = 10⁵
reports of an ε₀ = 4 randomizer at δ = 10⁻⁶, whose numerical clone analysis puts ε in
[0.1675385583317841, 0.172790550755978] and whose closed form gives 0.5378040242374512.
"""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _shuffle_reference import brute_delta, histogram_law
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.signal import fftconvolve
from scipy.stats import binom

import optmech
from optmech.certify.shuffle import EXACT_MAX_N, ShuffleGuarantee

EPS0 = (0.5, 1.0, 2.0, 4.0, 6.0)


def rr(eps0: float, k: int = 2) -> npt.NDArray[np.float64]:
    """k-ary randomized response: the truth with probability e^ε₀ / (e^ε₀ + k − 1)."""
    e = math.exp(eps0)
    return (e * np.eye(k) + (1.0 - np.eye(k))) / (e + k - 1)


def rr_delta(n: int, eps0: float, eps: float, ks: Any = None) -> float:
    """δ(ε) of binary RR for n users, worst over k ∈ ``ks`` (all k by default) and both
    directions, from binomial pmfs convolved directly."""
    a = math.exp(eps0) / (1.0 + math.exp(eps0))
    others = n - 1
    worst = 0.0
    for k in range(others + 1) if ks is None else ks:
        left = binom.pmf(np.arange(k + 1), k, a)
        right = binom.pmf(np.arange(others - k + 1), others - k, 1.0 - a)
        count = np.maximum(fftconvolve(left, right), 0.0) if k > 50 else np.convolve(left, right)
        n0, n1 = np.append(count, 0.0), np.insert(count, 0, 0.0)
        p1, p0 = a * n1 + (1 - a) * n0, (1 - a) * n1 + a * n0
        for x, y in ((p1, p0), (p0, p1)):
            worst = max(worst, float(np.sum(np.maximum(x - math.exp(eps) * y, 0.0))))
    return worst


def random_matrix(seed: int, k_in: int, k_out: int, eps0: float) -> npt.NDArray[np.float64]:
    """A random row-stochastic matrix with every log ratio in a column at most about ε₀."""
    rng = np.random.default_rng(seed)
    logits = rng.uniform(0.0, eps0 / 2, size=(k_in, k_out))
    m = np.exp(logits) * rng.dirichlet(np.ones(k_out))
    return m / m.sum(axis=1, keepdims=True)


# -- exactness and soundness on binary randomized response ----------------------------------------
@pytest.mark.parametrize("eps0", [0.5, 2.0])
@pytest.mark.parametrize("n", [20, 100])
def test_exact_method_is_the_worst_case_curve(eps0: float, n: int) -> None:
    """At n ≤ 100 the exact method's ε and the lower bound bracket the true ε tightly: the true
    δ at the certified ε is at most δ, at the lower bound at least δ, and the two ε are within
    1e-3 relative (the FFT's rounding is charged to δ)."""
    delta = 1e-4
    g = optmech.shuffle_epsilon(rr(eps0), n, delta, method="exact")
    assert g.method == "exact"
    assert rr_delta(n, eps0, g.epsilon) <= delta
    if g.lower_bound > 0:
        assert rr_delta(n, eps0, g.lower_bound) >= delta
    assert g.epsilon <= g.lower_bound * (1 + 1e-3) + 1e-12
    up, low = g.curve([0.0, g.epsilon / 2, g.epsilon])
    truth = [rr_delta(n, eps0, e) for e in (0.0, g.epsilon / 2, g.epsilon)]
    assert np.all(low <= np.array(truth) * (1 + 1e-9)) and np.all(np.array(truth) <= up)


@pytest.mark.slow  # the true curve over every k at n = 1000 (about 4 s over the grid)
@pytest.mark.parametrize("eps0", EPS0)
@pytest.mark.parametrize("n", [100, 1000])
def test_binary_rr_sound_and_within_five_percent(eps0: float, n: int) -> None:
    """epsilon ≥ exact ≥ lower_bound (true δ ≤ δ at epsilon, ≥ δ at lower_bound), and the
    certified ε is within 5 % of the exact one (the true δ at epsilon / 1.05 exceeds δ)."""
    delta = 1e-6
    g = optmech.shuffle_epsilon(rr(eps0), n, delta)
    assert g.epsilon <= g.local_epsilon
    assert rr_delta(n, eps0, g.epsilon) <= delta
    if g.lower_bound > 0:
        assert rr_delta(n, eps0, g.lower_bound) >= delta
    if g.epsilon < g.local_epsilon:
        assert rr_delta(n, eps0, g.epsilon / 1.05) > delta


@pytest.mark.slow  # about 2 s over the grid
@pytest.mark.parametrize("eps0", EPS0)
def test_binary_rr_sound_at_ten_thousand(eps0: float) -> None:
    """At n = 10⁴ (beyond the exact method) every concrete count of others checked here —
    k ≤ 30 or k ≥ n − 31, and every 500th k — has δ ≤ δ at the certified ε, and one of them
    δ ≥ δ at the lower bound."""
    n, delta = 10_000, 1e-6
    ks = sorted({*range(31), *range(n - 32, n), *range(0, n, 500)})
    g = optmech.shuffle_epsilon(rr(eps0), n, delta)
    assert g.lower_bound <= g.epsilon <= g.local_epsilon
    assert rr_delta(n, eps0, g.epsilon, ks) <= delta
    if g.lower_bound > 0:
        assert rr_delta(n, eps0, g.lower_bound, ks) >= delta


@pytest.mark.parametrize("eps0", EPS0)
@pytest.mark.parametrize(
    "n",
    [10_000, 1_000_000],
)
def test_binary_rr_interval_beyond_the_full_table(eps0: float, n: int) -> None:
    """Beyond n = EXACT_MAX_N the exact method goes by blocks of the count: its ε is within
    1 % of the ε of a concrete pair of datasets (measured at most 0.4 %, ε₀ = 0.5, n = 10⁶),
    so within 1 % of the true central ε."""
    g = optmech.shuffle_epsilon(rr(eps0), n, 1e-6)
    assert g.method == "exact"
    assert g.lower_bound <= g.epsilon <= 1.01 * g.lower_bound


@pytest.mark.parametrize("eps0", [1.0, 4.0])
def test_every_method_bounds_the_exact_curve(eps0: float) -> None:
    """Each upper method alone is sound at n = 60, and the weaker bound is the generic one:
    exact ≤ blanket ≤ clones."""
    n, delta = 60, 1e-3
    eps = {
        m: optmech.shuffle_epsilon(rr(eps0), n, delta, method=m).epsilon
        for m in ("exact", "blanket", "clones")
    }
    for value in eps.values():
        assert rr_delta(n, eps0, value) <= delta
    # The exact method's δ carries its FFT allowance (below 1e-9), worth 1e-6 relative in ε.
    assert eps["exact"] <= eps["blanket"] * (1 + 1e-6) and eps["blanket"] <= eps["clones"]


def test_reproduces_the_published_clone_bound() -> None:
    """FMT 2021's code brackets the clone pair's ε at (n = 10⁵, ε₀ = 4, δ = 10⁻⁶) in
    [0.16754, 0.17279] (its lower end bounds the same curve from below, its upper end with a
    coarser grid of c from above); the ``"clones"`` method computes that curve with a finer
    grid, so its ε lies in the bracket. Both are below the paper's closed form, 0.5378."""
    g = optmech.shuffle_epsilon(rr(4.0), 100_000, 1e-6, method="clones")
    assert 0.1675385583317841 <= g.epsilon <= 0.172790550755978 < 0.5378040242374512
    assert g.method == "clones"


# -- k-ary randomizers ----------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_k_ary_bounds_bracket_the_brute_force_truth(seed: int) -> None:
    """Three inputs, three outputs, four users: the histogram's true curve, by enumeration of
    every dataset, is at most δ at the certified ε and at least δ at the lower bound."""
    matrix = random_matrix(seed, 3, 3, 1.0)
    n, delta = 4, 0.05
    g = optmech.shuffle_epsilon(matrix, n, delta)
    assert g.lower_bound <= g.epsilon <= g.local_epsilon
    assert brute_delta(matrix, n, g.epsilon) <= delta * (1 + 1e-12)
    if g.lower_bound > 0:
        assert brute_delta(matrix, n, g.lower_bound) >= delta


def test_k_rr_brute_force_with_amplification() -> None:
    """3-RR at ε₀ = 1 over six users with δ = 0.1: the certified ε is below ε₀ (amplified),
    and sound against enumeration."""
    matrix, n, delta = rr(1.0, 3), 6, 0.1
    g = optmech.shuffle_epsilon(matrix, n, delta)
    assert g.epsilon < g.local_epsilon
    assert brute_delta(matrix, n, g.epsilon) <= delta * (1 + 1e-12)
    assert brute_delta(matrix, n, g.lower_bound) >= delta


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [100, 10_000])
def test_random_matrices_keep_their_bounds_in_order(seed: int, n: int) -> None:
    """lower_bound ≤ epsilon ≤ local_epsilon; blanket ≤ clones (the matrix's clone
    probability is at least e^−ε₀); the upper curve is above the lower one."""
    rng = np.random.default_rng(seed)
    k_in, k_out = int(rng.integers(2, 7)), int(rng.integers(2, 9))
    matrix = random_matrix(seed, k_in, k_out, float(rng.uniform(0.5, 4.0)))
    g = optmech.shuffle_epsilon(matrix, n, 1e-6)
    assert 0.0 <= g.lower_bound <= g.epsilon <= g.local_epsilon
    assert g.local_epsilon == pytest.approx(
        np.max(np.log(matrix.max(axis=0)) - np.log(matrix.min(axis=0))), rel=1e-12
    )
    assert g.bounds["blanket"] <= g.bounds["clones"] * (1 + 1e-9)
    up, low = g.curve(np.linspace(0.0, g.local_epsilon, 9))
    assert np.all(low <= up) and np.all(np.diff(up) <= 1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_two_set_counts_are_computed_exactly(seed: int) -> None:
    """The lower curve of two sets (the rest pooled) equals the curve of the projected
    histogram enumerated here, for one pair and every other user at one row (five users, four
    outputs); it is computed by binomial tails per slice in the module, by summing the
    enumerated law here."""
    from optmech.certify.shuffle_lower import _FourSetsCurve

    matrix, n = random_matrix(seed, 3, 4, 2.0), 5
    i, j, o = 0, 1, 2
    s0, s1 = matrix[i] > matrix[j], matrix[j] > matrix[i]
    proj = np.column_stack(
        [matrix[:, s0].sum(1), matrix[:, s1].sum(1), matrix[:, ~(s0 | s1)].sum(1)]
    )
    curve = _FourSetsCurve(n - 1, proj[i], proj[j], proj[o])
    p = histogram_law([proj[i], *[proj[o]] * (n - 1)])
    q = histogram_law([proj[j], *[proj[o]] * (n - 1)])
    for eps in (0.0, 0.3, 1.0):
        truth = sum(max(p[h] - math.exp(eps) * q.get(h, 0.0), 0.0) for h in p)
        assert curve(eps) == pytest.approx(truth, rel=1e-9, abs=1e-14)


def test_amplification_never_hurts() -> None:
    """Three users and a strict δ: the guarantee stays at (a hair below) ε₀, never above, and
    the truth by enumeration agrees."""
    matrix = rr(3.0, 3)
    g = optmech.shuffle_epsilon(matrix, 3, 1e-9)
    assert g.local_epsilon * (1 - 1e-6) <= g.epsilon <= g.local_epsilon
    assert brute_delta(matrix, 3, g.epsilon) <= 1e-9
    assert optmech.shuffle_epsilon(matrix, 3, 1e-9, method="clones").epsilon <= g.local_epsilon


def test_identical_rows_are_perfectly_private() -> None:
    """Rows all equal: ε₀ = 0, nothing to amplify, and the curve is 0 everywhere."""
    g = optmech.shuffle_epsilon(np.full((3, 4), 0.25), 10, 1e-6)
    assert (g.epsilon, g.lower_bound, g.local_epsilon) == (0.0, 0.0, 0.0)
    up, low = g.curve([0.0, 1.0])
    assert up.tolist() == low.tolist() == [0.0, 0.0]


# -- monotonicity ---------------------------------------------------------------------------------
@pytest.mark.slow  # 1.5 s (RR) and 3 s (16-RR): five sizes up to 10⁶, three methods
@pytest.mark.parametrize("matrix", [rr(2.0), rr(2.0, 16)], ids=["RR", "16-RR"])
def test_epsilon_decreases_with_n(matrix: npt.NDArray[np.float64]) -> None:
    """More users hide one better: each method's ε is non-increasing in n, and so is 'auto'
    past the exact method's range."""
    sizes = [EXACT_MAX_N + 1, 3_000, 10_000, 100_000, 1_000_000]
    for method in ("auto", "clones", "blanket"):
        eps = [optmech.shuffle_epsilon(matrix, n, 1e-6, method=method).epsilon for n in sizes]
        assert all(b <= a for a, b in itertools.pairwise(eps)), (method, eps)
    eps = [optmech.shuffle_epsilon(rr(2.0), n, 1e-6, method="exact").epsilon for n in (50, 200)]
    assert eps[1] <= eps[0]


# -- inputs, results, profiles --------------------------------------------------------------------
def test_duck_typed_randomizers_give_the_same_guarantee() -> None:
    matrix = rr(1.0, 3)
    want = optmech.shuffle_epsilon(matrix, 500, 1e-6)
    for obj in (
        SimpleNamespace(mechanism=matrix),
        SimpleNamespace(randomizer=SimpleNamespace(matrix=matrix)),
        SimpleNamespace(randomizer=matrix),
        SimpleNamespace(matrix=matrix),
        matrix.tolist(),
    ):
        got = optmech.shuffle_epsilon(obj, 500, 1e-6)
        assert (got.epsilon, got.lower_bound) == (want.epsilon, want.lower_bound)


def test_a_local_randomizer_is_read_through_its_matrix() -> None:
    """``LocalRandomizer`` carries its matrix as ``.matrix``: the same guarantee as the array."""
    from optmech.mechanisms import LocalRandomizer

    randomizer = LocalRandomizer.randomized_response(4, 1.0)
    got = optmech.shuffle_epsilon(randomizer, 1000, 1e-6)
    want = optmech.shuffle_epsilon(randomizer.matrix, 1000, 1e-6)
    assert (got.epsilon, got.lower_bound) == (want.epsilon, want.lower_bound)


@pytest.mark.slow  # imports the LP layer (cvxpy) for the local result
def test_a_local_result_is_read_through_its_mechanism() -> None:
    res = optmech.rr_on_bins([0.2, 0.3, 0.5], "squared", 1.0, inputs=[0.0, 1.0, 2.0])
    g = optmech.shuffle_epsilon(res, 1000, 1e-6)
    assert g.local_epsilon <= 1.0 + 1e-9 and g.epsilon < g.local_epsilon
    np.testing.assert_array_equal(g.randomizer, res.mechanism)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"mechanism": [[1.0, 0.0], [0.5, 0.5]]}, r"`mechanism`.*inf"),
        ({"mechanism": [[0.6, 0.3], [0.5, 0.5]]}, r"`mechanism` rows must sum to 1"),
        ({"mechanism": [[0.5, 0.5]]}, r"`mechanism` must be a 2-D matrix with at least 2 rows"),
        ({"mechanism": [[np.nan, 1.0], [0.5, 0.5]]}, r"`mechanism` must have finite"),
        ({"mechanism": [[-0.1, 1.1], [0.5, 0.5]]}, r"`mechanism` must have finite, non-neg"),
        ({"n": 1}, r"`n` must be an integer in \[2, inf\); got 1"),
        ({"n": 2.5}, r"`n` must be an integer.*2\.5"),
        ({"n": True}, r"`n` must be an integer"),
        ({"delta": 0.0}, r"`delta` must be a real number in \(0, 1\); got 0\.0"),
        ({"delta": 1.0}, r"`delta` must be a real number in \(0, 1\)"),
        ({"delta": "x"}, r"`delta`"),
        ({"method": "fast"}, r"`method` must be one of"),
        ({"mechanism": rr(1.0, 3), "method": "exact"}, r"`method` 'exact' needs .* two outputs"),
    ],
)
def test_bad_input_names_the_argument(kwargs: dict[str, Any], match: str) -> None:
    args = {"mechanism": rr(1.0), "n": 100, "delta": 1e-6, **kwargs}
    with pytest.raises(ValueError, match=match):
        optmech.shuffle_epsilon(**args)


def test_not_a_matrix_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="`mechanism` must be a row-stochastic matrix"):
        optmech.shuffle_epsilon(object(), 10, 1e-6)


def test_profile_holds_the_upper_curve() -> None:
    """The profile's points bound the true curve; ε₀ has δ = 0. The truth here is a sum of
    at most 2n + 2 rounded differences of pmf values below 1, so it is compared with an
    allowance of 4 (n + 1) u."""
    g = optmech.shuffle_epsilon(rr(1.0), 200, 1e-6)
    profile = g.to_profile(16)
    assert isinstance(profile, optmech.PrivacyProfile) and len(profile.epsilons) == 16
    assert profile.epsilons[-1] == g.local_epsilon and profile.deltas[-1] == 0.0
    for e, d in zip(profile.epsilons, profile.deltas, strict=True):
        assert rr_delta(200, 1.0, e) <= d + 4 * 201 * 2.0**-53
    with pytest.raises(ValueError, match="`points`"):
        g.to_profile(1)


def test_curve_refuses_negative_epsilons() -> None:
    g = optmech.shuffle_epsilon(rr(1.0), 50, 1e-6)
    with pytest.raises(ValueError, match="`epsilons`"):
        g.curve([-1.0])


def test_result_shape() -> None:
    g = optmech.shuffle_epsilon(rr(1.0), 50, 1e-6)
    assert isinstance(g, ShuffleGuarantee) and optmech.ShuffleGuarantee is ShuffleGuarantee
    assert optmech.certify.shuffle_epsilon is optmech.shuffle_epsilon
    assert g.value == g.upper_bound == g.certified_epsilon == g.epsilon
    assert g.privacy_certified is None
    data = g.to_dict()
    assert data["method"] == "exact" and data["n"] == 50 and "local" in data["bounds"]


def test_a_law_that_rounds_past_one_is_read_as_one() -> None:
    """Closed-form laws can sum to 1 + a few ulps; the lower curve's window must not take the
    square root of a negative variance (it did: a math domain error)."""
    from optmech.certify.shuffle_curves import _window
    from optmech.certify.shuffle_lower import _FourSetsCurve

    assert _window(1000, 1.0 + 4e-16) == (990, 1000)
    first = np.array([0.7, 0.2, 0.1])
    second = np.array([0.2, 0.7, 0.1])
    curve = _FourSetsCurve(100, first, second, np.array([0.5, 0.5 + 4e-16, 0.0]))
    assert 0.0 <= curve(0.5) <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    root=st.floats(0.01, 10.0),
    power=st.sampled_from([1.0, 3.0, 0.2]),
    rtol=st.sampled_from([1e-3, 1e-6, 1e-9]),
)
def test_crossing_search_brackets_a_known_root(root: float, power: float, rtol: float) -> None:
    """The certificate's own root search (Brent's method, then bisection; it avoids importing
    scipy.optimize) returns ``lo < hi`` with ``f(lo) > 0 ≥ f(hi)``, about ``rtol`` apart and
    around the known root of a decreasing function with a simple, a flat (cubic) or a steep
    (power 0.2) root; Brent's own points are evaluated ones."""
    from optmech.certify.shuffle_curves import _brent, _refine

    def f(x: float) -> float:
        return -math.copysign(abs(x - root) ** power, x - root)

    b, fb, c, fc = _brent(f, 0.0, f(0.0), 20.0, f(20.0), rtol)
    assert fb == f(b) and fc == f(c)
    lo, hi = _refine(f, 0.0, f(0.0), 20.0, f(20.0), rtol)
    assert f(lo) > 0.0 >= f(hi)
    assert lo <= root <= hi
    assert hi - lo <= 2.0 * rtol * max(hi, 1e-6)


def test_a_bound_below_a_concrete_pair_is_refused_not_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A deliberately wrong upper curve (1e-4 times the clone bound): the lower search would stop
    # at its ε, and the pair's curve exceeds δ there, so the result is an error.
    import optmech.certify.shuffle as shuffle

    clone_curve = shuffle._CloneCurve

    class Tenth:
        def __init__(self, *args: Any) -> None:
            self.inner = clone_curve(*args)

        def __call__(self, eps: float) -> float:
            return 1e-4 * self.inner(eps)

    monkeypatch.setattr(shuffle, "_CloneCurve", Tenth)
    k3 = (np.e * np.eye(3) + 1 - np.eye(3)) / (np.e + 2)
    with pytest.raises(optmech.PrivacyViolationError, match="concrete pair"):
        optmech.shuffle_epsilon(k3, 200, 1e-4, method="clones")
    monkeypatch.undo()  # the true clone bound is consistent with the same pairs
    g = optmech.shuffle_epsilon(k3, 200, 1e-4, method="clones")
    assert g.lower_bound < g.epsilon
