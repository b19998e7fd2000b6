"""What a matrix LP's engine hands back to its public function (`Solved`).

The designers' `Provenance` is assembled by the certified loop
(`optmech.lp.engine.certified.Outcome.provenance`).
"""

from __future__ import annotations

from dataclasses import dataclass

from optmech._floats import FloatArray
from optmech.lp.solve import SolveInfo
from optmech.provenance import Provenance

__all__ = ["Solved"]


@dataclass(frozen=True)
class Solved:
    """What a matrix LP's engine (the user LPs, the local model) hands back to its public
    function: the certified mechanism, the solver's point before the repair and its value, the
    certified ε, the provenance and the solve's record."""

    mechanism: FloatArray
    raw_mechanism: FloatArray
    raw_value: float
    certified_epsilon: float
    provenance: Provenance
    info: SolveInfo
