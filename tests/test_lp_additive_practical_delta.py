"""(ε, δ) noise at practical δ, default settings: the privacy recomputed exactly, the value
against the truncated Laplace, and a δ below what the LP resolves answered by the ε-DP design.

Independent truths: the hockey-stick divergence ``sup_S P(S) − e^ε P(S + d)`` of the returned
piecewise-constant density (and atom) at shifts ``d`` — whole sensitivities and fractions of
one — computed here in exact rational arithmetic from the density's cells, with ``e^ε``
rounded *down* (so the recomputed δ can only be too large); where the ε-DP design is returned
(``record.source == "pure"``, geometric tails), every ratio of densities a shift within Δ can
compare, tails included, checked against that ``e^ε`` (δ = 0 exactly); the expected cost of the
density from its cells and its tails' geometric series in closed form; and the closed-form cost
of the truncated Laplace of Geng, Ding, Guo & Kumar (2020), density ∝ ``e^(−ε|x|/Δ)`` on
``[−A, A]``, ``A = (Δ/ε) ln(1 + (e^ε − 1)/(2δ))``, which is (ε, δ)-DP, so the optimum of the
design problem is at most its cost.
"""

from __future__ import annotations

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from _reference import benchmark_report, truncated_laplace_cost

import optmech
from optmech.exceptions import InaccurateSolutionWarning
from optmech.privacy import ApproxDP

#: (ε, δ) served at the default settings, the smallest δ served included.
CASES = [
    (0.1, 1e-11),
    (0.3, 1e-9),
    (1.0, 1e-11),
    (1.0, 1e-6),
    (2.0, 1e-2),
    (5.0, 1e-11),
]


def exact_hockey_stick(noise, epsilon: float, shift: Fraction) -> Fraction:
    """``∫ max(0, f(x) − e_low·f(x − shift)) dx + atom`` exactly, ``e_low ≤ e^ε``.

    ``f(x − shift)`` is the density of ``X + shift``; the atom at 0 faces no mass of the
    shifted law (an atom there sits at ``shift ≠ 0``), so it counts in full.
    """
    e_low = Fraction(math.nextafter(math.exp(epsilon), 0.0))
    start, width = Fraction(noise.start), Fraction(noise.width)
    dens = [Fraction(float(v)) for v in np.asarray(noise.densities)]
    n = len(dens)
    edges = [start + k * width for k in range(n + 1)]
    points = sorted(set(edges) | {e + shift for e in edges})

    def density_at(x: Fraction) -> Fraction:  # x strictly inside a sub-interval
        k = math.floor((x - start) / width)
        return dens[k] if 0 <= k < n else Fraction(0)

    total = Fraction(0)
    for lo, hi in itertools.pairwise(points):
        mid = (lo + hi) / 2
        gap = density_at(mid) - e_low * density_at(mid - shift)
        if gap > 0:
            total += gap * (hi - lo)
    return total + Fraction(float(noise.atom))


def _extended(noise, periods: int = 2) -> list[float]:
    """The cells with ``periods`` periods of each geometric tail, left to right."""
    (left, lr), (right, rr) = noise.left_tail, noise.right_tail
    out = [float(v) * lr ** (k - 1) for k in range(periods, 0, -1) for v in np.asarray(left)]
    out += [float(v) for v in np.asarray(noise.densities)]
    out += [float(v) * rr ** (k - 1) for k in range(1, periods + 1) for v in np.asarray(right)]
    return out


def pure_ratios_hold(noise, epsilon: float) -> bool:
    """``f_i ≤ e_low·f_j`` for every two cells a shift within Δ compares (``|i − j| ≤ m``, the
    cells per Δ), on the cells and two periods of each tail (beyond them the tails repeat the
    same ratios); float with a 1e-12 margin, exact rationals for the pairs within it, against
    ``e_low = Σ_{k ≤ 80} ε^k/k!`` (a rational below e^ε, within 1e-60 of it for ε ≤ 5)."""
    eps = Fraction(epsilon)
    e_low = sum(eps**k / math.factorial(k) for k in range(81))
    f = np.asarray(_extended(noise))
    m = noise.period
    for gap in range(1, m + 1):
        for a, b in ((f[gap:], f[:-gap]), (f[:-gap], f[gap:])):
            close = ~(a <= float(e_low) * b * (1.0 - 1e-12))
            for x, y in zip(a[close], b[close], strict=True):
                if Fraction(float(x)) > e_low * Fraction(float(y)):
                    return False
    return True


