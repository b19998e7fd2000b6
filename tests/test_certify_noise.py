"""Certification of grid noise (optmech.certify.noise) against brute force and closed forms.

Independent truths: explicit expansion of the geometric tails over many periods with all pairs
/ all hockey-stick terms summed directly; exact integration of ``(f(x) − e^ε f(x + d))_+`` over
the merged breakpoints for fractional shifts; the geometric pmf and the uniform+atom law, whose
privacy is known in closed form (Geng & Viswanath 2016; Geng, Ding, Guo & Kumar 2019).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from _reference import laplace_like, normalised_table, two_cell_period_noise
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech.certify import certify_noise_delta, certify_noise_epsilon
from optmech.certify.noise import (
    DeltaReport,
    EpsilonReport,
    cells_within_reach,
    noise_delta,
    noise_epsilon,
)
from optmech.certify.noise_certificate import NoiseCertificate, certify_noise, check_noise
from optmech.exceptions import PrivacyViolationError
from optmech.mechanisms.description import GridDescription
from optmech.mechanisms.piecewise import PiecewiseConstantNoise
from optmech.privacy import ApproxDP


def _expand(masses, left, right, periods):
    """Explicit array: `periods` tail periods each side, left to right."""
    lb, lr = left
    rb, rr = right
    lefts = [lb * lr**k for k in range(periods)][::-1]
    rights = [rb * rr**k for k in range(periods)]
    return np.concatenate([*lefts, masses, *rights])


def _brute_epsilon(arr, reach):
    worst = 0.0
    for i in range(arr.size):
        for j in range(max(0, i - reach), min(arr.size, i + reach + 1)):
            if arr[i] > 0 and arr[j] == 0:
                return math.inf
            if arr[i] > 0:
                worst = max(worst, math.log(arr[i]) - math.log(arr[j]))
    return worst


def _brute_delta(arr, reach, eps, atom=0.0):
    best = 0.0
    for s in range(1, reach + 1):
        for sign in (1, -1):
            total = 0.0
            for j in range(arr.size):
                k = j + sign * s
                partner = arr[k] if 0 <= k < arr.size else 0.0
                total += max(arr[j] - math.exp(eps) * partner, 0.0)
            best = max(best, total)
    return best + atom


def _random_case(rng, period, with_tails=True):
    n = int(rng.integers(2 * period, 4 * period + 3))
    masses = rng.uniform(0.05, 1.0, n)
    if with_tails:
        left = (rng.uniform(0.05, 1.0, period), float(rng.uniform(0.2, 0.8)))
        right = (rng.uniform(0.05, 1.0, period), float(rng.uniform(0.2, 0.8)))
    else:
        left = (np.zeros(period), 0.0)
        right = (np.zeros(period), 0.0)
    return masses, left, right


@pytest.mark.parametrize("seed", range(6))
def test_epsilon_equals_brute_force_with_tails(seed: int) -> None:
    rng = np.random.default_rng(seed)
    period = int(rng.integers(1, 4))
    reach = int(rng.integers(1, 2 * period + 1))
    masses, left, right = _random_case(rng, period)
    # Tail pairs deeper than a few periods are scaled copies: 6 periods see all of them.
    truth = _brute_epsilon(_expand(masses, left, right, 6), reach)
    got = noise_epsilon(masses, reach=reach, left_tail=left, right_tail=right)
    assert truth <= got <= truth + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_delta_equals_brute_force_with_tails(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    period = int(rng.integers(1, 4))
    reach = int(rng.integers(1, 2 * period + 1))
    masses, left, right = _random_case(rng, period)
    masses, left, right = normalised_table(masses, left, right)
    eps = float(rng.uniform(0.0, 0.7))
    atom = float(rng.uniform(0, 0.01))
    # ratio ≤ 0.8: 200 periods leave terms below 0.8^200 ≈ 4e-20 of the mass.
    truth = _brute_delta(_expand(masses, left, right, 200), reach, eps, atom)
    got = noise_delta(masses, epsilon=eps, reach=reach, left_tail=left, right_tail=right, atom=atom)
    assert truth <= got <= truth + 1e-13


def test_geometric_pmf_is_exactly_epsilon_dp() -> None:
    eps = 0.7
    b = math.exp(-eps)
    k = np.arange(-4, 5)
    pmf = (1 - b) / (1 + b) * b ** np.abs(k)
    left, right = (pmf[:1] * b, b), (pmf[-1:] * b, b)
    got = noise_epsilon(pmf, reach=1, left_tail=left, right_tail=right)
    assert eps <= got <= eps + 1e-13
    # Pessimism: the certified ε exceeds ε by ulps, so δ at ε is zero up to the roundoff bound.
    bound = noise_delta(pmf, epsilon=eps, reach=1, left_tail=left, right_tail=right)
    assert bound <= (got - eps) * (1 + 1e-9) and bound < 1e-13
    # At a smaller ε the divergence of the two-sided geometric at shift 1 is, summing
    # (b^|i| − e^ε' b^|i+1|)_+ over i ≥ 0: (1 − e^(ε'−ε))·(1/(1+b)) (brute force cross-check).
    eps2 = 0.3
    expected = (1 - math.exp(eps2 - eps)) / (1 + b)
    brute = _brute_delta(_expand(pmf, left, right, 400), 1, eps2)
    got2 = noise_delta(pmf, epsilon=eps2, reach=1, left_tail=left, right_tail=right)
    assert got2 == pytest.approx(expected, rel=1e-12)
    assert got2 == pytest.approx(brute, rel=1e-12)


def _hockey_exact(edges, dens, eps, d):
    """∫ (f(x) − e^ε f(x + d))_+ dx for a piecewise-constant f, by merged breakpoints."""
    points = np.unique(np.concatenate([edges, edges - d]))
    mids = 0.5 * (points[:-1] + points[1:])
    lengths = np.diff(points)

    def f(x):
        idx = np.searchsorted(edges, x, side="right") - 1
        inside = (idx >= 0) & (idx < dens.size)
        return np.where(inside, dens[np.clip(idx, 0, dens.size - 1)], 0.0)

    return float(np.sum(lengths * np.maximum(f(mids) - math.exp(eps) * f(mids + d), 0.0)))


def test_fractional_shifts_interpolate_linearly_and_are_covered() -> None:
    rng = np.random.default_rng(7)
    m, h, eps = 4, 0.25, 0.4
    dens = rng.uniform(0.0, 1.0, 14)
    dens /= dens.sum() * h
    edges = -1.75 + h * np.arange(dens.size + 1)
    masses = dens * h
    integer = [_hockey_exact(edges, dens, eps, s * h) for s in range(m + 1)]
    certified = noise_delta(masses, epsilon=eps, reach=m)
    for d in rng.uniform(0.0, m * h, 25):
        s, t = int(d // h), d / h - int(d // h)
        direct = _hockey_exact(edges, dens, eps, d)
        mirrored = _hockey_exact(edges, dens, eps, -d)
        assert direct == pytest.approx((1 - t) * integer[s] + t * integer[s + 1], abs=1e-13)
        assert max(direct, mirrored) <= certified
    # A fractional reach adds the interpolated endpoint and nothing beyond it.
    reach = 2.5
    back = [_hockey_exact(edges, dens, eps, -s * h) for s in range(4)]
    both = [max(a, b) for a, b in zip(integer[:4], back, strict=True)]
    end = max(0.5 * integer[2] + 0.5 * integer[3], 0.5 * back[2] + 0.5 * back[3])
    assert noise_delta(masses, epsilon=eps, reach=reach) == pytest.approx(
        max(both[1], both[2], end), abs=1e-13
    )


def test_zero_cell_next_to_positive_is_infinite_and_named() -> None:
    masses = np.array([0.2, 0.25, 0.0, 0.25, 0.2])
    tails = {"left_tail": ([0.1], 0.5), "right_tail": ([0.1], 0.5)}
    assert noise_epsilon(masses, reach=1, **tails) == math.inf
    rep = certify_noise_epsilon(GridDescription.from_arguments(masses, reach=1, **tails))
    assert isinstance(rep, EpsilonReport)
    assert rep.epsilon == math.inf and rep.partner == 2 and rep.partner_mass == 0.0
    assert abs(rep.cell - rep.partner) == 1 and "has none" in rep.reason
    # Finite support: the edge cell faces the zero beyond the grid.
    rep2 = certify_noise_epsilon(GridDescription.from_arguments(np.full(4, 0.25), reach=2))
    assert rep2.epsilon == math.inf and (rep2.partner < 0 or rep2.partner >= 4)


def test_worst_pair_and_shift_are_reported() -> None:
    masses = np.array([0.1, 0.2, 0.4, 0.2, 0.1])
    tails = {"left_tail": ([0.08, 0.1], 0.8), "right_tail": ([0.1, 0.08], 0.8)}
    rep = certify_noise_epsilon(GridDescription.from_arguments(masses, reach=2, **tails))
    assert rep.epsilon == pytest.approx(math.log(4.0), abs=1e-14)
    assert rep.cell == 2 and rep.partner in (0, 4)
    drep = certify_noise_delta(GridDescription.from_arguments(masses, reach=2), epsilon=0.0)
    assert isinstance(drep, DeltaReport)
    assert abs(drep.shift) == 2.0
    assert drep.per_shift.shape == (2,)
    assert drep.delta == pytest.approx(_brute_delta(masses, 2, 0.0), abs=1e-14)


def test_uniform_plus_atom_has_delta_exactly() -> None:
    """P_α of Geng, Ding, Guo & Kumar 2019 is (0, δ) with equality at the shift Δ (Geng, Ding, Guo &
    Kumar 2019)."""
    delta, alpha, m = 0.8, 0.6, 8  # L = (1 − α)Δ/(2(δ − α)) = 1: on the grid
    half_width = (1 - alpha) / (2 * (delta - alpha))
    cells = round(2 * half_width * m)
    masses = np.full(cells, (1 - alpha) / cells)
    got = noise_delta(masses, epsilon=0.0, reach=m, atom=alpha)
    assert got == pytest.approx(delta, rel=1e-14)
    assert got >= delta
    assert noise_epsilon(masses, reach=m, atom=alpha) == math.inf


def test_results_are_pessimistic() -> None:
    masses = np.array([1.0, 2.0, 3.0]) / 6.0
    # Tails halving per cell: ratios 2, 2, 3/2, 2, 2, ...
    eps = noise_epsilon(
        masses, reach=1, left_tail=(masses[:1] / 2, 0.5), right_tail=(masses[-1:] / 2, 0.5)
    )
    assert eps >= math.log(2.0) and eps - math.log(2.0) < 1e-14
    d = noise_delta(masses, epsilon=0.1, reach=1)
    exact = max(  # hand sums: right shift 1/6 + (3 − 2e^0.1)/6 ... both directions
        (max(1 - math.exp(0.1) * 2, 0) + max(2 - math.exp(0.1) * 3, 0) + 3) / 6,
        (max(3 - math.exp(0.1) * 2, 0) + max(2 - math.exp(0.1) * 1, 0) + 1) / 6,
    )
    assert d >= exact and d - exact < 1e-14


def test_certify_and_check_noise_objects() -> None:
    noise = two_cell_period_noise()
    cert = certify_noise(noise)
    assert 1.0 <= cert.epsilon <= 1.0 + 1e-12
    assert cert.delta <= cert.epsilon - 1.0 and cert.delta_epsilon == 1.0
    assert check_noise(noise, 1.0) is True
    assert check_noise(noise, 0.9) is False
    assert check_noise(noise, 0.9, 0.5) is True  # δ at ε = 0.9 is small
    assert check_noise(noise, 1.0, debug=True) is True
    with pytest.raises(PrivacyViolationError, match=r"not 0.9-DP: certified .*cells apart") as err:
        check_noise(noise, 0.9, debug=True)
    assert isinstance(err.value.report, NoiseCertificate)
    assert err.value.report.epsilon == cert.epsilon
    with pytest.raises(TypeError, match="describes itself"):
        certify_noise(object())


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"masses": [-0.1, 1.1], "reach": 1}, ValueError, "non-negative"),
        ({"masses": [0.5, 0.5], "reach": 0}, ValueError, "reach"),
        ({"masses": [0.5, 0.5], "reach": 1, "left_tail": ([0.1], 1.0)}, ValueError, "ratio"),
        ({"masses": [0.5, 0.5], "reach": 1, "left_tail": 3}, TypeError, "pair"),
        (
            {
                "masses": [0.5, 0.5],
                "reach": 1,
                "left_tail": ([0.1], 0.5),
                "right_tail": ([0.1, 0.1], 0.5),
            },
            ValueError,
            "same length",
        ),
        ({"masses": [0.0, 0.0], "reach": 1}, ValueError, "all zero"),
    ],
)
def test_bad_input(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        noise_epsilon(**kwargs)


def test_bad_epsilon_for_delta() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        noise_delta([0.5, 0.5], epsilon=-1.0, reach=1)
    with pytest.raises(TypeError, match="privacy"):
        PiecewiseConstantNoise(
            start=0.0, width=1.0, densities=[1.0], period=1, sensitivity=1.0, privacy=ApproxDP
        )  # class, not instance


# -- the reach is exact: a shift reaching past a cell edge by any amount counts ------------------
def _laplace_like(width: float, sensitivity: float, per_cell: float) -> Any:
    """Density ∝ e^(−per_cell·|j|) on cells of ``width``, geometric tails (period one cell)."""
    return laplace_like(width, sensitivity, per_cell, cells=6, claimed_epsilon=1.0)


def test_reach_just_past_an_integer_counts_the_next_cell() -> None:
    """Δ = 0.6000000001 on cells of 0.3: 2 + 3e-10 cells, so pairs 3 cells apart count."""
    noise = _laplace_like(0.3, 0.6000000001, 0.5)  # ratio e^0.5 per cell: true ε = 1.5
    assert certify_noise(noise).epsilon >= 1.5
    assert check_noise(noise, 1.0) is False
    d = noise.grid_description()
    tails = {"left_tail": d.left_tail, "right_tail": d.right_tail}
    assert noise_epsilon(d.masses, sensitivity=0.6000000001, width=0.3, **tails) >= 1.5
    # An exact reach of two cells (given as `reach`, taken as exact) compares pairs 2 apart.
    two = noise_epsilon(d.masses, reach=2.0, **tails)
    assert 1.0 <= two <= 1.0 + 1e-12
    assert certify_noise(_laplace_like(0.25, 0.5, 0.5)).epsilon == pytest.approx(1.0, abs=1e-12)
    assert cells_within_reach(0.6000000001, 0.3) == 3
    assert cells_within_reach(0.6, 0.3) == 2  # exact quotient of the floats 0.6 and 0.3 is 2
    assert cells_within_reach(1.0, 1.0 / 3.0) == 4  # fl(1/3) < 1/3: 3 + 2e-16 cells
    assert cells_within_reach(1.0, 0.125) == 8


def test_reach_below_one_cell_interpolates_from_zero() -> None:
    """For R < 1, H(R) = R·H(1) (H(0) = 0): checked against direct integration."""
    rng = np.random.default_rng(3)
    h, eps = 0.5, 0.2
    dens = rng.uniform(0.1, 1.0, 9)
    dens /= dens.sum() * h
    edges = h * np.arange(dens.size + 1)
    d = 0.3  # R = 0.6 cells
    direct = max(_hockey_exact(edges, dens, eps, d), _hockey_exact(edges, dens, eps, -d))
    got = noise_delta(dens * h, epsilon=eps, sensitivity=d, width=h)
    assert direct <= got <= direct + 1e-14
    rep = certify_noise_delta(
        GridDescription.from_arguments(dens * h, sensitivity=d, width=h), epsilon=eps
    )
    assert rep.per_shift.shape == (0,) and abs(rep.shift) == pytest.approx(0.6)


def _ceil_fraction(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _explicit_fractions(masses, left, right, periods):
    """Exact rationals of the grid and ``periods`` tail periods each side, left to right."""
    (lb, lr), (rb, rr) = left, right
    lefts = [[Fraction(x) * Fraction(lr) ** k for x in lb] for k in range(periods)][::-1]
    rights = [[Fraction(x) * Fraction(rr) ** k for x in rb] for k in range(periods)]
    grid = [Fraction(x) for x in masses]
    return [v for part in [*lefts, grid, *rights] for v in part]


def _exact_log(q: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        return (Decimal(q.numerator) / Decimal(q.denominator)).ln()


_POS = st.floats(0.05, 1.0, allow_nan=False)


@st.composite
def _near_integer_grid(draw):
    """Cells of a float width h and Δ within 1e-12 relative of k·h, on either side."""
    period = draw(st.integers(1, 3))
    k = draw(st.integers(1, 4))
    h = draw(st.floats(0.01, 3.0, allow_nan=False))
    how = draw(st.sampled_from(["below", "product", "above", "next_down", "next_up"]))
    tiny = draw(st.floats(2.0**-52, 1e-12))
    delta = {
        "below": k * h * (1.0 - tiny),
        "product": k * h,
        "above": k * h * (1.0 + tiny),
        "next_down": math.nextafter(k * h, 0.0),
        "next_up": math.nextafter(k * h, math.inf),
    }[how]
    n = draw(st.integers(1, 40 - 2 * 3 * period))
    masses = np.array(draw(st.lists(_POS, min_size=n, max_size=n)))
    left = (np.array(draw(st.lists(_POS, min_size=period, max_size=period))), draw(_POS) * 0.9)
    right = (np.array(draw(st.lists(_POS, min_size=period, max_size=period))), draw(_POS) * 0.9)
    return masses, left, right, delta, h


SETTINGS = settings(max_examples=80, deadline=None, derandomize=True, database=None)


@SETTINGS
@given(_near_integer_grid())
def test_epsilon_is_never_below_brute_force_near_integer_reach(case) -> None:
    """Against all pairs within the exact reach ceil(Δ/h), in rational arithmetic.

    Pairs deeper in a tail than ``ceil(C/P) + 1`` periods are ratio-scaled copies of pairs one
    period inwards, so ``ceil(C/P) + 3`` explicit periods each side see every ratio.
    """
    masses, left, right, delta, h = case
    cells = _ceil_fraction(Fraction(delta) / Fraction(h))
    arr = _explicit_fractions(masses, left, right, -(-cells // left[0].size) + 3)
    worst = max(
        arr[i] / arr[j]
        for i in range(len(arr))
        for j in range(max(0, i - cells), min(len(arr), i + cells + 1))
    )
    truth = _exact_log(worst)
    kwargs = {"sensitivity": delta, "width": h, "left_tail": left, "right_tail": right}
    got = noise_epsilon(masses, **kwargs)
    assert Decimal(got) >= truth
    assert Decimal(got) - truth <= Decimal("1e-12")
    exact = noise_epsilon(masses, exact=True, **kwargs)  # rounded up, within one ulp
    assert truth <= Decimal(exact) <= truth + Decimal(math.ulp(exact))


@st.composite
def _near_integer_finite_grid(draw):
    masses, _left, _right, delta, h = draw(_near_integer_grid())
    zeros = draw(st.lists(st.booleans(), min_size=masses.size, max_size=masses.size))
    masses = np.where(zeros, 0.0, masses) if not all(zeros) else masses
    return masses, delta, h, draw(st.floats(0.0, 1.5, allow_nan=False))


def _hockey_fraction(arr: list[Fraction], shift: int, e_eps: Fraction) -> Fraction:
    """Σ_j (p_j − E p_{j+shift})_+ over a finite support (partners outside are zero)."""
    n = len(arr)
    return sum(
        (
            max(arr[j] - e_eps * (arr[j + shift] if 0 <= j + shift < n else 0), Fraction(0))
            for j in range(n)
        ),
        Fraction(0),
    )


@SETTINGS
@given(_near_integer_finite_grid())
def test_delta_is_never_below_exact_hockey_stick_near_integer_reach(case) -> None:
    """Against the exact hockey-stick divergence at the worst real shift ``0 < |d| ≤ Δ``.

    For cells of width ``h`` and ``d = (s + t)h`` (``s`` integer, ``0 ≤ t < 1``), a point
    ``x = (j + u)h`` of cell ``j`` lands in cell ``j + s`` when ``u < 1 − t`` and in ``j + s + 1``
    otherwise, so ``∫(f(x) − e^ε f(x + d))_+ dx = (1 − t)·H(s) + t·H(s + 1)`` with
    ``H(s) = Σ_j (p_j − e^ε p_{j+s})_+``: linear in ``d`` between multiples of ``h``, and
    ``H(0) = 0`` for ``ε ≥ 0``. A function linear on each ``[sh, (s+1)h]`` attains its
    supremum over ``(0, Δ]`` at a multiple of ``h`` in ``(0, Δ]`` or at ``d = Δ`` (or tends to
    ``H(0) = 0`` as ``d → 0``). So the truth is the maximum of ``H(1..floor R)`` and
    ``(1 − t)H(floor R) + t·H(floor R + 1)`` at ``R = Δ/h`` exactly, both directions.
    ``e^ε`` is taken 60 digits down (``E ≤ e^ε``), which can only raise the truth (``E = 1``
    exactly at ``ε = 0``).
    """
    masses, delta, h, eps = case
    arr = [Fraction(x) for x in masses]
    with localcontext() as ctx:
        ctx.prec = 60
        e_eps = Fraction(Decimal(eps).exp()) - Fraction(1, 10**55) if eps else Fraction(1)
    reach = Fraction(delta) / Fraction(h)
    whole = reach.numerator // reach.denominator
    values = []
    for sign in (1, -1):
        curve = [_hockey_fraction(arr, sign * s, e_eps) for s in range(whole + 2)]
        values += curve[1 : whole + 1]
        t = reach - whole
        values.append((1 - t) * curve[whole] + t * curve[whole + 1])
    truth = max(values)
    got = noise_delta(masses, epsilon=eps, sensitivity=delta, width=h)
    assert Fraction(got) >= truth
    assert got - float(truth) <= 1e-13
    exact = noise_delta(masses, epsilon=eps, sensitivity=delta, width=h, exact=True)
    assert Fraction(exact) >= truth  # E is 1e-55 below e^ε: the exact bound clears it too
    assert exact <= math.nextafter(float(truth), math.inf)


def test_reach_arguments_are_validated() -> None:
    with pytest.raises(TypeError, match="either `reach` or both"):
        noise_epsilon([0.5, 0.5], reach=1, sensitivity=1.0, width=1.0)
    with pytest.raises(TypeError, match="`sensitivity` and `width`"):
        noise_delta([0.5, 0.5], epsilon=1.0, sensitivity=1.0)
    with pytest.raises(ValueError, match=r"`width` must be a finite real number in \(0, inf\)"):
        noise_epsilon([0.5, 0.5], sensitivity=1.0, width=-0.5)
    with pytest.raises(ValueError, match="`sensitivity`"):
        cells_within_reach(0.0, 1.0)
    with pytest.raises(TypeError, match="`exact` must be True or False"):
        noise_epsilon([0.5, 0.5], reach=1, exact="yes")
