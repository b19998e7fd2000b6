"""The privacy blanket of shuffled reports (``optmech.certify.shuffle_blanket``) against truths
computed another way.

- Brute force: for a few users the histogram's law is enumerated for every pair and every
  dataset of the others (``tests.test_shuffle.brute_delta``); the blanket curve must lie above.
- The blanket divergence itself, ``Σ_m P(m) E[(Σ_{i ≤ m+1} Z_i)₊] / (m + 1)`` worst over the
  ordered pairs, is computed here by enumerating every sequence of m + 1 outputs (not groups)
  with Z read from the matrix directly; the module sums binomial tails over groups of outputs.
- Binary randomized response: the exact worst-case curve (``method="exact"``) is a lower bound
  of every valid upper bound.
- k-ary randomized response: the concrete datasets of the lower bound stay below the blanket
  curve, and the blanket divergence is at most the clone form it refines (Su, Cheng & Wang
  2025: the blanket is the optimal decomposition).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt
import pytest
from scipy.stats import binom

import optmech
from optmech.certify.shuffle_blanket import _BlanketCurve, blanket_groups
from optmech.certify.shuffle_curves import _clone_p, _CloneCurve
from optmech.certify.shuffle_lower import _lower_curves_of, _lower_laws
from optmech.certify.shuffle_variation import _bins, _mass
from tests.test_shuffle import brute_delta, random_matrix, rr, rr_delta

EPS = (0.05, 0.3, 0.8)


def curve_of(
    matrix: npt.NDArray[np.float64], n: int, budget: int = 1 << 16, blocks: int = 0
) -> _BlanketCurve:
    groups = blanket_groups(matrix)
    assert groups is not None
    eps0 = optmech.shuffle_epsilon(matrix, 2, 0.5).local_epsilon
    return _BlanketCurve(n - 1, groups, eps0, budget, blocks=blocks)


def direct_blanket(matrix: npt.NDArray[np.float64], n: int, eps: float) -> float:
    """Σ_m P(m) E[(Σ Z)₊]/(m + 1), m ~ Bin(n − 1, γ), worst over ordered pairs, every sequence
    of the m + 1 blanket outputs enumerated."""
    floor = matrix.min(axis=0)
    gamma = float(floor.sum())
    omega = floor / gamma
    outputs = range(matrix.shape[1])
    worst = 0.0
    for x0, x1 in itertools.permutations(range(matrix.shape[0]), 2):
        z = (matrix[x0] - math.exp(eps) * matrix[x1]) / omega
        total = 0.0
        for m in range(n):
            inner = 0.0
            for seq in itertools.product(outputs, repeat=m + 1):
                s = float(np.sum(z[list(seq)]))
                if s > 0.0:
                    inner += float(np.prod(omega[list(seq)])) * s
            total += float(binom.pmf(m, n - 1, gamma)) * inner / (m + 1)
        worst = max(worst, total)
    return worst


MATRICES = [
    ("rr3", rr(1.0, 3)),
    ("rr4", rr(2.0, 4)),
    ("rr2", rr(1.5, 2)),
    ("random3x3", random_matrix(3, 3, 3, 2.0)),
    ("random4x3", random_matrix(7, 4, 3, 1.5)),
    ("random5x2", random_matrix(5, 5, 2, 2.0)),  # only the extreme rows' pairs are evaluated
]


@pytest.mark.parametrize(("name", "matrix"), MATRICES)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_blanket_is_above_the_brute_force_histogram(
    name: str, matrix: npt.NDArray[np.float64], n: int
) -> None:
    curve = curve_of(matrix, n)
    for eps in EPS:
        assert curve(eps) >= brute_delta(matrix, n, eps), (name, n, eps)


@pytest.mark.parametrize(("name", "matrix"), MATRICES)
@pytest.mark.parametrize("n", [2, 4, 5])
def test_grouped_form_is_the_enumerated_divergence(
    name: str, matrix: npt.NDArray[np.float64], n: int
) -> None:
    curve = curve_of(matrix, n)
    blocked = curve_of(matrix, n, blocks=2)  # blocks of the first count, where its Z is extreme
    for eps in EPS:
        truth = direct_blanket(matrix, n, eps)
        value = curve(eps)
        # an upper bound, within the charged rounding (a few 1e-12 relative, 1e-14 absolute)
        assert truth <= value <= truth * (1 + 1e-10) + 1e-13, (name, n, eps, value, truth)
        assert blocked(eps) >= value * (1 - 1e-12)


@pytest.mark.parametrize(("eps0", "n"), [(1.0, 50), pytest.param(2.0, 300, marks=pytest.mark.slow)])
def test_binary_rr_blanket_is_above_the_exact_curve(eps0: float, n: int) -> None:
    """The exact curve here is the direct convolution of binomial pmfs (``rr_delta``), without
    the FFT error the module's exact method charges (which dominates where δ is tiny)."""
    curve = curve_of(rr(eps0), n)
    for eps in np.linspace(0.0, eps0, 9)[1:-1]:
        assert curve(float(eps)) >= rr_delta(n, eps0, float(eps)) * (1 - 1e-12), eps
    blanket = optmech.shuffle_epsilon(rr(eps0), n, 1e-6, method="blanket").epsilon
    exact = optmech.shuffle_epsilon(rr(eps0), n, 1e-6, method="exact").epsilon
    assert blanket >= exact * (1 - 1e-9)