def tail_cost(noise, cost: str) -> float:
    """Expected |x| or x² of the geometric tails: period k ≥ 1 repeats the base period's cells
    ``(k − 1)Δ`` further out times ``ratio^(k−1)``; summed in closed form per cell (centre c,
    width h): ``Σ r^j (c + jΔ) = c/(1−r) + Δr/(1−r)²`` and
    ``Σ r^j ((c + jΔ)² + h²/12) = (c² + h²/12)/(1−r) + 2cΔr/(1−r)² + Δ²r(1+r)/(1−r)³``."""
    h, delta = noise.width, noise.sensitivity
    n = len(noise.densities)
    total = 0.0
    for (base, r), sign in ((noise.right_tail, 1.0), (noise.left_tail, -1.0)):
        base = np.asarray(base, dtype=float)
        if not np.any(base > 0):
            continue
        p = base.size
        if sign > 0:
            centres = noise.start + n * h + h * (np.arange(p) + 0.5)
        else:
            centres = -(noise.start - p * h + h * (np.arange(p) + 0.5))  # |x| of the left cells
        c = np.abs(centres)
        if cost == "abs":
            per = c / (1 - r) + delta * r / (1 - r) ** 2
        else:
            per = (c * c + h * h / 12) / (1 - r) + 2 * c * delta * r / (1 - r) ** 2
            per = per + delta**2 * r * (1 + r) / (1 - r) ** 3
        total += float(np.sum(base * h * per))
    return total


def cell_cost(noise, cost: str) -> float:
    """Expected |x| or x² of the piecewise-constant density (plus its atom, cost 0 at 0)."""
    edges = noise.start + noise.width * np.arange(len(noise.densities) + 1)
    lo, hi = edges[:-1], edges[1:]
    if cost == "abs":
        integral = np.where(
            lo >= 0,
            (hi**2 - lo**2) / 2,
            np.where(hi <= 0, (lo**2 - hi**2) / 2, (lo**2 + hi**2) / 2),
        )
    else:
        integral = (hi**3 - lo**3) / 3
    return float(np.sum(np.asarray(noise.densities) * integral))


@pytest.fixture(scope="module")
def designs():
    """The designs; a certified interval wider than the default accuracy is reported by an
    `InaccurateSolutionWarning` (a mixing repair at small δ), the only warning allowed."""
    out = {}
    for epsilon, delta in CASES:
        for cost in ("abs", "sq"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out[epsilon, delta, cost] = optmech.design_noise(
                    ApproxDP(epsilon, delta), sensitivity=1, cost=cost
                )
            assert all(issubclass(w.category, InaccurateSolutionWarning) for w in caught)
    return out


@pytest.mark.parametrize("cost", ["abs", "sq"])
@pytest.mark.parametrize(("epsilon", "delta"), CASES)
def test_the_returned_noise_is_private_recomputed_exactly(designs, epsilon, delta, cost):
    noise = designs[epsilon, delta, cost]
    assert noise.certified_delta <= delta
    if noise.record.source == "pure":  # the ε-DP design: δ = 0 at ε, tails included
        assert pure_ratios_hold(noise, epsilon)
        return
    for side in (noise.left_tail, noise.right_tail):
        assert not np.any(np.asarray(side[0]) > 0)  # a finite support: the cells are all
    m = noise.period
    shifts = [Fraction(1), Fraction(1, m), Fraction(m // 2 or 1, m), Fraction(37, 100)]
    for d in shifts:
        for signed in (d, -d):
            assert exact_hockey_stick(noise, epsilon, signed) <= Fraction(delta)
    assert noise.certified_delta <= delta


@pytest.mark.parametrize("cost", ["abs", "sq"])
@pytest.mark.parametrize(("epsilon", "delta"), CASES)
def test_the_value_is_at_most_the_truncated_laplace(designs, epsilon, delta, cost):
    noise = designs[epsilon, delta, cost]
    prov = noise.provenance
    own = cell_cost(noise, cost) + tail_cost(noise, cost)
    assert own == pytest.approx(prov.value, rel=1e-9)
    assert prov.lower_bound <= prov.value
    assert prov.value <= truncated_laplace_cost(epsilon, delta, cost)


def test_the_truncated_laplace_formula_matches_its_density():
    """The closed form the values are compared with, against a quadrature of its density."""
    from scipy import integrate

    eps, delta = 0.7, 1e-4
    a = math.log1p(math.expm1(eps) / (2 * delta)) / eps
    z = integrate.quad(lambda x: math.exp(-eps * x), 0, a)[0]
    for cost, power in (("abs", 1), ("sq", 2)):
        moment = integrate.quad(lambda x, p=power: x**p * math.exp(-eps * x), 0, a)[0] / z
        assert truncated_laplace_cost(eps, delta, cost) == pytest.approx(moment, rel=1e-10)


def test_the_command_line_serves_the_designer_delta_range():
    from optmech.cli._limits import check_design_1d
    from optmech.lp.additive.spec import DELTA_MIN

    spec = check_design_1d(ApproxDP(1.0, DELTA_MIN), 1.0, "abs")
    assert spec.privacy == ApproxDP(1.0, DELTA_MIN)


def test_the_benchmark_rows_compare_with_the_same_truncated_laplace():
    from benchmarks import approx
    from benchmarks.__main__ import markdown

    assert approx.truncated_laplace(0.7, 1e-4, "sq") == truncated_laplace_cost(0.7, 1e-4, "sq")
    row = {"section": "approx", "epsilon": 1.0, "delta": 1e-2, "cost": "abs", "load": 0.5}
    row |= approx.design_case(1.0, 1e-2, "abs")
    assert row["certified_delta"] <= 1e-2
    assert row["value_over_truncated_laplace"] <= 1.0
    text = markdown(benchmark_report([row]))
    assert "### Additive (ε, δ) noise at the default settings" in text
