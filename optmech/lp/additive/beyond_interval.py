"""The certified interval ``[lower_bound, value]`` of a noise designed beyond (ε, δ).

``value`` is the exact expected cost of the returned noise, rounded up; ``lower_bound`` is the
Lagrangian bound of `lp_interval` on the LP at the
*requested* guarantee (the cuts' right-hand sides undone), or for the cones the tangent-plane
bound of `cone_bound`
(`optmech.lp.additive.beyond` derives both).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import scipy.sparse as sp

from optmech.lp.additive.beyond_cuts import _Round
from optmech.lp.additive.cone_bound import cone_bound
from optmech.lp.additive.designer import grid_point
from optmech.lp.additive.divergences import pure_block
from optmech.lp.additive.lp import AdditiveLP
from optmech.lp.additive.pairs import pair_maps
from optmech.lp.additive.rows import RowRecord
from optmech.lp.engine.interval import lp_interval
from optmech.privacy import PrivacyProfile

__all__: list[str] = []


def _interval(
    spec: Any, rnd: _Round, kwargs: dict[str, Any], accuracy: float
) -> tuple[float, float]:
    """``(lower_bound, value)`` of the returned noise (module docstring)."""
    lp = rnd.lp
    point = grid_point(lp, kwargs)[0]
    if lp.cones is not None:
        value = lp_interval(lp, point, accuracy=math.inf)[1]
        return cone_bound(lp, spec, value=value, accuracy=accuracy), value
    requested = dataclasses.replace(lp, rows=_requested_rows(spec, lp, rnd.cuts.margin))
    return lp_interval(requested, point, accuracy=accuracy)


def _requested_rows(spec: Any, lp: AdditiveLP, margin: float) -> RowRecord:
    """The LP's rows at the *requested* guarantee, for the lower bound: the sum rows read
    (terms)/(target δ) ≤ 1, at the requested δ = target/(1 − margin); a profile's pure rows
    (points with δ = 0) were written at ``ε − slack``, and are rewritten at ε. Each is a
    relaxation of the rows solved, so the solver's multipliers give a valid bound of it."""
    undo = 1.0 / (1.0 - margin)
    exact_pure = None
    if isinstance(spec.privacy, PrivacyProfile) and spec.tail_epsilon is not None:
        grid = lp.grid
        pairs = pair_maps(grid.n, grid.period, spec.tail_ratio, lp.expand, reduced=spec.reduced)
        exact_pure = pure_block(pairs, spec.tail_epsilon).a
    blocks = []
    for b in lp.rows:
        if b.name == "hockey-sum":
            b = dataclasses.replace(b, b=b.b * undo)
        elif b.name == "pure" and exact_pure is not None:
            pad = sp.csr_matrix((exact_pure.shape[0], b.a.shape[1] - exact_pure.shape[1]))
            b = dataclasses.replace(b, a=sp.hstack([exact_pure, pad], format="csr"))
        blocks.append(b)
    return RowRecord(tuple(blocks))