@pytest.mark.parametrize(("k", "eps0", "n"), [(3, 1.0, 1000), (8, 2.0, 2000), (32, 4.0, 10_000)])
def test_krr_blanket_is_above_concrete_datasets_and_below_clones(
    k: int, eps0: float, n: int
) -> None:
    """At the certified ε every concrete dataset's δ is at most δ (soundness, independent of
    the module's own clipping), and the blanket divergence is at most the clone form."""
    delta = 1e-6
    matrix = rr(eps0, k)
    g = optmech.shuffle_epsilon(matrix, n, delta, method="blanket")
    for lower in _lower_curves_of(*_lower_laws(matrix), n - 1):
        assert lower(g.epsilon) <= delta * (1 + 1e-9)
    clone = _CloneCurve(n - 1, _clone_p(matrix), eps0)
    blanket = curve_of(matrix, n)
    for eps in (0.2 * g.epsilon, g.epsilon, 2.0 * g.epsilon):
        assert blanket(eps) <= clone(eps)
    old = min(eps0, optmech.shuffle_epsilon(matrix, n, delta, method="clones").epsilon)
    assert g.epsilon < old


@pytest.mark.slow
@pytest.mark.parametrize(("k", "eps0"), [(8, 1.0), (64, 1.0)])
def test_krr_blanket_at_a_million_users_is_sound_and_near_the_lower_bound(
    k: int, eps0: float
) -> None:
    n, delta = 10**6, 1e-6
    matrix = rr(eps0, k)
    g = optmech.shuffle_epsilon(matrix, n, delta)
    b = g.bounds["blanket"]
    for lower in _lower_curves_of(*_lower_laws(matrix), n - 1):
        assert lower(b) <= delta * (1 + 1e-9)
    assert b <= g.bounds["variation-ratio"] * (1 + 1e-4)
    assert g.lower_bound <= g.epsilon <= b


def test_pairs_that_differ_are_all_evaluated() -> None:
    """A random 4×3 matrix has one structure per ordered pair; each is a lower bound of the
    curve (the maximum over them), and a pair's own curve is computed from its rows alone."""
    matrix = random_matrix(11, 4, 3, 1.0)
    groups = blanket_groups(matrix)
    assert groups is not None and len(groups) == 12
    whole = _BlanketCurve(9, groups, 1.0)
    for x0, x1 in [(0, 1), (3, 2)]:
        pair = matrix[[x0, x1]]
        alone = _BlanketCurve(9, blanket_groups(pair) or [], 1.0)
        # the pair's blanket mass alone is larger (fewer rows): a smaller δ
        assert alone(0.2) <= whole(0.2)


