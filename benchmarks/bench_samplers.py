"""Timings of the ε-DP closed-form families: samplers, exact costs, optimal parameters.

Run ``python -m benchmarks.bench_samplers [--size N] [--repeat R]``. Reports medians over
``R`` runs:

* ``Staircase.rvs(N)`` against ``numpy.random.Generator.laplace(size=N)`` (target: within 3x);
* ``DiscreteStaircase.rvs(N)`` and ``Geometric.rvs(N)`` against ``Generator.geometric``;
* ``expected_cost`` and ``.optimal`` for named costs, in microseconds.

Timings are wall-clock on whatever machine runs this; on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._common import median_seconds
from optmech.costs import Absolute, Power, Squared, ZeroOne
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.mechanisms.geometric import Geometric
from optmech.mechanisms.laplace import Laplace
from optmech.mechanisms.staircase import Staircase


def bench_samplers(size: int, repeat: int) -> None:
    print(f"samplers, size={size:.0e}, median of {repeat} runs (seconds)")
    rng = np.random.default_rng(12345)
    for eps in (0.1, 1.0, 5.0, 20.0):
        stair = Staircase.optimal(epsilon=eps, cost="abs")
        t_stair = median_seconds(lambda s=stair: s.rvs(size, rng=rng), repeat)
        t_lap = median_seconds(lambda e=eps: rng.laplace(0.0, 1.0 / e, size=size), repeat)
        print(
            f"  eps={eps:<5g} Staircase.rvs {t_stair:.3f}  numpy laplace {t_lap:.3f}  "
            f"ratio {t_stair / t_lap:.2f}"
        )
    for eps, delta in ((1.0, 1), (1.0, 5), (0.1, 10)):
        disc = DiscreteStaircase.optimal(epsilon=eps, sensitivity=delta, cost="abs")
        geo = Geometric(epsilon=eps, sensitivity=delta)
        p = -np.expm1(-eps)
        t_disc = median_seconds(lambda d=disc: d.rvs(size, rng=rng), repeat)
        t_geo = median_seconds(lambda g=geo: g.rvs(size, rng=rng), repeat)
        t_np = median_seconds(lambda p=p: rng.geometric(p, size=size), repeat)
        print(
            f"  eps={eps:<5g} D={delta:<3d} DiscreteStaircase.rvs {t_disc:.3f}  "
            f"Geometric.rvs {t_geo:.3f}  numpy geometric {t_np:.3f}  "
            f"ratio {t_disc / t_np:.2f}"
        )


def bench_costs(repeat: int) -> None:
    print(f"exact costs and optimal parameters, median of {repeat} runs (microseconds)")
    costs = {
        "abs": Absolute(),
        "squared": Squared(),
        "power:3": Power(3),
        "power:1.5": Power(1.5),
        "zero-one:0.5": ZeroOne(0.5),
    }
    for name, cost in costs.items():
        stair = Staircase(epsilon=1.0, gamma=0.3)
        lap = Laplace(epsilon=1.0)
        disc = DiscreteStaircase(epsilon=1.0, sensitivity=5, r=2)
        t_cost = median_seconds(lambda c=cost, s=stair: s.expected_cost(c), repeat)
        t_lap = median_seconds(lambda c=cost, g=lap: g.expected_cost(c), repeat)
        t_disc = median_seconds(lambda c=cost, d=disc: d.expected_cost(c), repeat)
        t_opt = median_seconds(lambda c=cost: Staircase.optimal(epsilon=1.0, cost=c), repeat)
        t_dopt = median_seconds(
            lambda c=cost: DiscreteStaircase.optimal(epsilon=1.0, sensitivity=5, cost=c), repeat
        )
        print(
            f"  {name:<13} Staircase.expected_cost {t_cost * 1e6:9.1f}  "
            f"Laplace {t_lap * 1e6:8.1f}  DiscreteStaircase {t_disc * 1e6:8.1f}  "
            f"Staircase.optimal {t_opt * 1e6:10.1f}  DiscreteStaircase.optimal(D=5) "
            f"{t_dopt * 1e6:9.1f}"
        )
    big = 10**5
    t_big = median_seconds(
        lambda: DiscreteStaircase.optimal(epsilon=1.0, sensitivity=big, cost="abs"), repeat
    )
    print(f"  DiscreteStaircase.optimal(D={big:.0e}, abs) {t_big * 1e6:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10**7)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bench_samplers(args.size, args.repeat)
    bench_costs(args.repeat)


if __name__ == "__main__":
    main()
