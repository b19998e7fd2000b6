"""Uniform noise with an atom at zero: the optimal (0, δ)-DP additive noise.

Geng, Ding, Guo & Kumar, *Optimal noise-adding mechanism in additive differential privacy*
(AISTATS 2019). The family ``P_α`` (``0 ≤ α < δ``) puts mass ``α`` at the origin and spreads the
rest uniformly, with density ``(δ − α)/Δ``, over ``[−L, L] \\ {0}``,

    L = (1 − α) Δ / (2 (δ − α)).

Every ``P_α`` is (0, δ)-DP for queries of sensitivity Δ: a shift by ``0 < d ≤ Δ`` moves the atom
off the origin and the uniform block by ``d``, so ``sup_S P(S) − P(S + d) = α + (δ − α) d / Δ ≤ δ``
(equality at ``d = Δ``). Their main theorem: within symmetric noise whose density is
non-increasing in ``|x|``, the least expected cost for a symmetric cost non-decreasing in
``|x|`` is ``inf_α E_{P_α} c(X)``; for ``c = |x|^p`` (Geng, Ding, Guo & Kumar 2019, Thm. 3)

    α* = 0                 if δ ≤ p/(p + 1),
    α* = (p + 1) δ − p     otherwise,

with minimum cost ``Δ^p / (2^p (p + 1) δ^p)`` resp. ``((p + 1)/(2p))^p (1 − δ) Δ^p``.
Tails: ``P(X > x) = (L − x)(δ − α)/Δ`` for ``0 ≤ x ≤ L`` (the atom lies on the ``cdf`` side at
0), computed directly rather than as ``1 − cdf``; ``sf(x) = cdf(−x)`` for ``x ≠ 0``.

Both closed forms were re-derived here from ``E_{P_α}|X|^p = (1 − α) L^p / (p + 1)`` (minimise
``(1 − α)^(p+1) / (δ − α)^p`` over α) and agree with the seed; the tests check them against the
exact cost and against quadrature.

Examples
--------
>>> from optmech.mechanisms.uniform_atom import UniformAtom
>>> noise = UniformAtom.optimal(delta=0.75, cost="abs")
>>> noise
UniformAtom(delta=0.75, sensitivity=1.0, alpha=0.5)
>>> noise.expected_cost("abs")   # (1 − δ) Δ, Geng et al. 2019
0.25
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._scipy import optimize
from optmech._validation import check_real, check_real_array
from optmech.costs import Cost, Power, as_cost
from optmech.mechanisms.base import ContinuousNoise, _keyword_repr
from optmech.mechanisms.description import PiecewiseDescription, PrivacySource, SourceKind
from optmech.privacy import ApproxDP

__all__ = ["UniformAtom", "uniform_atom_min_cost"]


#: Grid used by ``UniformAtom.optimal`` for costs without a closed form: a linear grid on
#: ``[0, δ)`` plus a geometric one towards δ (``δ − α`` from ``δ/256`` down to ``1e-12 δ``).
_LINEAR_POINTS = 256
_GEOMETRIC_POINTS = 128
_SMALLEST_GAP = 1e-12


def _support(delta: float, sensitivity: float, alpha: float) -> tuple[float, float]:
    """Half-width ``L`` and density ``h`` of ``P_α``; raise when they leave float range."""
    gap = delta - alpha  # > 0 exactly: alpha < delta and IEEE subtraction of distinct floats
    with np.errstate(all="ignore"):
        half_width = float(np.float64(1.0 - alpha) * sensitivity / (2.0 * gap))
        density = float(np.float64(gap) / sensitivity)
    if not (0.0 < half_width < math.inf and sys.float_info.min <= density < math.inf):
        raise ValueError(
            "`delta`, `alpha` and `sensitivity` give a uniform block outside floating-point "
            f"range (half-width L = {half_width!r}, density = {density!r}); got delta={delta!r}, "
            f"alpha={alpha!r}, sensitivity={sensitivity!r}."
        )
    return half_width, density


class UniformAtom(ContinuousNoise):
    """Mass $α$ at 0 plus a uniform density $(δ − α)/Δ$ on ``[−L, L] \\ {0}`` (Geng, Ding, Guo &
    Kumar 2019).

    Parameters
    ----------
    delta : float
        The δ of the (0, δ) guarantee, in (0, 1).
    sensitivity : float, default 1
        Query sensitivity Δ, in (0, inf).
    alpha : float
        Mass of the atom at the origin, in [0, delta).

    Attributes
    ----------
    alpha, atom : float
        The atom's mass (``atom`` is an alias, for code that handles any noise with atoms).
    half_width : float
        $L = (1 − α)Δ / (2(δ − α))$, the end of the uniform block.
    density : float
        $(δ − α)/Δ$, the density on $[−L, L]$. `pdf` excludes the atom; `cdf`
        includes its jump at 0.

    Notes
    -----
    Privacy: $sup_S P(S) − P(S + d) = α + (δ − α) min(d, 2L)/Δ ≤ δ$ for $0 < d ≤ Δ$ (the atom
    moves off 0, a slab of width ``d`` of the block is uncovered), so `privacy` is
    ``ApproxDP(0, δ)``; Geng, Ding, Guo & Kumar 2019.

    Examples
    --------
    >>> noise = UniformAtom(delta=0.25, alpha=0.0)
    >>> noise.half_width, noise.cdf(0.0)
    (2.0, 0.5)
    >>> UniformAtom(delta=0.8, alpha=0.4).cdf([-1e-9, 0.0])   # the atom's jump at 0
    array([0.3, 0.7])
    """

    def __init__(self, *, delta: float, sensitivity: float = 1.0, alpha: float) -> None:
        self._delta = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        self.sensitivity = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        self.alpha = check_real(
            "alpha",
            alpha,
            low=0.0,
            high=self._delta,
            high_open=True,
            hint="the atom must be lighter than delta",
        )
        self.half_width, self.density = _support(self._delta, self.sensitivity, self.alpha)

    # -- parameters ---------------------------------------------------------------------
    @property
    def atom(self) -> float:
        """``P(X = 0)``, the atom at the origin (equal to `alpha`)."""
        return self.alpha

    @property
    def privacy(self) -> ApproxDP:
        """``ApproxDP(0, δ)`` for queries of sensitivity `sensitivity`."""
        return ApproxDP(0.0, self._delta)

    # -- self-description -------------------------------------------------------------------
    def privacy_source(self) -> PrivacySource:
        """A uniform density on ``[−half_width, half_width]`` plus the atom (Geng, Ding, Guo &
        Kumar 2019): kind ``piecewise``, edges ``0`` and `half_width`."""
        edges = np.array([0.0, self.half_width])
        pieces = PiecewiseDescription(edges, float(self.atom), 0.0, 0.0, self.logpdf)
        parameters = {"half_width": self.half_width, "atom": self.alpha}
        return self._source(SourceKind.PIECEWISE, parameters=parameters, pieces=pieces)

    def __repr__(self) -> str:
        return _keyword_repr(
            self, delta=self._delta, sensitivity=self.sensitivity, alpha=self.alpha
        )

    # -- formulas -----------------------------------------------------------------------
    def _pdf(self, x: FloatArray) -> FloatArray:
        return np.where(np.abs(x) <= self.half_width, self.density, 0.0)

    def _cdf(self, x: FloatArray) -> FloatArray:
        big_l, h = self.half_width, self.density
        with np.errstate(all="ignore"):
            left = (x + big_l) * h  # P(X ≤ x) for −L ≤ x < 0
            right = 1.0 - (big_l - x) * h  # includes the atom for 0 ≤ x ≤ L
        out = np.where(x < 0.0, left, right)
        return np.where(np.abs(x) > big_l, (x > 0).astype(np.float64), np.clip(out, 0.0, 1.0))

    def _logpdf(self, x: FloatArray) -> FloatArray:
        return np.where(np.abs(x) <= self.half_width, math.log(self.density), -np.inf)

    def _sf(self, x: FloatArray) -> FloatArray:
        # P(X > x) = (L − x)h on [0, L] (the atom excluded), 1 − (x + L)h on [−L, 0): the
        # mirror image of _cdf, except at 0 where the atom sits on the other side.
        big_l, h = self.half_width, self.density
        with np.errstate(all="ignore"):
            right = (big_l - x) * h
            left = 1.0 - (x + big_l) * h  # includes the atom
        out = np.where(x >= 0.0, right, left)
        return np.where(np.abs(x) > big_l, (x < 0).astype(np.float64), np.clip(out, 0.0, 1.0))

    def _log_block(self, length: FloatArray) -> FloatArray:
        """``log(length·h)`` for a length of the uniform block (``−inf`` for lengths ≤ 0)."""
        with np.errstate(all="ignore"):
            return np.log(np.maximum(length, 0.0)) + math.log(self.density)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        big_l = self.half_width
        with np.errstate(all="ignore"):
            upper = np.log1p(-np.clip(self._sf(np.maximum(x, 0.0)), 0.0, 1.0))
            left = np.minimum(self._log_block(np.clip(x, -big_l, 0.0) + big_l), 0.0)
        return np.where(x < 0.0, left, upper)

    def _logsf(self, x: FloatArray) -> FloatArray:
        big_l = self.half_width
        with np.errstate(all="ignore"):
            lower = np.log1p(-np.clip(self._cdf(np.minimum(x, -0.0)), 0.0, 1.0))
            right = np.minimum(self._log_block(big_l - np.clip(x, 0.0, big_l)), 0.0)
        return np.where(x >= 0.0, right, lower)

    def _ppf(self, q: FloatArray) -> FloatArray:
        big_l, h, a = self.half_width, self.density, self.alpha
        lower = (1.0 - a) / 2.0  # P(X < 0)
        left = np.maximum(q / h - big_l, -big_l)
        right = np.minimum(big_l - (1.0 - q) / h, big_l)
        return np.where(q <= lower, left, np.where(q <= lower + a, 0.0, right))

    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray:
        # Inverse cdf of a uniform draw: the atom is hit with probability exactly α.
        return self._ppf(rng.random(size))

    def _expected_cost(self, cost: Cost) -> float:
        # E c(X) = α c(0) + (δ − α)/Δ · ∫_{−L}^{L} c, split at 0 where costs may kink.
        with np.errstate(all="ignore"):
            inner = float(cost.integral(-self.half_width, 0.0)) + float(
                cost.integral(0.0, self.half_width)
            )
            return self.alpha * float(cost(0.0)) + self.density * inner

    # -- scipy.stats parity: exact moments and entropy ------------------------------------------
    def _mean(self) -> float:
        return 0.0

    def _moment(self, n: int) -> float:
        """``E X^n = 2h L^(n+1)/(n + 1)`` for even ``n ≥ 2`` (the atom adds ``0^n = 0``), 0 for
        odd ``n``."""
        if n % 2:
            return 0.0
        return 2.0 * self.density * self.half_width ** (n + 1) / (n + 1)

    def _central_moment(self, n: int) -> float:
        return self._moment(n)

    def _entropy(self) -> float:
        """``log(2L)`` without an atom; a law with an atom has no differential entropy."""
        if self.alpha > 0.0:
            raise ValueError(
                f"{self!r} has an atom of mass alpha={self.alpha!r} at 0: a law with an atom "
                "beside its density has no differential entropy (alpha must be 0)."
            )
        return math.log(2.0 * self.half_width)

    # -- the optimum of Geng, Ding, Guo & Kumar 2019 -----------------------------------------------
    @classmethod
    def optimal(
        cls, *, delta: float, sensitivity: float = 1.0, cost: Cost | str | Any
    ) -> UniformAtom:
        """The $P_α*$ of least expected cost (Geng, Ding, Guo & Kumar 2019, main theorem and Thm.
        3).

        Parameters
        ----------
        delta : float
            In (0, 1).
        sensitivity : float, default 1
            In (0, inf).
        cost : Cost, str or callable
            Must be symmetric and non-decreasing in ``|x|`` (the theorem's hypotheses).

        Returns
        -------
        UniformAtom
            For `Power` costs (including ``Absolute`` and ``Squared``)
            $α* = 0$ if $δ ≤ p/(p+1)$ else $(p+1)δ − p$ (closed form). For other costs
            $α*$ minimises the exact `expected_cost` over a grid of 384 points of
            $[0, δ)$ (dense towards δ), refined by bounded Brent search to ``1e-13`` in α
            around the best grid point; the endpoint $α = 0$ is a grid point.

        Raises
        ------
        ValueError
            If the cost is not symmetric and non-decreasing, or if the infimum over $[0, δ)$
            is approached only as $α → δ$ (a bounded cost such as ``ZeroOne(t)`` with
            $t < Δ/2$): then no member of the family attains it.

        Notes
        -----
        The optimum is over symmetric noise with density non-increasing in ``|x|``; noise
        outside that class (found by an LP) can do better.

        Examples
        --------
        >>> UniformAtom.optimal(delta=0.25, cost="squared").alpha
        0.0
        >>> UniformAtom.optimal(delta=0.9, cost="squared").alpha
        0.7000000000000002
        """
        d = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        sens = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
        c = as_cost(cost)
        c.require_symmetric_nondecreasing("UniformAtom.optimal (Geng, Ding, Guo & Kumar 2019)")
        if isinstance(c, Power):
            return cls(delta=d, sensitivity=sens, alpha=_alpha_star_power(d, c.p))
        return cls(delta=d, sensitivity=sens, alpha=_alpha_star_numeric(d, sens, c))


def _alpha_star_power(delta: float, p: float) -> float:
    """Geng et al. (2019), Thm. 3: ``α* = max(0, (p + 1)δ − p)``, kept strictly below δ."""
    if delta <= p / (p + 1.0):
        return 0.0
    alpha = max((p + 1.0) * delta - p, 0.0)
    return alpha if alpha < delta else math.nextafter(delta, 0.0)


def _costs_at(alphas: FloatArray, delta: float, sensitivity: float, cost: Cost) -> FloatArray:
    """Exact ``E_{P_α} c(X)`` for an array of α (``inf`` where it overflows).

    ``L(α)`` increases with α, so ``∫_0^{L(α)} c`` is accumulated over the consecutive pieces
    between the sorted ``L`` values: away from 0 each piece is smooth, and Cost.integral's
    quadrature (costs without an antiderivative) rarely needs its slow adaptive fallback.
    """
    gap = delta - alphas
    with np.errstate(all="ignore"):
        half = (1.0 - alphas) * sensitivity / (2.0 * gap)
        dens = gap / sensitivity
    values = np.full(alphas.shape, np.inf)
    ok = np.isfinite(half)
    if not np.any(ok):
        return values
    order = np.argsort(half[ok])
    edges = np.concatenate([[0.0], half[ok][order]])
    with np.errstate(all="ignore"):
        pos = np.cumsum(np.asarray(cost.integral(edges[:-1], edges[1:])))
        neg = np.cumsum(np.asarray(cost.integral(-edges[1:], -edges[:-1])))
        inner = np.empty(order.shape)
        inner[order] = pos + neg
        found = alphas[ok] * float(cost(0.0)) + dens[ok] * inner
    values[ok] = np.where(np.isfinite(found), found, np.inf)
    return values


def _alpha_star_numeric(delta: float, sensitivity: float, cost: Cost) -> float:
    """Minimise the exact cost over α ∈ [0, δ) on a grid, then refine by bounded Brent."""
    linear = delta * np.arange(_LINEAR_POINTS) / _LINEAR_POINTS
    geometric = delta - delta * np.geomspace(1.0 / _LINEAR_POINTS, _SMALLEST_GAP, _GEOMETRIC_POINTS)
    grid = np.unique(np.concatenate([linear, geometric[geometric < delta]]))
    values = _costs_at(grid, delta, sensitivity, cost)
    best = float(values.min())
    if not math.isfinite(best):
        raise ValueError(f"the expected cost of every UniformAtom is infinite under {cost!r}.")
    # Not attained: the least value sits at the grid point nearest δ and the cost fell by more
    # than rounding along the geometric part of the grid (δ − α from δ/256 to 1e-12 δ).
    last = len(grid) - 1
    start = int(np.searchsorted(grid, geometric[0]))
    if int(np.argmin(values)) == last and values[last] < values[start] - 1e-9 * abs(best):
        raise ValueError(
            f"the expected cost under {cost!r} keeps decreasing as alpha → delta = {delta!r}: "
            "the infimum over alpha in [0, delta) is not attained by any UniformAtom (its limit "
            "puts mass delta at 0 and 1 − delta at infinity)."
        )
    # Ties (flat costs) go to the smallest α: no atom unless it helps.
    i = int(np.argmax(values <= best + 1e-12 * abs(best)))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, last)]

    def objective(a: float) -> float:
        return float(_costs_at(np.array([a]), delta, sensitivity, cost)[0])

    res = optimize.minimize_scalar(
        objective, bounds=(float(lo), float(hi)), method="bounded", options={"xatol": 1e-13}
    )
    refined = float(res.x)
    if 0.0 <= refined < delta and objective(refined) < best - 1e-12 * abs(best):
        return refined
    return float(grid[i])


def uniform_atom_min_cost(
    delta: npt.ArrayLike, p: npt.ArrayLike, sensitivity: npt.ArrayLike = 1.0
) -> FloatArray | float:
    """Least $E|X|^p$ over (0, δ)-DP symmetric monotone noise: Geng, Ding, Guo & Kumar 2019, Thm.
    3.

    $Δ^p / (2^p (p + 1) δ^p)$ for $δ ≤ p/(p + 1)$, else $((p + 1)/(2p))^p (1 − δ) Δ^p$,
    evaluated in log space and broadcast over the arguments.

    Parameters
    ----------
    delta : array_like
        In (0, 1).
    p : array_like
        Cost exponent, in (0, inf).
    sensitivity : array_like, default 1
        In (0, inf).

    Returns
    -------
    float or ndarray
        A float when every argument is a scalar.

    Raises
    ------
    ValueError
        On arguments out of range, shapes that do not broadcast, or a cost beyond float range.

    Examples
    --------
    >>> uniform_atom_min_cost(0.25, 1)      # Δ/(4δ)
    1.0
    >>> uniform_atom_min_cost([0.5, 0.75], 2)  # Δ²/(12δ²) and (9/16)(1 − δ)Δ²
    array([0.33333333, 0.140625  ])
    """
    d = _open_array("delta", delta, 0.0, 1.0)
    pw = _open_array("p", p, 0.0, math.inf)
    sens = _open_array("sensitivity", sensitivity, 0.0, math.inf)
    try:
        d, pw, sens = np.broadcast_arrays(d, pw, sens)
    except ValueError as exc:
        raise ValueError(
            f"`delta`, `p` and `sensitivity` must broadcast together; got shapes {d.shape}, "
            f"{pw.shape} and {sens.shape}."
        ) from exc
    with np.errstate(all="ignore"):
        small = d <= pw / (pw + 1.0)
        log_small = pw * (np.log(sens) - np.log(2.0) - np.log(d)) - np.log1p(pw)
        log_large = pw * (np.log1p(pw) - np.log(2.0 * pw) + np.log(sens)) + np.log1p(-d)
        out = np.exp(np.where(small, log_small, log_large))
    if not np.all(np.isfinite(out)):
        raise ValueError(
            "the minimum cost overflows float64 for some of the arguments "
            "(sensitivity**p too large, or delta too small)."
        )
    return float(out) if out.ndim == 0 else out


def _open_array(name: str, value: Any, low: float, high: float) -> FloatArray:
    arr = check_real_array(name, value)
    if np.any((arr <= low) | (arr >= high)):
        bad = arr[(arr <= low) | (arr >= high)].flat[0]
        hi = "inf" if high == math.inf else f"{high:g}"
        raise ValueError(f"`{name}` must be in ({low:g}, {hi}); got {float(bad)!r}.")
    return arr
