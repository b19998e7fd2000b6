"""The result of `local_mechanism`: a user mechanism over
the complete graph, with what the grid says about the continuous optimum.

`LocalMechanism` *is* a `UserMechanism`
(the result of `bayesian_mechanism`): ``mechanism``, ``outputs``,
``value``, ``lower_bound``, ``certified_epsilon``, ``provenance``, ``rvs``, ``plot``; its graph
is the complete graph on the inputs. It adds the
`GridStatement` and the caller's constraints
with their residuals (read from the provenance), and its ``to_opendp`` wraps it for OpenDP's
discrete distance (every two inputs are neighbours).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech.lp.local.discretisation import GridStatement
from optmech.lp.matrix.result import UserMechanism
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.provenance import ConstraintRecord

__all__ = ["LocalMechanism"]


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
        for rec in self.constraints:
            rows.append((rec.name, f"residual {rec.residual:.3g}"))
        return rows

    def _repr_tail(self) -> str:
        return f"constraints={len(self.constraints)}"
