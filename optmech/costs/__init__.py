"""Costs (losses) of the error ``e = released − true``.

A cost is a vectorised function ``c(e) ≥ 0`` that knows

* whether it is **symmetric**, ``c(e) = c(−e)``, and **non-decreasing in |e|** — the hypotheses
  of the staircase theorem (Geng & Viswanath, seed 000, Thm. 4) and of GRS universal optimality
  (seed 003, where a loss must be non-decreasing in ``|i − r|``);
* its exact integral over an interval, :meth:`Cost.integral`, when an antiderivative exists in
  closed form, and a Gauss–Legendre / adaptive quadrature otherwise. The LP designers need
  cell-averaged costs ``(1/h) ∫_cell c`` (THEORY.md §4), which make the LP value an exact upper
  bound for the continuous problem;
* geometric sums over periods, :meth:`Cost.periodic_integral` and :meth:`Cost.periodic_sum`,
  ``Σ_{k≥0} ρ^k ∫_{a+kT}^{b+kT} c`` and ``Σ_{k≥0} ρ^k c(x + kT)``: the exact cost of a staircase
  tail or of the geometric tail that closes an LP's finite grid.

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