def test_many_groups_or_structures_fall_back_to_the_clone_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Beyond the grouped form and the lattice form's budget, the clone form alone."""
    matrix = np.random.default_rng(0).dirichlet(np.ones(20), size=20)
    assert blanket_groups(matrix) is None
    monkeypatch.setattr("optmech.certify.shuffle_blanket_fft._MAX_LENGTH", 0)
    g = optmech.shuffle_epsilon(matrix, 10_000, 1e-6, method="blanket")
    clone = _CloneCurve(9999, _clone_p(matrix), g.local_epsilon)
    assert g.curve([0.5])[0][0] == pytest.approx(min(1.0, clone(0.5)), rel=1e-12)


def test_oracle_with_a_small_channel_gets_the_blanket() -> None:
    oracle = optmech.GRR(8, 1.0)
    via_oracle = optmech.shuffle_epsilon(oracle, 10_000, 1e-6, method="blanket")
    via_matrix = optmech.shuffle_epsilon(oracle.randomizer.matrix, 10_000, 1e-6, method="blanket")
    assert via_oracle.epsilon == pytest.approx(via_matrix.epsilon, rel=1e-12)
    assert (
        via_oracle.epsilon < optmech.shuffle_epsilon(oracle, 10_000, 1e-6, method="clones").epsilon
    )


def test_pruned_curve_is_above_the_full_one() -> None:
    matrix = rr(2.0, 8)
    groups = blanket_groups(matrix)
    assert groups is not None
    full = _BlanketCurve(4999, groups, 2.0, 1 << 16, 0.0)
    pruned = _BlanketCurve(4999, groups, 2.0, 1 << 16, 1e-12)
    for curve in (full, pruned):  # every cell summed (no runs charged their first value)
        curve.pairs[0].anchors = None
    for eps in (0.05, 0.1, 0.2):
        assert full(eps) <= pruned(eps) <= full(eps) + 2e-12


@pytest.mark.parametrize("count", [1, 2, 4, 32, 10_000])
def test_bins_cover_the_whole_window(count: int) -> None:
    """The bins of m tile the window without gaps: with the mass outside they hold all of it."""
    total, prob = 10**6 - 1, 0.97
    starts, ends, outside = _bins(total, prob, count)
    assert np.all(starts[1:] == ends[:-1] + 1)
    assert float(np.sum(_mass(starts, ends, total, prob))) + outside == pytest.approx(
        1.0, abs=1e-12
    )


@pytest.mark.slow
@pytest.mark.parametrize(("k", "eps0", "n"), [(3, 1.0, 5000), (16, 2.0, 5000)])
def test_blocks_of_the_first_count_lie_above_single_counts(k: int, eps0: float, n: int) -> None:
    """k-RR: the first count is the other input's output, whose Z is the least; its blocks,
    each charged its first count, give a curve above the one summing every count."""
    fine = curve_of(rr(eps0, k), n, 1 << 20)  # both with one m a block: the same m summed
    for blocks in (8, 64):
        coarse = curve_of(rr(eps0, k), n, 1 << 20, blocks=blocks)
        assert coarse.pairs[0].side == -1
        for eps in (0.01, 0.05, 0.1):
            assert coarse(eps) >= fine(eps) * (1 - 1e-12)


@pytest.mark.parametrize(("k", "eps0", "n"), [(3, 1.0, 3000), (32, 4.0, 3000)])
def test_runs_charged_their_first_count_lie_above_the_cell_sum(k: int, eps0: float, n: int) -> None:
    """The fine curve's runs of counts, charged their first value where the sum is monotone,
    are at least the sum over every cell, and within the refinement's 1e-6 of it (up to the
    cells' rounding allowances, about 1e-15 absolute, charged only where a cell is computed)."""
    curve = curve_of(rr(eps0, k), n)
    pair = curve.pairs[0]
    assert pair.anchors is not None
    for eps in (0.02, 0.1, 0.3):
        runs = curve(eps)
        saved, pair.anchors = pair.anchors, None
        cells = curve(eps)
        pair.anchors = saved
        assert cells * (1 - 1e-12) - 1e-15 <= runs <= cells * (1 + 2e-6)
