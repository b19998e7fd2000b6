"""The repair loop: the least weight of a private reference that makes a mixture certify.

No solver's point is exactly private. Every LP family repairs it the same way when raising entries
is not enough: a convex combination ``(1 − λ)P + λR`` with a reference ``R`` that is private with
room to spare. Every guarantee optmech certifies is a jointly convex divergence of the pair of
output distributions (ε-DP ratios, the hockey-stick divergence, Rényi divergences), so the mixture's
divergence is at most ``(1 − λ)D_P + λD_R``: some ``λ ≤ 1`` certifies, and the mixture costs about
``λ`` times the gap between the two. `least_mixture` is the one search for it, used by the user LPs
(``R`` the uniform mechanism; Dwork & Roth (2014), §3.5: a mixture with a 0-DP mechanism), the
query-dependent LP (the ``ε/2``-geometric noise), and the additive designers ((ε, δ): the grid
Laplace density; beyond (ε, δ): a Gaussian or geometric reference):

1. from a first weight (a closed form from the worst violation, or a small number), grow it
   by a factor (up to ``largest``) until the mixture certifies — each trial is one
   certification from the numbers alone, never the LP's word;
2. then, if asked, bisect between the last weight that failed (0 at first) and the one that
   certified, arithmetically or geometrically, keeping the least weight that certified.

What is mixed and how it is certified is the caller's; the search only sees a function from a
weight to the certified mixture (or None when it does not certify).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from optmech.exceptions import PrivacyViolationError
from optmech.lp.engine.report import tick

__all__ = ["MixingSearch", "least_mixture"]

C = TypeVar("C")


@dataclass(frozen=True)
class MixingSearch:
    """How `least_mixture` searches.

    Attributes
    ----------
    growth : float
        Factor by which a weight that fails is raised, > 1.
    floor : float
        Smallest weight tried after the first (a first weight of 0 or below machine precision
        is raised to it).
    largest : float
        Largest weight tried, in (0, 1]: a failure there is final.
    refine_steps : int
        Bisection steps after the first weight that certifies (each one certification).
    geometric : bool
        Bisect at the geometric mean (weights spanning decades) rather than the midpoint; the
        lower end is taken at least ``hi/growth``.
    """

    growth: float = 2.0
    floor: float = 0.0
    largest: float = 1.0
    refine_steps: int = 0
    geometric: bool = False

    def midpoint(self, lo: float, hi: float) -> float:
        """The next weight of the bisection between ``lo`` (failed) and ``hi`` (certified)."""
        if self.geometric:
            return math.sqrt(max(lo, hi / self.growth) * hi)
        return 0.5 * (lo + hi)


def least_mixture(
    certify: Callable[[float], C | None],
    start: float,
    search: MixingSearch,
    *,
    failure: str,
) -> tuple[float, C]:
    """The least weight found whose mixture certifies (``certify(λ)``: the mixture with weight
    ``λ`` if it certifies, else None), from ``start`` (capped at ``search.largest``), and what
    ``certify`` returned for it; `PrivacyViolationError` with the message ``failure`` when even
    ``search.largest`` does not certify.

    Examples
    --------
    >>> certify = lambda lam: lam if lam >= 0.3 else None  # certifies from λ = 0.3 on
    >>> least_mixture(certify, 0.01, MixingSearch(), failure="no λ")[0]  # 0.01 · 2^5
    0.32
    >>> round(least_mixture(certify, 0.01, MixingSearch(refine_steps=4), failure="no λ")[0], 9)
    0.3
    """
    weight = min(start, search.largest)
    got = certify(weight)
    tick("repair")
    while got is None:
        if weight >= search.largest:
            raise PrivacyViolationError(failure)
        weight = min(search.largest, max(search.growth * weight, search.floor))
        got = certify(weight)
        tick("repair")
    lo, best = 0.0, (weight, got)
    for _ in range(search.refine_steps):
        mid = search.midpoint(lo, weight)
        trial = certify(mid)
        tick("repair")
        if trial is None:
            lo = mid
        else:
            weight, best = mid, (mid, trial)
    return best
