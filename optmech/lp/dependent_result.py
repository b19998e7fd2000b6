"""The result of the query-dependent LP: a family of noises ``X_t``, one per query value.

`dependent_noise_lp` returns a `DependentNoiseResult`: the pmf ``q_t`` of each phase ``t = 0..P−1``
on the grid ``−K..K``, continued beyond it by geometric tails (factor ``e^−ε`` per period Δ), mixed
with the ``ε/2``-geometric noise by the repair's weight, with the certified interval of the LP's
optimum in its `Provenance` and the solver's multipliers (`Multipliers`) for recomputing the bound
in other arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray, IntArray
from optmech.lp.solve import SolveInfo
from optmech.provenance import Provenance
from optmech.results import LPResult

__all__ = ["DependentNoiseResult", "Multipliers", "geometric_half", "with_tails"]


def geometric_half(eps: float, delta: int, k: IntArray) -> FloatArray:
    """The ε/2-geometric pmf ``u(k) = (1 − β)/(1 + β) β^|k|``, ``β = e^(−ε/(2Δ))``."""
    # (1 − β)/(1 + β) = tanh(ε/(4Δ))
    return math.tanh(eps / (4.0 * delta)) * np.exp(-eps / (2.0 * delta) * np.abs(k))


def with_tails(q: FloatArray, half: int, delta: int, eps: float, k: IntArray) -> FloatArray:
    """Grid values ``q`` on ``−K..K`` continued by their geometric tails, at integers ``k``."""
    b = math.exp(-eps)
    out = np.zeros(k.shape)
    inside = np.abs(k) <= half
    out[inside] = q[k[inside] + half]
    for s in (1, -1):  # beyond K (s = 1) and below −K (s = −1): ceil((s·k − K)/Δ) periods out
        side = s * k > half
        periods = -((half - s * k[side]) // delta)
        out[side] = b**periods * q[k[side] - s * periods * delta + half]
    return out


@dataclass(frozen=True)
class Multipliers:
    """The solver's multipliers of the LP it solved, by constraint name, and that LP's scaling.

    Enough to recompute the Lagrangian bound of the module docstring in other arithmetic (the
    exact mode of ``optmech verify`` does, in ball arithmetic): the privacy rows are those of
    the extended grid, shift by shift (``d = −Δ … Δ``, ``d ≠ 0``), phase by phase, column by
    column, divided by ``e^(ε/2)`` when `balanced`.

    Attributes
    ----------
    cost : ndarray, shape (P,)
        Multipliers of ``y_t·c̄/unit − w ≤ 0``.
    privacy : ndarray
        Multipliers of the privacy rows, in the order above.
    objective_unit : float
        The LP's ``w`` times this is a cost.
    coefficients : ndarray, shape (2K + 1,)
        The cost coefficients ``c̄_k/unit`` of the epigraph rows as solved.
    balanced : bool
        Whether the privacy rows were divided by ``e^(ε/2)``.
    w_box : tuple of float
        The box on ``w`` used by the bound.
    """

    cost: FloatArray = field(repr=False)
    privacy: FloatArray = field(repr=False)
    objective_unit: float
    coefficients: FloatArray = field(repr=False)
    balanced: bool
    w_box: tuple[float, float]


@dataclass(frozen=True, repr=False)
class DependentNoiseResult(LPResult):
    """The optimal query-value-dependent noise family and its worst-case cost.

    The noise at query value ``t`` has pmf ``(1 − λ) q_{t mod P}(k) + λ u(k)`` where ``q`` is
    `probabilities` on `support` with the geometric tails of the module docstring,
    and ``u`` the ``ε/2``-geometric noise (``λ`` = `repair_lambda`, usually 0).

    Attributes
    ----------
    probabilities : ndarray, shape (P, 2K + 1)
        ``q_t(k)`` on the grid.
    support : ndarray of int
        The grid ``−K..K``.
    phase_costs : ndarray, shape (P,)
        ``E c(X_t)`` for each phase (nearest rounding).
    certified_epsilon : float
        Achieved ε of the family, pessimistic and independent of the LP; at most ``epsilon``.
    epsilon, sensitivity, period, half_width
        The instance.
    provenance : Provenance
        Solver attempts, repair and the certified interval ``[lower_bound, value]`` that
        contains the LP's optimum; `value` (``max_t E c(X_t)``, tails included, rounded up),
        `solver`, `status`, `solve_time` and `repair_lambda` read it.
    multipliers : Multipliers or None
        The solver's multipliers (``None`` when it returned none).
    """

    probabilities: FloatArray = field(repr=False)
    support: IntArray = field(repr=False)
    phase_costs: FloatArray
    certified_epsilon: float
    epsilon: float
    sensitivity: int
    period: int
    half_width: int
    provenance: Provenance = field(repr=False)
    multipliers: Multipliers | None = field(repr=False, default=None)
    _solve_info: SolveInfo | None = field(repr=False, default=None, compare=False)

    @property
    def info(self) -> SolveInfo | None:
        """Deprecated: the successful solve's record; everything in it is in
        `provenance`."""
        warn_deprecated("`DependentNoiseResult.info`", "`DependentNoiseResult.provenance`")
        return self._solve_info

    def plot(self, ax: Any = None) -> Any:
        """The pmf of each phase on the grid (the mixture of the repair included); returns the
        Axes (`optmech.plotting.plot_phases`)."""
        from optmech.plotting import plot_phases

        pmfs = [self.pmf(t, self.support) for t in range(self.period)]
        return plot_phases(
            self.support,
            pmfs,
            ax,
            title=f"query-dependent noise, ε = {self.epsilon:g}, Δ = {self.sensitivity}, "
            f"worst cost {self.value:.6g}",
        )

    _dict_fields = (
        "epsilon",
        "sensitivity",
        "period",
        "half_width",
        "certified_epsilon",
        "phase_costs",
        "support",
        "probabilities",
    )

    _model = "query-dependent noise"

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [("noise", f"period {self.period}, grid ±{self.half_width}, Δ = {self.sensitivity}")]

    def pmf(self, t: int, k: npt.ArrayLike) -> FloatArray:
        """``P(X_t = k)`` for query value ``t`` (any integer) and noise values ``k``."""
        kk = np.asarray(k, dtype=np.int64)
        table = self.probabilities[int(t) % self.period]
        q = with_tails(table, self.half_width, self.sensitivity, self.epsilon, kk)
        u = geometric_half(self.epsilon, self.sensitivity, kk)
        return (1.0 - self.repair_lambda) * q + self.repair_lambda * u

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release ``true_value + X_t`` for the query value ``t = true_value``, drawn exactly as
        stored (integer and rational arithmetic only:
        `optmech.mechanisms.exact_sampling.lattice_draw` for the table and its geometric tails,
        and Canonne, Kamath & Steinke's (2020) exact geometric for the repair's ε/2-geometric
        mixed in with weight `repair_lambda`).

        The phase's table is sampled divided by its exact sum (1 up to float rounding), so the
        sampled family's ε exceeds `certified_epsilon` by at most the largest
        ``|log(T_t / T_t')|`` of two phases' sums, about 1e-16.

        Parameters
        ----------
        true_value : int
            The true query answer (any integer; its phase is ``true_value mod period``).
        size : int or tuple of int, optional
            The shape of the releases (None for one).
        rng : numpy.random.Generator, random.Random, int or None
            The source of random bits (`optmech.mechanisms.exact_sampling.check_bit_source`).

        Returns
        -------
        int or numpy.ndarray of int64

        Examples
        --------
        >>> import random, optmech
        >>> noise = optmech.dependent_noise_lp(1.0, sensitivity=2, period=2)
        >>> releases = noise.rvs(7, size=1000, rng=random.Random(0))
        >>> releases.shape, bool(abs(releases.mean() - 7) < 1)
        ((1000,), True)
        """
        from fractions import Fraction

        from optmech.mechanisms import exact_sampling as xs

        if isinstance(true_value, bool) or not isinstance(true_value, int | np.integer):
            raise TypeError(f"`true_value` must be an integer query value; got {true_value!r}.")
        t = int(true_value)
        q = self.probabilities[t % self.period]
        ratio = math.exp(-self.epsilon)
        delta = self.sensitivity
        left, right = (ratio * q[:delta], ratio), (ratio * q[-delta:], ratio)
        table, _ = xs.lattice_draw(-self.half_width, q, delta, left=left, right=right)
        weight = Fraction(self.repair_lambda)
        rate = Fraction(self.epsilon) / (2 * delta)  # u(k) ∝ e^(−ε|k|/(2Δ))
        geometric = xs.two_sided(lambda bits: xs.geometric_exp(rate, bits))

        def draw(bits: Any) -> int:
            return t + (geometric(bits) if weight and xs.bernoulli(weight, bits) else table(bits))

        return xs.draw_many(draw, size, rng)

    def __repr__(self) -> str:
        return (
            f"DependentNoiseResult(epsilon={self.epsilon:g}, sensitivity={self.sensitivity}, "
            f"period={self.period}, half_width={self.half_width}, value={self.value:.9g}, "
            f"lower_bound={self.lower_bound:.9g}, "
            f"certified_epsilon={self.certified_epsilon:.9g}, solver={self.solver}, "
            f"status={self.status})"
        )

    @property
    def repair_lambda(self) -> float:
        """Weight of the ``ε/2``-geometric mixed in to make the point exactly private."""
        return self.provenance.repair.weight
