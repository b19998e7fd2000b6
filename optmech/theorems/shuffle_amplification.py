"""Catalogue checks of privacy amplification by shuffling, group ``shuffle``.

No LP is involved. Each row computes its reference on its own, a different way from
`optmech.shuffle_epsilon`:

1. **The exact binary curve encloses the bounds.** For binary randomized response
   ($a = e^{ε_0}/(1 + e^{ε_0})$) the shuffled output is the count of ones. With k ones among the
   other $n − 1$ users it is $\\mathrm{Bin}(k, a) + \\mathrm{Bin}(n − 1 − k, 1 − a)$ plus the
   changed user's Bernoulli ($1 − a$ or $a$); the exact curve is the largest over k and both
   directions of $Σ_s (P_1(s) − e^ε P_0(s))_+$. The row builds every k's pmfs by direct
   convolution of SciPy's binomial pmfs (no FFT, no window) and checks: at each upper bound's ε
   the exact δ is at most the target, and at the lower bound's ε at least the target (each
   within $10^{-9}$ relative: the pmfs carry a few units of $10^{-15}$).
2. **FMT's closed form is never below the numerical bound.** Feldman, McMillan & Talwar (FOCS
   2021), Theorem 3.1: for $ε_0 ≤ \\log(n / (16 \\log(2/δ)))$, shuffling n reports of any
   ε₀-LDP randomizer is (ε, δ)-DP with $ε = \\log(1 + \\frac{1 − e^{−ε_0}}{1 + e^{−ε_0 − ε_1}}
   (a + c))$, $a = 8\\sqrt{e^{ε_0}\\log(4/δ)/n}$, $c = 8e^{ε_0}/n$, $ε_1 = \\log(1 + a + c)$ (the
   form of the paper's final version). Its numerical bound (their Theorem 3.2, the
   ``"clones"`` method) can only be smaller: the closed form is derived from it.
3. **Monotone in n.** One more user is a post-processing (a report from a fixed input, added
   to the histogram), so every certified bound must be non-increasing in n; the row checks
   each method's ε over a ladder of n.

All rows are quick (about a second together).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np
from scipy import optimize, stats

from optmech.certify.shuffle import shuffle_epsilon
from optmech.theorems._support import timed
from optmech.theorems.catalogue import CheckResult, check, exact_row

__all__ = ["binary_exact_rows", "fmt_closed_form", "fmt_closed_form_rows", "monotone_rows"]

GROUP = "shuffle"
DELTA = 1e-6
#: Relative slack on δ for the float pmfs (a few units of 1e-15 each, summed over ≤ 1001 terms).
_DELTA_RTOL = 1e-9


def _binary_rr(eps0: float) -> np.ndarray:
    a = 1.0 / (1.0 + math.exp(-eps0))
    return np.array([[a, 1.0 - a], [1.0 - a, a]])


def exact_binary_curve(eps0: float, n: int) -> Callable[[float], float]:
    """δ(ε) of n shuffled binary randomized-response reports, worst over the other users'
    inputs and both directions (module docstring, row 1), by direct convolution."""
    a = 1.0 / (1.0 + math.exp(-eps0))
    others = n - 1
    rows = []
    for k in range(others + 1):
        ones = stats.binom.pmf(np.arange(k + 1), k, a)
        zeros = stats.binom.pmf(np.arange(others - k + 1), others - k, 1.0 - a)
        rows.append(np.convolve(ones, zeros))
    count = np.array(rows)  # (k, s) pmf of the others' count, s = 0 … n − 1
    pad = np.zeros((others + 1, 1))
    shifted = np.hstack([pad, count])  # the changed user reports 1
    stay = np.hstack([count, pad])  # the changed user reports 0
    p1 = a * shifted + (1.0 - a) * stay  # input 1
    p0 = (1.0 - a) * shifted + a * stay  # input 0

    def delta(eps: float) -> float:
        t = math.exp(eps)
        one = np.maximum(p1 - t * p0, 0.0).sum(axis=1)
        other = np.maximum(p0 - t * p1, 0.0).sum(axis=1)
        return float(max(one.max(), other.max()))

    return delta


def _exact_epsilon(curve: Callable[[float], float], eps0: float) -> float:
    if curve(0.0) <= DELTA:
        return 0.0
    return float(optimize.brentq(lambda e: curve(e) - DELTA, 0.0, eps0, xtol=1e-12))


def binary_exact_rows(cases: list[tuple[float, int]]) -> list[CheckResult]:
    """Row 1 of the module docstring for each ``(ε₀, n)``."""
    out = []
    for eps0, n in cases:
        out.append(timed(_binary_exact_row, eps0, n))
    return out


def _binary_exact_row(eps0: float, n: int) -> CheckResult:
    g = shuffle_epsilon(_binary_rr(eps0), n, DELTA)
    curve = exact_binary_curve(eps0, n)
    uppers = {m: e for m, e in g.bounds.items() if m != "local"}
    failures = [
        f"{m}: exact δ({e:.6g}) = {curve(e):.4g} > δ"
        for m, e in uppers.items()
        if curve(e) > DELTA * (1.0 + _DELTA_RTOL)
    ]
    if curve(g.lower_bound) < DELTA * (1.0 - _DELTA_RTOL):
        failures.append(f"lower bound: exact δ({g.lower_bound:.6g}) < δ")
    shown = ", ".join(f"{m} {e:.6g}" for m, e in uppers.items())
    return exact_row(
        "shuffle: binary RR bounds enclose the exact curve",
        f"eps0={eps0:g}, n={n}, delta={DELTA:g}",
        g.epsilon,
        _exact_epsilon(curve, eps0),
        not failures,
        rule="exact δ(ε_m) ≤ δ for every upper bound m; exact δ(lower bound) ≥ δ (1e-9 rel.)",
        group=GROUP,
        detail="; ".join([f"bounds: {shown}; lower {g.lower_bound:.6g}", *failures]),
    )


def fmt_closed_form(eps0: float, n: int, delta: float) -> float:
    """Feldman, McMillan & Talwar (2021), Theorem 3.1 (module docstring, row 2); ε₀ where the
    theorem does not apply."""
    if eps0 > math.log(n / (16.0 * math.log(2.0 / delta))):
        return eps0
    a = 8.0 * math.sqrt(math.exp(eps0) * math.log(4.0 / delta) / n)
    c = 8.0 * math.exp(eps0) / n
    eps1 = math.log1p(a + c)
    coefficient = -math.expm1(-eps0) / (1.0 + math.exp(-eps0 - eps1))
    return min(eps0, math.log1p(coefficient * (a + c)))


def fmt_closed_form_rows(cases: list[tuple[int, float, int]]) -> list[CheckResult]:
    """Row 2 of the module docstring for each ``(k, ε₀, n)`` (k-ary randomized response)."""
    return [timed(_fmt_row, k, eps0, n) for k, eps0, n in cases]


def _k_rr(k: int, eps0: float) -> np.ndarray:
    m = np.ones((k, k))
    np.fill_diagonal(m, math.exp(eps0))
    return m / m.sum(axis=1, keepdims=True)


def _fmt_row(k: int, eps0: float, n: int) -> CheckResult:
    closed = fmt_closed_form(eps0, n, DELTA)
    numeric = shuffle_epsilon(_k_rr(k, eps0), n, DELTA, method="clones").epsilon
    return exact_row(
        "shuffle: FMT closed form ≥ the numerical clone bound",
        f"k={k}, eps0={eps0:g}, n={n}, delta={DELTA:g}",
        numeric,
        closed,
        numeric <= closed,
        rule="clones ε ≤ closed-form ε (FMT 2021, Thm 3.1 from Thm 3.2)",
        group=GROUP,
        detail=f"clones {numeric:.8g}, closed form {closed:.8g}",
    )


def monotone_rows(cases: list[tuple[int, float]]) -> list[CheckResult]:
    """Row 3 of the module docstring for each ``(k, ε₀)`` over n = 10², 10³, 10⁴, 10⁵."""
    return [timed(_monotone_row, k, eps0) for k, eps0 in cases]


def _monotone_row(k: int, eps0: float) -> CheckResult:
    ladder = (100, 1000, 10_000, 100_000)
    guarantees = [shuffle_epsilon(_k_rr(k, eps0), n, DELTA) for n in ladder]
    bounds = [g.bounds for g in guarantees]
    methods = sorted({m for b in bounds for m in b if m != "local"})
    broken = []
    for m in methods:
        eps = [b[m] for b in bounds if m in b]
        if any(later > earlier for earlier, later in itertools.pairwise(eps)):
            broken.append(f"{m}: {', '.join(f'{e:.6g}' for e in eps)}")
    auto = [g.epsilon for g in guarantees]
    return exact_row(
        "shuffle: certified ε non-increasing in n",
        f"k={k}, eps0={eps0:g}, n=1e2…1e5, delta={DELTA:g}",
        auto[-1],
        auto[0],
        not broken,
        rule="each method's ε at n = 1e2, 1e3, 1e4, 1e5 is non-increasing",
        group=GROUP,
        detail="; ".join(broken) or "auto: " + ", ".join(f"{e:.6g}" for e in auto),
    )


@check("shuffle: binary RR bounds enclose the exact curve", group=GROUP, quick=True)
def _binary_exact() -> list[CheckResult]:
    return binary_exact_rows([(0.5, 100), (2.0, 100), (1.0, 400), (4.0, 400)])


@check("shuffle: FMT closed form ≥ the numerical clone bound", group=GROUP, quick=True)
def _fmt() -> list[CheckResult]:
    return fmt_closed_form_rows([(2, 0.5, 10**5), (2, 2.0, 10**5), (8, 1.0, 10**6)])


@check("shuffle: certified ε non-increasing in n", group=GROUP, quick=True)
def _monotone() -> list[CheckResult]:
    return monotone_rows([(2, 1.0), (8, 3.0)])
