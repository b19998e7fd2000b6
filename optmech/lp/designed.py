"""The designed noise: a tabulated noise family plus the provenance of the LP behind it.

:func:`optmech.lp.additive.design_noise` returns a :class:`DesignedNoise`: a
:class:`~optmech.mechanisms.piecewise.PiecewiseConstantNoise` (density) or
:class:`~optmech.mechanisms.piecewise.LatticeNoise` (pmf on ℤ) — so ``pdf``/``pmf``, ``cdf``,
``ppf``, ``rvs`` and ``expected_cost`` work as for any optmech noise — that also carries a
:class:`DesignInfo`: solver, status, timings, the largest constraint violation of the solver's
point, the value re-evaluated exactly at the returned point, the certified ε and δ, and what a
repair (if one was needed) cost. Printing one tells whether to trust it (ARCHITECTURE.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech.costs import Cost
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ApproxDP, PureDP

__all__ = [
    "DesignInfo",
    "DesignedLatticeNoise",
    "DesignedNoise",
    "DesignedPiecewiseNoise",
    "make_designed",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class DesignInfo:
    """Provenance of one design.

    Attributes
    ----------
    privacy, cost, sensitivity, resolution, periods, integer, symmetric, monotone
        The specification (``resolution`` = cells per Δ, ``periods`` = Δ-periods each side).
    reduced : bool
        Solved on half the variables (``symmetric``, or exactly equivalent for a symmetric cost).
    window : str
        Form of the ε-DP rows: ``"pairs"``, ``"sparse-table"``, ``"blocks"``, ``"monotone"``,
        or ``"none"`` for (ε, δ).
    solver, status : str
        cvxpy's solver name and status.
    solve_time, compile_time, total_time, build_time : float
        Seconds: in the solver, in cvxpy's canonicalisation, the whole solve call, and building
        the matrices.
    iterations : int or None
        Solver iterations.
    num_variables, num_constraints : int
        Size of the LP.
    lp_objective : float
        The solver's reported optimum, in cost units (not trusted: see ``value``).
    raw_value : float
        Exact expected cost of the solver's point (clipped at 0, renormalised).
    value : float
        Exact expected cost of the returned noise.
    max_violation : float
        Largest constraint violation of the solver's raw point, in LP units (densities × Δ).
    raw_certified_epsilon, raw_certified_delta : float, float or None
        Certified privacy of the solver's point (before any repair); for ε-DP the δ of a
        point that fails its ε is not computed (None).
    certified_epsilon, certified_delta : float
        Certified privacy of the returned noise (ε: pure ε, ``inf`` for finite support; δ: at
        the requested ε).
    repair : str
        ``"none"``, ``"envelope"`` (ε-DP: cells raised to the ratio bound) or ``"mixture"``
        ((ε, δ): mixed with a reference density).
    repair_cost : float
        ``value − raw_value``.
    repair_detail : str
        E.g. the mixture weight.
    """

    privacy: PureDP | ApproxDP
    cost: Cost
    sensitivity: float
    resolution: int
    periods: int
    integer: bool
    symmetric: bool
    monotone: bool
    reduced: bool
    window: str
    solver: str
    status: str
    solve_time: float
    compile_time: float
    total_time: float
    build_time: float
    iterations: int | None
    num_variables: int
    num_constraints: int
    lp_objective: float
    raw_value: float
    value: float
    max_violation: float
    raw_certified_epsilon: float
    raw_certified_delta: float | None
    certified_epsilon: float
    certified_delta: float
    repair: str
    repair_cost: float
    repair_detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (privacy and cost as strings) for JSON output."""
        out = asdict(self)
        out["privacy"] = str(self.privacy)
        out["cost"] = repr(self.cost)
        return out


class DesignedNoise:
    """Mixin of the designed families: LP provenance on top of a tabulated noise."""

    info: DesignInfo

    @property
    def value(self) -> float:
        """Exact expected cost of this noise under the design's cost."""
        return self.info.value

    @property
    def certified_epsilon(self) -> float:
        """Certified pure ε (``inf`` for finite support or an atom)."""
        return self.info.certified_epsilon

    @property
    def certified_delta(self) -> float:
        """Certified δ at the requested ε."""
        return self.info.certified_delta

    @property
    def status(self) -> str:
        """Solver status."""
        return self.info.status

    @property
    def solver(self) -> str:
        """Solver name."""
        return self.info.solver

    @property
    def solve_time(self) -> float:
        """Seconds in the solver."""
        return self.info.solve_time

    @property
    def max_violation(self) -> float:
        """Largest constraint violation of the solver's point."""
        return self.info.max_violation

    @property
    def grid(self) -> FloatArray:
        """Cell edges (density) or integer points (pmf) of the design."""
        if isinstance(self, PiecewiseConstantNoise):
            return self.edges
        assert isinstance(self, LatticeNoise)
        return self.support

    def summary(self) -> dict[str, Any]:
        """The provenance as a plain dict (see :class:`DesignInfo`)."""
        return self.info.to_dict()


class DesignedPiecewiseNoise(DesignedNoise, PiecewiseConstantNoise):
    """A designed density (see :class:`DesignedNoise` and :class:`PiecewiseConstantNoise`)."""

    def __repr__(self) -> str:
        return (
            f"DesignedPiecewiseNoise({self.info.privacy}, cost={self.info.cost!r}, "
            f"value={self.value:.9g}, resolution={self.info.resolution}, "
            f"periods={self.info.periods}, certified_epsilon={self.certified_epsilon:.9g}, "
            f"certified_delta={self.certified_delta:.3g}, solver={self.solver}, "
            f"status={self.status})"
        )


class DesignedLatticeNoise(DesignedNoise, LatticeNoise):
    """A designed pmf on ℤ (see :class:`DesignedNoise` and :class:`LatticeNoise`)."""

    def __repr__(self) -> str:
        return (
            f"DesignedLatticeNoise({self.info.privacy}, cost={self.info.cost!r}, "
            f"value={self.value:.9g}, sensitivity={int(self.sensitivity)}, "
            f"periods={self.info.periods}, certified_epsilon={self.certified_epsilon:.9g}, "
            f"certified_delta={self.certified_delta:.3g}, solver={self.solver}, "
            f"status={self.status})"
        )


def make_designed(noise: PiecewiseConstantNoise | LatticeNoise, info: DesignInfo) -> DesignedNoise:
    """Attach ``info`` to a tabulated noise (same numbers, designed class)."""
    cls: type = (
        DesignedPiecewiseNoise
        if isinstance(noise, PiecewiseConstantNoise)
        else (DesignedLatticeNoise)
    )
    out = cls.__new__(cls)
    out.__dict__.update(noise.__dict__)
    out.info = info
    return out  # type: ignore[no-any-return]
