"""The result of `local_mechanism`: a user mechanism over the complete graph, with what the grid
says about the continuous optimum.

`LocalMechanism` *is* a `UserMechanism` (the result of `bayesian_mechanism`): ``mechanism``,
``outputs``, ``value``, ``lower_bound``, ``certified_epsilon``, ``provenance``, ``rvs``,
``plot``; its graph is the complete graph on the inputs. It adds the `GridStatement` and the
caller's constraints with their residuals (read from the provenance), and its ``to_opendp``
wraps it for OpenDP's discrete distance (every two inputs are neighbours).

**How far a grid LP's optimum can be from the optimum over a continuum of outputs**
(`grid_statement`). The envelope LP optimises over mechanisms whose outputs lie on the grid ``y_1 <
… < y_m``; the continuous problem lets them be any reals in ``[y_1, y_m]``. **Randomised rounding**
maps an output ``y ∈ [y_k, y_{k+1}]`` to ``y_k`` with probability ``(y_{k+1} − y)/h_k`` and to
``y_{k+1}`` otherwise (``h_k = y_{k+1} − y_k``). It is post-processing, so it keeps ε-LDP; it keeps
the mean of every output exactly, so it keeps ``Unbiased``; it is a monotone kernel, so it keeps
``Monotone``. For a loss that is a *convex* cost ``c(y − x)`` it raises the expected loss of any
input by at most the largest gap between ``c`` and its chord over one cell:

    squared error:   (y − y_k)(y_{k+1} − y) ≤ h²/4,        absolute error:   ≤ h/2,

with ``h`` the widest cell. The grid optimum is therefore at most that much above the continuous
optimum over ``[y_1, y_m]`` — for the Bayesian and the minimax objective alike. For a cost
non-decreasing in ``|y − x|`` and a grid that covers the inputs, clamping the outputs to
``[x_1, x_n]`` is post-processing that lowers every loss, so the continuous optimum over
``[y_1, y_m]`` is then the optimum over all of ℝ; ``Unbiased`` needs outputs beyond the inputs, so
with it the statement is about ``[y_1, y_m]`` only.

With a cap on the loss (``MaxRisk``, ``TailBound``, ``MaxCost``) the rounded mechanism may miss
the cap, and for other losses no chord bound is derived here: the grid value is then stated as
an upper bound only. Without constraints, for the squared and the absolute error with a prior,
the continuous optimum is known exactly: it is RR-on-Bins (the optimality theorem of Ghazi et
al. (2023)), and the statement quotes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech.constraints import Constraint, Monotone, Unbiased
from optmech.costs import Cost
from optmech.lp.matrix.envelope_setting import LocalSetting
from optmech.lp.matrix.result import UserMechanism
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.provenance import ConstraintRecord

__all__ = ["GridStatement", "LocalMechanism", "grid_statement"]


@dataclass(frozen=True)
class GridStatement:
    """What the grid LP's value says about the continuous optimum.

    Attributes
    ----------
    gap_bound : float or None
        The grid optimum exceeds the continuous optimum over ``[y_1, y_m]`` by at most this
        (``None``: the value is an upper bound only).
    continuous_optimum : float or None
        The continuous optimum itself when it is known in closed form (RR-on-Bins).
    over_reals : bool
        Whether the continuous optimum meant is over all of ℝ (the grid covers the inputs and
        clamping cannot hurt), not only over ``[y_1, y_m]``.
    text : str
        The statement in words.
    """

    gap_bound: float | None
    continuous_optimum: float | None
    over_reals: bool
    text: str


def _chord_gap(cost: Cost | None, spacing: float) -> float | None:
    law = None if cost is None else cost.power_law
    if law is None or law[1] != 1.0 or law[2] != 1.0 or not math.isfinite(spacing):
        return None
    return {2.0: spacing * spacing / 4.0, 1.0: spacing / 2.0}.get(law[0])


def grid_statement(
    setting: LocalSetting,
    constraints: tuple[Constraint, ...],
    continuous_optimum: float | None = None,
) -> GridStatement:
    """The statement for a solved grid (module docstring)."""
    y = setting.outputs
    spacing = float(np.max(np.diff(y))) if y.size > 1 else math.inf  # the widest cell
    keeps = all(isinstance(c, Unbiased | Monotone) for c in constraints)
    gap = _chord_gap(setting.cost, spacing) if keeps else None
    x = setting.inputs
    covers = y[0] <= x[0] and y[-1] >= x[-1]
    over_reals = covers and not any(isinstance(c, Unbiased) for c in constraints)
    where = "over all real outputs" if over_reals else f"over outputs in [{y[0]:g}, {y[-1]:g}]"
    if continuous_optimum is not None:
        text = (
            f"the continuous optimum {where} is {continuous_optimum:.10g} (RR-on-Bins, Ghazi et "
            "al. (2023)): the grid value is above it by its difference"
        )
        return GridStatement(gap, continuous_optimum, over_reals, text)
    if gap is None:
        why = (
            "a loss cap can fail after rounding the outputs"
            if not keeps
            else "no chord bound is derived for this loss"
        )
        text = f"the grid value is an upper bound on the continuous optimum only ({why})"
        return GridStatement(None, None, over_reals, text)
    text = (
        f"the grid value exceeds the continuous optimum {where} by at most {gap:.3g} "
        f"(randomised rounding to the grid, widest cell {spacing:.3g})"
    )
    return GridStatement(gap, None, over_reals, text)


@dataclass(frozen=True, repr=False)
class LocalMechanism(UserMechanism):
    """An optimal ε-LDP randomizer (see `UserMechanism`).

    Attributes
    ----------
    grid : GridStatement or None
        How far the grid value can be from the continuous optimum (or that it is an upper bound
        only).

    Examples
    --------
    >>> import optmech
    >>> local = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2])
    >>> local.mechanism.shape, bool(local.certified_epsilon <= 1.0 + 1e-9)
    ((3, 3), True)
    >>> bool(local.lower_bound <= local.value)
    True
    """

    grid: GridStatement | None = None

    _dict_fields = (*UserMechanism._dict_fields, "grid_statement")

    @property
    def grid_statement(self) -> str:
        """`grid` in words (empty when there is none)."""
        return "" if self.grid is None else self.grid.text

    @property
    def constraints(self) -> tuple[ConstraintRecord, ...]:
        """The caller's constraints and their residuals at `mechanism`."""
        return self.provenance.constraints

    @property
    def randomizer(self) -> LocalRandomizer:
        """The mechanism as a `LocalRandomizer` over `inputs` and `outputs` (its matrix is
        `mechanism`)."""
        return LocalRandomizer(self.mechanism, self.inputs, self.outputs)

    @property
    def support(self) -> np.ndarray:
        """The outputs the mechanism uses (columns with positive mass)."""
        return np.asarray(self.outputs)[self.mechanism.max(axis=0) > 0]

    def to_opendp(self) -> Any:
        """This randomizer as an OpenDP measurement on ``f64`` inputs under the discrete distance
        (any two distinct inputs at distance 1): exact sampling of the rows
        (`rvs`), privacy map ``d_in ↦
        sampled_epsilon()`` for ``d_in ≥ 1`` and 0 for ``d_in = 0``."""
        try:
            import opendp.prelude as dp
        except ImportError as exc:  # an optional extra
            raise ImportError("to_opendp() needs OpenDP: pip install 'optmech[opendp]'.") from exc
        dp.enable_features("contrib", "honest-but-curious")
        epsilon = self.sampled_epsilon()

        def release(x: float) -> float:
            return float(self.rvs(float(x)))

        def privacy_map(d_in: Any) -> float:
            d = int(d_in)
            if d < 0:
                raise ValueError(f"d_in must be a distance ≥ 0; got {d_in!r}.")
            return epsilon if d > 0 else 0.0

        return dp.m.make_user_measurement(
            dp.atom_domain(T="f64", nan=False),
            dp.discrete_distance(),
            dp.max_divergence(),
            release,
            privacy_map,
            TO="f64",
        )

    @property
    def model(self) -> str:
        """``"local (ε-LDP)"``: every two inputs are neighbours."""
        return "local (ε-LDP)"

    def _own_rows(self) -> list[tuple[str, Any]]:
        rows = super()._own_rows()
        if self.grid is not None:
            rows.append(("grid", self.grid.text))
        return rows + [(rec.name, f"residual {rec.residual:.3g}") for rec in self.constraints]

    def _repr_tail(self) -> str:
        return f"constraints={len(self.constraints)}"
