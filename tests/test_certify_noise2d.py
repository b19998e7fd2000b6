"""The 2-D footprint is exact and the 2-D certifier sees every pair.

Independent truth, computed here:

* the footprint: for every offset it contains, an explicit rational shift ``s`` in the closed
  ball and a point ``x`` of the open cell 0 with ``x + s`` in the open cell ``d`` (no pair is
  constrained that a real shift cannot connect); for every offset of the surrounding ring it
  leaves out, the closest point of the closed difference square, found by clamping 0 into it,
  has norm ≥ Δ (no real shift connects the cells). Both in exact rationals, by other routes
  than the module's integer formulas;
* the certificate: a brute-force loop over every ordered pair of cells of a small grown box,
  with the gauge tail of the ℓ∞ ball written in closed form (``ceil(‖c‖∞/m − γ)``).

Nothing here is random except seeded grids, so no test has a false-failure rate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from optmech.certify.noise2d import (
    NORMS,
    certify_noise2d_epsilon,
    footprint,
    noise2d_epsilon,
    reach_of,
    row_half_widths,
    tail_values,
)
from optmech.mechanisms.tails2d import gauge_polygon

REACHES = [Fraction(1), Fraction(2), Fraction(3), Fraction(5), Fraction(8), Fraction(17, 4)]


def _norm(v: tuple[Fraction, Fraction], norm: str) -> Fraction:
    """The norm, exactly; ℓ2 returns the *squared* norm."""
    a, b = abs(v[0]), abs(v[1])
    return {"l1": a + b, "linf": max(a, b), "l2": a * a + b * b}[norm]


def _within(v: tuple[Fraction, Fraction], norm: str, r: Fraction) -> bool:
    return _norm(v, norm) <= (r * r if norm == "l2" else r)


def _witness(d: tuple[int, int], norm: str, r: Fraction) -> tuple[Fraction, ...]:
    """A shift ``s`` in the closed ball and ``x`` in the open unit cell with ``x + s`` in the
    open cell ``d`` (cells of side 1, ``Δ = r``), or raise."""
    c = tuple(Fraction(int(np.sign(k)) * max(abs(k) - 1, 0)) for k in d)
    for n in range(1, 60):
        t = Fraction(1, 2**n)
        s = tuple(ck + t * (dk - ck) for ck, dk in zip(c, d, strict=True))
        if _within(s, norm, r):
            break
    else:
        raise AssertionError(f"no shift in the ball reaches offset {d}")
    x = []
    for sk, dk in zip(s, d, strict=True):
        lo, hi = max(Fraction(0), dk - sk), min(Fraction(1), dk - sk + 1)
        assert lo < hi, (d, s)
        x.append((lo + hi) / 2)
    return (*s, *x)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("r", REACHES, ids=str)
def test_every_constrained_pair_is_reachable_by_a_real_shift(norm: str, r: Fraction) -> None:
    for d in footprint(norm, r).tolist():
        s1, s2, x1, x2 = _witness(tuple(d), norm, r)
        assert _within((s1, s2), norm, r)
        assert 0 < x1 < 1 and 0 < x2 < 1
        assert d[0] < x1 + s1 < d[0] + 1 and d[1] < x2 + s2 < d[1] + 1


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("r", REACHES, ids=str)
def test_every_pair_left_out_is_unreachable(norm: str, r: Fraction) -> None:
    """Offsets within ``ceil(R) + 2`` of 0 that the footprint leaves out: the closed difference
    square ``[d − 1, d + 1]²`` has no point of norm below Δ (so no point of the open square,
    and no shift in the ball, connects the open cells)."""
    inside = {tuple(d) for d in footprint(norm, r).tolist()}
    span = math.ceil(r) + 2
    left_out = 0
    for d1 in range(-span, span + 1):
        for d2 in range(-span, span + 1):
            if (d1, d2) in inside:
                continue
            closest = tuple(Fraction(min(max(0, k - 1), k + 1)) for k in (d1, d2))
            assert not _norm(closest, norm) < (r * r if norm == "l2" else r), (d1, d2)
            left_out += 1
    assert left_out > 0


def test_footprint_shapes_and_nesting() -> None:
    """ℓ1 ⊂ ℓ2 ⊂ ℓ∞ (the balls are nested), symmetric under d ↦ −d and the swap; rows are
    the half-widths."""
    for r in REACHES:
        sets = [{tuple(d) for d in footprint(norm, r).tolist()} for norm in ("l1", "l2", "linf")]
        assert sets[0] <= sets[1] <= sets[2]
        for s in sets:
            assert all((-a, -b) in s and (b, a) in s for a, b in s)
    assert footprint("linf", 4).shape[0] == 81  # the 9 × 9 square
    assert row_half_widths("l1", 4).tolist() == [1, 2, 3, 4, 4, 4, 3, 2, 1]


def test_reach_is_exact() -> None:
    """``R = Δ/h`` of the two floats: 1/3 as a float is below 1/3, so R exceeds 3 by 2e-16 and
    reaches a fourth cell along the axis."""
    r = reach_of(1.0, 1.0 / 3.0)
    assert r > 3
    assert max(d[0] for d in footprint("linf", r).tolist()) == 4


# -- the certificate -----------------------------------------------------------------------
def _brute_epsilon(dens: np.ndarray, m: int, ratio: float, gamma: Fraction, grow: int) -> float:
    """``max log f(p)/f(q)`` over all ordered pairs ``q − p ∈ F`` (ℓ∞ ball, reach m) in the box
    grown by ``grow`` cells; outside the box the ℓ∞ gauge tail ``ratio^ceil(‖c‖∞/m − γ)``."""
    n0 = dens.shape[0] // 2
    size = 2 * (n0 + grow)
    f = np.empty((size, size))
    for a in range(size):
        for b in range(size):
            i, j = a - n0 - grow, b - n0 - grow
            if -n0 <= i < n0 and -n0 <= j < n0:
                f[a, b] = dens[i + n0, j + n0]
            else:
                c = max(abs(i + 0.5), abs(j + 0.5))
                f[a, b] = ratio ** math.ceil(c / m - float(gamma))
    worst = -math.inf
    for a in range(size):
        for b in range(size):
            for d1 in range(-m, m + 1):
                for d2 in range(-m, m + 1):
                    if 0 <= a + d1 < size and 0 <= b + d2 < size:
                        worst = max(worst, math.log(f[a, b] / f[a + d1, b + d2]))
    return worst


def _linf_tail(m: int, ratio: float, gamma: Fraction) -> tuple:
    return (
        "gauge",
        1.0,
        *gauge_polygon(footprint("linf", m)),
        (gamma.numerator, gamma.denominator),
        ratio,
    )


def test_certificate_matches_the_brute_force_over_all_pairs() -> None:
    m, n0, eps = 2, 4, 1.0
    ratio, gamma = math.exp(-eps), Fraction(1, 4)
    rng = np.random.default_rng(7)
    idx = np.arange(-n0, n0)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    base = tail_values(_linf_tail(m, ratio, gamma), i, j)
    for _ in range(3):
        dens = base * np.exp(rng.uniform(-0.3, 0.3, base.shape))
        got = noise2d_epsilon(dens, norm="linf", reach=m, tails=[_linf_tail(m, ratio, gamma)])
        want = _brute_epsilon(dens, m, ratio, gamma, grow=2 * m)
        assert want <= got <= want + 1e-12


def test_the_gauge_staircase_alone_is_certified_at_epsilon() -> None:
    """The tail shape continued into the box is exactly ε-DP (its levels change by one)."""
    for norm in NORMS:
        m, n0, eps = 4, 8, 0.7
        tail = ("gauge", 1.0, *gauge_polygon(footprint(norm, m)), (3, 8), math.exp(-eps))
        idx = np.arange(-n0, n0)
        i, j = np.meshgrid(idx, idx, indexing="ij")
        got = noise2d_epsilon(tail_values(tail, i, j), norm=norm, reach=m, tails=[tail])
        assert eps <= got <= eps * (1 + 1e-12)


def test_certificate_sees_a_raised_cell_a_zero_cell_and_a_missing_tail() -> None:
    m, n0, eps = 2, 4, 1.0
    tail = _linf_tail(m, math.exp(-eps), Fraction(1, 2))
    idx = np.arange(-n0, n0)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    dens = tail_values(tail, i, j)
    raised = dens.copy()
    raised[5, 3] *= math.exp(0.25)
    got = certify_noise2d_epsilon(
        {"densities": raised, "norm": "linf", "reach": m, "tails": [tail]}
    )
    assert got.epsilon == pytest.approx(eps + 0.25, abs=1e-12)
    assert (5 - n0, 3 - n0) in (got.cell, got.partner)
    zero = dens.copy()
    zero[0, 0] = 0.0
    assert noise2d_epsilon(zero, norm="linf", reach=m, tails=[tail]) == math.inf
    assert noise2d_epsilon(dens, norm="linf", reach=m, tails=[]) == math.inf


def test_a_tail_polygon_too_small_for_the_ball_is_refused() -> None:
    """A gauge tail whose polygon misses part of the footprint is not ε-DP on its own."""
    m, n0 = 2, 4
    small = ("gauge", 1.0, *gauge_polygon(footprint("l1", m)), (1, 2), math.exp(-1.0))
    idx = np.arange(-n0, n0)
    i, j = np.meshgrid(idx, idx, indexing="ij")
    dens = tail_values(small, i, j)
    assert noise2d_epsilon(dens, norm="l1", reach=m, tails=[small]) < 1.1
    assert noise2d_epsilon(dens, norm="linf", reach=m, tails=[small]) == math.inf


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="`norm`"):
        footprint("l3", 2)
    with pytest.raises(ValueError, match="even side"):
        noise2d_epsilon(np.ones((3, 3)), norm="l1", reach=1)
    with pytest.raises(TypeError, match="reach"):
        noise2d_epsilon(np.ones((2, 2)), norm="l1")
    with pytest.raises(ValueError, match="`reach`"):
        footprint("l1", -1.0)
