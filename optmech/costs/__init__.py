"""Costs (losses) of the error $e = released − true$.

A cost is a vectorised function $c(e) ≥ 0$ that knows

* whether it is **symmetric**, $c(e) = c(−e)$, and **non-decreasing in |e|** — the hypotheses
  of the staircase theorem (Geng & Viswanath 2016, Thm. 3) and of GRS universal optimality
  (Ghosh, Roughgarden & Sundararajan 2012, where a loss must be non-decreasing in $|i − r|$);
* its exact integral over an interval, `Cost.integral`, when an antiderivative
  exists in closed form, and a Gauss–Legendre / adaptive quadrature otherwise. The LP designers need
  cell-averaged costs $(1/h) ∫_{cell} c$ (the exact discretisation of the theory pages), which make
  the LP value an exact upper bound for the continuous problem;
* geometric sums over periods, `Cost.periodic_integral` and
  `Cost.periodic_sum`, $Σ_{k≥0} ρ^k ∫_{a+kT}^{b+kT} c$ and ``Σ_{k≥0} ρ^k c(x
  + kT)``: the exact cost of a staircase tail or of the geometric tail that closes an LP's finite
  grid.

Examples
--------
>>> from optmech.costs import Absolute, Squared
>>> float(Absolute().integral(-1.0, 2.0))
2.5
>>> float(Squared().cell_average(0.0, 1.0))
0.3333333333333333
"""

from optmech.costs.base import Cost
from optmech.costs.builtin import Absolute, Asymmetric, Power, Squared, ZeroOne
from optmech.costs.custom import Custom
from optmech.costs.norm import Norm
from optmech.costs.parse import as_cost, parse_cost
from optmech.costs.vector import VectorCustom

__all__ = [
    "Absolute",
    "Asymmetric",
    "Cost",
    "Custom",
    "Norm",
    "Power",
    "Squared",
    "VectorCustom",
    "ZeroOne",
    "as_cost",
    "parse_cost",
]
