"""``optmech staircase``: the optimal staircase noise for one ε and its gain over Laplace.

The staircase is the optimal ε-DP noise (Geng & Viswanath 2016) for a symmetric cost
non-decreasing in |e|. Prints γ* (closed form for ``abs`` and ``squared``, a 1-D minimisation
of the exact cost otherwise; Geng & Viswanath 2016, Thms. 4 and 6), the staircase's exact
expected cost, the Laplace mechanism's cost ``E c(Lap(Δ/ε))`` and the ratio Laplace/staircase.

Example::

    $ optmech staircase --epsilon 10 --cost squared
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from optmech.cli._args import add_cost, add_epsilon, add_json, add_sensitivity, flagged
from optmech.cli._output import print_json, print_table

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``staircase`` options."""
    add_epsilon(
        parser,
        "[1e-6, 700] (the closed forms' series lose accuracy below and e^(−ε) underflows above)",
    )
    add_sensitivity(parser)
    add_cost(parser)
    add_json(parser)


def compute(epsilon: float, sensitivity: float, cost_spec: str) -> dict[str, Any]:
    """The numbers the command prints, as a dict (also used by the tests)."""
    from optmech.costs import parse_cost
    from optmech.mechanisms.laplace import Laplace
    from optmech.mechanisms.staircase import Staircase, heuristic_gamma

    cost = flagged("--cost", cost_spec, parse_cost)
    Staircase(epsilon=epsilon, sensitivity=sensitivity, gamma=0.5)  # --epsilon, --sensitivity

    def costs(cost: Any) -> tuple[Any, float, float]:
        best = Staircase.optimal(epsilon=epsilon, sensitivity=sensitivity, cost=cost)
        laplace = Laplace(epsilon=epsilon, sensitivity=sensitivity)
        return best, best.expected_cost(cost), laplace.expected_cost(cost)

    # The optimum and both costs are finite for every ε and Δ in range: what fails is the cost.
    best, staircase_cost, laplace_cost = flagged("--cost", cost_spec, lambda _: costs(cost))
    if not (math.isfinite(staircase_cost) and math.isfinite(laplace_cost)):
        raise ValueError(
            f"`--cost` {cost_spec!r}: the expected costs overflow float64 at --epsilon "
            f"{epsilon:g} and --sensitivity {sensitivity:g} (staircase {staircase_cost:g}, "
            f"Laplace {laplace_cost:g}); choose a smaller power or sensitivity."
        )
    return {
        "epsilon": best.epsilon,
        "sensitivity": best.sensitivity,
        "cost": cost.name,
        "gamma_star": best.gamma,
        "gamma_heuristic": float(heuristic_gamma(best.epsilon)),
        "staircase_cost": staircase_cost,
        "laplace_cost": laplace_cost,
        "ratio": laplace_cost / staircase_cost,
    }


def run(args: argparse.Namespace) -> int:
    """Compute and print; bad arguments raise ValueError/TypeError (exit status 2)."""
    result = compute(args.epsilon, args.sensitivity, args.cost)
    if args.json:
        print_json(result)
        return 0
    rows = [
        ("epsilon", result["epsilon"]),
        ("sensitivity", result["sensitivity"]),
        ("cost", result["cost"]),
        ("gamma*", result["gamma_star"]),
        ("gamma heuristic 1/(1+e^(eps/2))", result["gamma_heuristic"]),
        ("staircase cost", result["staircase_cost"]),
        ("Laplace cost", result["laplace_cost"]),
        ("ratio Laplace/staircase", result["ratio"]),
    ]
    print_table(("quantity", "value"), rows)
    return 0
