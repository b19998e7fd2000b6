"""Time and memory of a user LP by how it is solved: the model behind every size refusal.

Each `SizeModel` counts the problem actually solved — the ``N·m`` variables of the
full LP, the ``⌈N·m/2⌉`` orbit variables of the mirror-reduced one
(`optmech.lp.user.reductions`), or the ``N × m`` pricing arrays and
the sparse master of column generation
(`optmech.lp.user.column_generation`) — and predicts

    memory (GB) = min(bytes_per_unit · units, fixed_bytes + bulk_bytes_per_unit · units) / 1e9,
    seconds = seconds_per_unit · units^exponent,

the memory being what the solve adds to the process (peak resident memory, ``VmHWM``, minus the
resident memory after the imports). The coefficients are fitted to the table that
``python -m benchmarks.grs_scaling`` writes to ``benchmarks/results/grs_scaling.json``
(Dirichlet(1) and uniform priors, |e|, ε = 0.5, 2 shared cores): the time by least squares of
log(seconds) on log(units) over the sizes n ≥ 400, where the solve dominates; the memory by
lines above every measured size n ≥ 400, so that the estimate errs on the side of a refusal:
``bytes_per_unit`` the largest measured per unit. The full LP's memory is proportional to its
size. Column generation's is not: its work arrays are taken in blocks of a fixed size
(``BLOCK_ENTRIES`` of `optmech.lp.user.cone`), so per unit it fell from 146 bytes at
n = 400 to 65 at n = 4000 (1.04 GB); a second line (a fixed part and about six ``N × m`` arrays
of floats), drawn through the largest sizes measured and raised a few percent, takes over
where it is the lower. ``SOURCE``, quoted in every refusal, names the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "COLUMN_GENERATION_BAYESIAN",
    "COLUMN_GENERATION_MINIMAX",
    "FULL_LP",
    "FULL_LP_MIRROR",
    "SOURCE",
    "SizeModel",
]

#: Where the models' coefficients come from (quoted in refusals).
SOURCE = "the table of `python -m benchmarks.grs_scaling` (benchmarks/results/grs_scaling.json)"


@dataclass(frozen=True)
class SizeModel:
    """Predicted memory and time of one way of solving a user LP (module docstring).

    Attributes
    ----------
    method : str
        How the LP is solved, for messages.
    option : str
        The ``method=`` of the entry points that solves it this way.
    fraction : float
        Units per entry of the ``N × m`` mechanism (1, or 1/2 over the mirror orbits).
    bytes_per_unit : float
        Memory per unit.
    seconds_per_unit : float
        Time coefficient.
    exponent : float
        Time grows as ``units^exponent`` (the fitted growth in ``n`` is twice this when
        ``m = N``).
    fixed_bytes, bulk_bytes_per_unit : float
        The second line (``inf``: none).
    """

    method: str
    option: str
    fraction: float
    bytes_per_unit: float
    seconds_per_unit: float
    exponent: float
    fixed_bytes: float = math.inf
    bulk_bytes_per_unit: float = 0.0

    def units(self, num_inputs: int, num_outputs: int) -> int:
        """The size of the problem solved."""
        return math.ceil(num_inputs * num_outputs * self.fraction)

    def memory_gb(self, num_inputs: int, num_outputs: int) -> float:
        """Predicted memory added by the solve, GB."""
        units = self.units(num_inputs, num_outputs)
        bulk = self.fixed_bytes + units * self.bulk_bytes_per_unit
        return min(units * self.bytes_per_unit, bulk) / 1e9

    def seconds(self, num_inputs: int, num_outputs: int) -> float:
        """Predicted wall time on the benchmark's machine."""
        return self.seconds_per_unit * self.units(num_inputs, num_outputs) ** self.exponent

    def bytes_per_variable(self, num_inputs: int, num_outputs: int) -> float:
        """Predicted memory per entry of the ``N × m`` mechanism (the unit of the size checks)."""
        return self.memory_gb(num_inputs, num_outputs) * 1e9 / max(num_inputs * num_outputs, 1)

    def note(self, num_inputs: int, num_outputs: int) -> str:
        """``"<method>: about <t> s here; estimates by the model fitted to <SOURCE>. "``."""
        seconds = self.seconds(num_inputs, num_outputs)
        shown = f"{seconds:.2g}" if seconds < 100 else f"{seconds:.0f}"
        return (
            f"{self.method[:1].upper()}{self.method[1:]}: about {shown} s on 2 cores; estimates "
            f"by the model fitted to {SOURCE}. "
        )


#: The whole LP through cvxpy (Clarabel above n = 50).
FULL_LP = SizeModel("the full LP", "full", 1.0, 2_300.0, 3.8e-6, 1.26)
#: The full LP over the mirror orbits (a mirror-symmetric Bayesian instance).
FULL_LP_MIRROR = SizeModel("the full LP over the mirror orbits", "full", 0.5, 2_800.0, 2.8e-6, 1.25)
#: Column generation for a Bayesian user: 150 bytes per entry, or 0.35 GB and 48 bytes per
#: entry where that is less (the measured line through n = 3000 and 4000, 0.36 GB and 42.5
#: bytes, raised; n = 4000 measured 1.04 GB, estimated 1.12).
COLUMN_GENERATION_BAYESIAN = SizeModel(
    "column generation", "column-generation", 1.0, 150.0, 3.3e-7, 1.01, 0.35e9, 48.0
)
#: Column generation for a minimax user (more rounds): 300 bytes per entry, or 47 MB and 157
#: bytes per entry where that is less (the line through n = 1600 and 2000, raised 10%).
COLUMN_GENERATION_MINIMAX = SizeModel(
    "column generation (minimax)", "column-generation", 1.0, 300.0, 5.5e-4, 0.70, 47e6, 157.0
)
