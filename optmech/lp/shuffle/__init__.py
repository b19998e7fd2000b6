"""The shuffle model: the local randomizer designed for a central (ε, δ) target after shuffling.

* `shuffle_mechanism` — the randomizer of least loss whose n shuffled reports are certified
  central (ε, δ)-DP by `optmech.shuffle_epsilon`, searched over the (ε₀, p) frontier of the
  local LP with blanket rows and along variation lines capping the total variation
  (`frontier`), with GRR and RR-on-Bins calibrated to the same
  target as baselines.

The package: `frontier` (the blanket rows, the witness of a bound, the bisections), `result`,
`api`. The LP is `optmech.lp.matrix`'s envelope LP over the complete graph.
"""

from optmech.lp.shuffle.api import shuffle_mechanism
from optmech.lp.shuffle.result import (
    FrontierPoint,
    ShuffleBaseline,
    ShuffleMechanism,
    VariationPoint,
)

__all__ = [
    "FrontierPoint",
    "ShuffleBaseline",
    "ShuffleMechanism",
    "VariationPoint",
    "shuffle_mechanism",
]
