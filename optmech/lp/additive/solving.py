"""Deprecated: the width test of a design's certified interval (now the engine's,
`optmech.lp.engine.interval.relatively_wide`); solves run through the engine's `solve_built`.

A design's certified interval is tightened by the other solver's multipliers in
`optmech.lp.engine.certified.certified_solve` (its cross-check): at large ε HiGHS's simplex
multipliers can collapse the Lagrangian bound to 0 although the point is optimal to 4 digits.
Measured (``design_noise(PureDP(30), sensitivity=1, cost=Squared())``): HiGHS alone certifies
``[0, 1.000362 V*]``; with the cross-check ``[0.996865 V*, 1.000362 V*]``.
"""

from __future__ import annotations

from optmech._deprecation import warn_deprecated
from optmech.lp.additive.designed import DesignedNoise
from optmech.lp.engine import interval
from optmech.lp.engine.run import DesignRun

__all__ = ["DesignRun", "relatively_wide"]


def relatively_wide(noise: DesignedNoise) -> bool:
    """Deprecated: the engine's `relatively_wide` of the noise's
    ``(value, lower_bound, accuracy)``, the one width test of every LP result."""
    warn_deprecated(
        "`optmech.lp.additive.solving.relatively_wide(noise)`",
        "`optmech.lp.engine.interval.relatively_wide(value, lower_bound, accuracy)`",
    )
    prov = noise.provenance
    return interval.relatively_wide(prov.value, prov.lower_bound, prov.accuracy)
