"""The variation-ratio method and the exact binary curve by blocks, against truths computed here.

- Parameters: the table of variation-ratio parameters of Wang et al. (PVLDB 2024; the table
  "amplification parameters for LDP randomizers" of their public repository
  wangsw/PrivacyAmplification, README) for k-ary randomized response and the k-subset
  mechanism, from the closed forms there; here computed from matrices built in this file.
- Soundness: the histogram's law enumerated for every pair and every dataset of the other
  users (small n), by 2-D convolution of the counts of the first two outputs.
- The published pooled comparison (Proposition I.1 of the paper's appendix), summed here over
  the whole (a, b) grid, falls below the truth for 3-ary randomized response: the reason the
  module keeps user 1's neutral draw apart.
- Binary randomized response: the worst case over every k (binomial pmfs convolved directly),
  and at large n the worst over the ends and a grid of k.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt
import pytest
from scipy.signal import convolve2d, fftconvolve
from scipy.stats import binom

import optmech
from optmech.certify.shuffle_curves import _ExactBinaryCurve
from optmech.certify.shuffle_exact import _BlockedBinaryCurve
from optmech.certify.shuffle_variation import _VariationRatioCurve, variation_ratio_parameters

Matrix = npt.NDArray[np.float64]


def krr(eps0: float, k: int) -> Matrix:
    e = math.exp(eps0)
    return (e * np.eye(k) + (1.0 - np.eye(k))) / (e + k - 1)


def subset_mechanism(eps0: float, d: int, k: int) -> Matrix:
    """k-subset selection on d inputs: a subset S with probability ∝ e^ε₀ if x ∈ S, else 1."""
    subsets = list(itertools.combinations(range(d), k))
    m = np.array([[math.exp(eps0) if x in s else 1.0 for s in subsets] for x in range(d)])
    return m / m.sum(axis=1, keepdims=True)


# -- parameters ---------------------------------------------------------------------------------
@pytest.mark.parametrize("eps0", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("k", [2, 3, 10])
def test_parameters_of_k_rr_match_the_published_table(eps0: float, k: int) -> None:
    """k-RR: p = q = e^ε₀, β = (e^ε₀ − 1)/(e^ε₀ + k − 1) (the published table's row)."""
    v = variation_ratio_parameters(krr(eps0, k))
    e = math.exp(eps0)
    assert v.p == pytest.approx(e, rel=1e-12) and v.q == pytest.approx(e, rel=1e-12)
    assert v.beta == pytest.approx((e - 1) / (e + k - 1), rel=1e-12)
    assert v.beta >= (e - 1) / (e + k - 1) and v.p >= e  # rounded outward


@pytest.mark.parametrize(("d", "k"), [(4, 2), (5, 2), (6, 3)])
def test_parameters_of_the_subset_mechanism_match_the_published_table(d: int, k: int) -> None:
    """k-subset on d options: β = (e^ε − 1)(C(d−1,k−1) − C(d−2,k−2)) / (e^ε C(d−1,k−1) +
    C(d−1,k)) (the published table's row)."""
    eps0 = 1.3
    e, c = math.exp(eps0), math.comb
    v = variation_ratio_parameters(subset_mechanism(eps0, d, k))
    beta = (e - 1) * (c(d - 1, k - 1) - c(d - 2, k - 2)) / (e * c(d - 1, k - 1) + c(d - 1, k))
    assert v.beta == pytest.approx(beta, rel=1e-12)
    assert v.p == pytest.approx(e, rel=1e-12)


# -- truths by enumeration ------------------------------------------------------------------------
def _row_poly(row: Matrix) -> Matrix:
    """Generating polynomial of one report over (count of output 0, count of output 1)."""
    poly = np.zeros((2, 2))
    poly[1, 0], poly[0, 1], poly[0, 0] = row[0], row[1], row[2:].sum()
    return poly


def three_output_delta(matrix: Matrix, n: int, eps: float) -> float:
    """δ(ε) of the shuffled histogram of a 3-output matrix, worst over every pair and every
    dataset of the other users (the histogram is the pair of counts of outputs 0 and 1)."""
    assert matrix.shape[1] == 3
    e, worst = math.exp(eps), 0.0
    inputs = range(matrix.shape[0])
    for others in itertools.combinations_with_replacement(inputs, n - 1):
        base = np.ones((1, 1))
        for x in others:
            base = convolve2d(base, _row_poly(matrix[x]))
        for x0, x1 in itertools.permutations(inputs, 2):
            p = convolve2d(base, _row_poly(matrix[x0]))
            q = convolve2d(base, _row_poly(matrix[x1]))
            worst = max(worst, float(np.sum(np.maximum(p - e * q, 0.0))))
    return worst


def published_pooled_delta(p: float, beta: float, q: float, n: int, eps: float) -> float:
    """The published comparison: counts (a, b) of Q⁰ and Q¹ draws, user 1's neutral draw
    pooled with the others' (Wang et al., appendix, Proposition I.1), summed over the grid."""
    alpha = beta / (p - 1)
    m, r = 1 - alpha - p * alpha, alpha * p / q
    grid = np.zeros((n, n))
    for a in range(n):
        for b in range(n - a):
            grid[a, b] = (
                math.comb(n - 1, a)
                * math.comb(n - 1 - a, b)
                * r ** (a + b)
                * (1 - 2 * r) ** (n - 1 - a - b)
            )
    first, second = np.zeros((n + 1, n + 1)), np.zeros((n + 1, n + 1))
    for law, (w0, w1) in ((first, (p * alpha, alpha)), (second, (alpha, p * alpha))):
        law[1:, :n] += w0 * grid
        law[:n, 1:] += w1 * grid
        law[:n, :n] += m * grid
    e = math.exp(eps)
    return max(
        float(np.sum(np.maximum(first - e * second, 0.0))),
        float(np.sum(np.maximum(second - e * first, 0.0))),
    )


def test_the_published_pooling_is_not_an_upper_bound() -> None:
    """3-RR, ε₀ = 1, two users, the other at x⁰: the histogram's δ at ε = 0.82 is about 0.054,
    the published comparison gives about 0.020; the sound form here is above the truth."""
    matrix, n, eps = krr(1.0, 3), 2, 0.82
    truth = three_output_delta(matrix, n, eps)
    v = variation_ratio_parameters(matrix)
    published = published_pooled_delta(math.e, (math.e - 1) / (math.e + 2), math.e, n, eps)
    assert truth > 2.5 * published
    assert _VariationRatioCurve(n - 1, v)(eps) >= truth


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n", [2, 4, 7])
def test_variation_ratio_bounds_the_truth(seed: int, n: int) -> None:
    """Random 3 × 3 matrices and 3-RR: the sound curve is above the enumerated truth at every ε
    of a grid, and so is the certified ε of shuffle_epsilon's method."""
    rng = np.random.default_rng(seed)
    if seed == 0:
        matrix = krr(1.5, 3)
    else:
        matrix = rng.dirichlet(np.full(3, 0.8), size=3)
        matrix = np.maximum(matrix, 0.03)
        matrix /= matrix.sum(axis=1, keepdims=True)
    v = variation_ratio_parameters(matrix)
    curve = _VariationRatioCurve(n - 1, v)
    eps0 = math.log(v.p)
    for eps in np.linspace(0.0, eps0, 7)[:-1]:
        assert curve(float(eps)) >= three_output_delta(matrix, n, float(eps)) * (1 - 1e-12)
    g = optmech.shuffle_epsilon(matrix, n, 1e-2, method="variation-ratio")
    assert three_output_delta(matrix, n, g.bounds["variation-ratio"]) <= 1e-2 * (1 + 1e-12)


def test_variation_ratio_is_the_blanket_on_binary_rr() -> None:
    """Binary RR has no neutral part (m = 0): the sound form is the published one and FMT's
    clone pair at the blanket probability, so the two methods agree (to their discretisations
    of the clone count)."""
    vr, blanket = (
        optmech.shuffle_epsilon(krr(2.0, 2), 5_000, 1e-6, method=m).epsilon
        for m in ("variation-ratio", "blanket")
    )
    assert vr == pytest.approx(blanket, rel=5e-3)


@pytest.mark.slow  # n = 10⁴: about 1 to 2 s each
@pytest.mark.parametrize("k", [3, 8, 32])
@pytest.mark.parametrize("eps0", [1.0, 4.0])
def test_variation_ratio_is_tight_on_k_rr(k: int, eps0: float) -> None:
    """k-RR at n = 10⁴, δ = 1e-6: the sound variation-ratio bound is within 2 % of the ε of a
    concrete pair of datasets (measured within 0.15 %), and is what 'auto' certifies; for
    k = 32, where the curve with one integer a bin is searched last, within 0.05 % (measured
    within 0.025 %). 'auto' certifies it, or the blanket divergence where that is smaller."""
    g = optmech.shuffle_epsilon(krr(eps0, k), 10_000, 1e-6)
    v = g.bounds["variation-ratio"]
    assert g.method in ("variation-ratio", "blanket")
    assert g.lower_bound <= g.epsilon <= v <= 1.02 * g.lower_bound
    if k == 32:
        assert v <= 1.0005 * g.lower_bound


@pytest.mark.parametrize(("k", "eps0"), [(4, 1.0), (16, 3.0)])
def test_one_integer_a_bin_refines_the_binned_curve(
    k: int, eps0: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """k-RR, n = 300: the curve with one integer a bin (built from pmfs, all pairs at once)
    equals the binned construction (differences of tails, one N at a time) forced to bins of
    one integer, and the curves of coarser budgets, each bin charged its worst end, lie above
    it at every ε of a grid: the staged search's finer curves cross δ below the coarser."""
    import optmech.certify.shuffle_variation as sv

    v = variation_ratio_parameters(krr(eps0, k))
    fine = sv._VariationRatioCurve(299, v, budget=1 << 22)
    assert fine.exact_bins
    coarse = [sv._VariationRatioCurve(299, v, budget=b) for b in (256, 2048)]
    assert not any(c.exact_bins for c in coarse)
    monkeypatch.setattr(sv, "_bin_counts", lambda *args: (1 << 30, 1 << 30))
    loop = sv._VariationRatioCurve(299, v, budget=1)
    assert not loop.exact_bins and loop.u.size == fine.u.size
    for eps in np.linspace(0.0, eps0, 9)[:-1]:
        value = fine(float(eps))
        assert value > 0.0
        assert loop(float(eps)) == pytest.approx(value, rel=1e-9, abs=1e-10)
        for curve in coarse:
            assert curve(float(eps)) >= value


# -- the exact binary curve by blocks -------------------------------------------------------------
def _support(total: int, prob: float) -> npt.NDArray[np.int64]:
    """The integers within 40 standard deviations of Bin(total, prob) (beyond: below 1e-300)."""
    sd = math.sqrt(total * prob * (1 - prob))
    return np.arange(
        max(0, math.floor(total * prob - 40 * sd - 40)),
        min(total, math.ceil(total * prob + 40 * sd + 40)) + 1,
    )


def rr_delta_all_k(n: int, hi: float, lo: float, eps: float, ks: range | list[int]) -> float:
    """Worst over k in ``ks`` and both directions of Σ_s (P₁(s) − e^ε P₀(s))₊ for the count
    Bin(k, hi) + Bin(n − 1 − k, lo) + user 1's report, pmfs convolved directly."""
    others, worst, e = n - 1, 0.0, math.exp(eps)
    for k in ks:
        left = binom.pmf(_support(k, hi), k, hi)
        right = binom.pmf(_support(others - k, lo), others - k, lo)
        count = np.maximum(fftconvolve(left, right), 0.0) if k > 50 else np.convolve(left, right)
        n0, n1 = np.append(count, 0.0), np.insert(count, 0, 0.0)
        for first, second in ((hi, lo), (lo, hi)):
            a, b = first * n1 + (1 - first) * n0, second * n1 + (1 - second) * n0
            worst = max(worst, float(np.sum(np.maximum(a - e * b, 0.0))))
    return worst


@pytest.mark.parametrize(("hi", "lo"), [(0.88, 0.12), (0.7, 0.1), (0.95, 0.6)])
@pytest.mark.parametrize("budget", [2_000, 10**9])
def test_blocks_bound_every_k(hi: float, lo: float, budget: int) -> None:
    """n = 300: the blocked curve is above the worst over all k; with one k per block it
    equals it (to the charged rounding), and agrees with the FFT table."""
    n = 300
    curve = _BlockedBinaryCurve(n - 1, hi, lo, budget)
    table = _ExactBinaryCurve(n - 1, hi, lo)
    for eps in (0.1, 0.4, 1.0):
        truth = rr_delta_all_k(n, hi, lo, eps, range(n))
        assert curve(eps) >= truth
        if budget > 10**6:
            assert curve.dropped == 0
            # The FFT's rounding is charged (about 1e-11 here).
            assert curve(eps) == pytest.approx(truth, rel=1e-9, abs=1e-10)
            # The table charges its own rounding (a few 1e-9 here).
            assert abs(curve(eps) - table(eps)) <= table.error * (1 + math.exp(eps)) + 1e-10


@pytest.mark.slow  # every k at n = 2 500: about 3 s
@pytest.mark.parametrize("eps0", [0.5, 2.0, 6.0])
def test_exact_by_blocks_brackets_the_truth_over_every_k(eps0: float) -> None:
    """n = 2 500 (beyond the FFT table): epsilon ≥ the true ε ≥ lower_bound over every k, and
    epsilon is within 5 % of the true ε."""
    n, delta = 2_500, 1e-6
    a = math.exp(eps0) / (1 + math.exp(eps0))
    g = optmech.shuffle_epsilon(krr(eps0, 2), n, delta)
    assert rr_delta_all_k(n, a, 1 - a, g.bounds["exact"], range(n)) <= delta
    assert rr_delta_all_k(n, a, 1 - a, g.epsilon, range(n)) <= delta
    if g.lower_bound > 0:
        assert rr_delta_all_k(n, a, 1 - a, g.lower_bound, range(n)) >= delta
    if g.epsilon < g.local_epsilon:
        assert rr_delta_all_k(n, a, 1 - a, g.epsilon / 1.05, range(n)) > delta


@pytest.mark.slow  # n up to 10⁶: about 40 s in all
@pytest.mark.parametrize("eps0", [0.5, 1.0, 2.0, 4.0, 6.0])
@pytest.mark.parametrize("n", [100, 10_000, 1_000_000])
def test_auto_is_within_five_percent_on_binary_rr(eps0: float, n: int) -> None:
    """'auto' on binary RR at δ = 1e-6: the true δ (worst over the ends and a grid of k) is
    ≤ δ at epsilon, ≥ δ at lower_bound and at epsilon / 1.05 (so within 5 % of the truth)."""
    delta = 1e-6
    a = math.exp(eps0) / (1 + math.exp(eps0))
    others = n - 1
    ks = sorted({*range(4), *range(others - 3, others + 1), *range(0, n, max(1, n // 10))})
    g = optmech.shuffle_epsilon(krr(eps0, 2), n, delta)
    assert g.lower_bound <= g.epsilon <= g.local_epsilon
    assert rr_delta_all_k(n, a, 1 - a, g.epsilon, ks) <= delta
    if g.lower_bound > 0:
        assert rr_delta_all_k(n, a, 1 - a, g.lower_bound, ks) >= delta
    if g.epsilon < g.local_epsilon:
        assert rr_delta_all_k(n, a, 1 - a, g.epsilon / 1.05, ks) > delta
