"""Scaling of every designer: time and memory against the problem's size, the fitted growth,
and the largest instance expected to solve in 10 minutes and 8 GB.

Per designer, a ladder of sizes, each case once in a fresh interpreter
(``benchmarks._common.run_once``: the ladder is the repetition; a case over the time limit ends
its ladder). The size is what the LP grows with:

* ε-DP noise in 1-D (``design_noise(PureDP(1))``, |x|, 20 periods, uniform grid): cells;
* (ε, δ) noise in 1-D (``ApproxDP(1, 1e-6)``, |x|, the default periods): cells;
* ε-DP noise in 2-D (ℓ1 ball and cost, 4 periods): cells of the plane;
* the Bayesian user LP with a general prior (on ``{0..n}``, ε = 0.5, the default method,
  column generation): n; a set of random priors per size (`PRIOR_SEEDS`: Dirichlet(1) and
  Dirichlet(0.2), |e| and squared loss), the ladder's time being their median and the worst
  reported beside it (`WORST_OVER_MEDIAN`: a prior that takes ten times the median is a cliff);
* the local model (``local_mechanism``, uniform prior, |e|, ε = 1, n inputs and n outputs): n;
* Gaussian-DP noise (μ = 1, |x|, ``resolution`` m): cells.

Memory is the child's own ``VmHWM`` (peak) less its ``VmRSS`` after the imports (baseline):
what the solve added. The exponents are least-squares slopes of log(time) and log(memory)
against log(size) over the ladder's solved cases (for the user LP, each size's median prior, a
size with a prior over the time limit left out). The largest instance within 600 s and 8 GB
is extrapolated from the largest solved case along those slopes (``size · (600/t)^(1/b)`` and
the same for memory, the smaller of the two): an estimate, stated as such, for deciding when
to move to a larger machine or to the Dask sweep, not a measurement.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from benchmarks._common import run_once
from benchmarks.grs_scaling import _status_mb

MODULE = "benchmarks.scaling"
#: The question the extrapolation answers: what solves in this time and memory.
LIMIT_SECONDS = 600.0
LIMIT_MB = 8000.0

#: Designer → (size's name, quick ladder, full ladder) of the parameter each case takes.
LADDERS: dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]] = {
    "ε-DP noise, 1-D": ("cells", (25, 50, 100), (50, 100, 200, 400)),
    "(ε, δ) noise, 1-D": ("cells", (10, 20, 40), (20, 40, 80)),  # 160: 498 s, 1.7 GB
    "ε-DP noise, 2-D (ℓ1)": ("cells", (2, 4, 6), (4, 6, 8, 12)),
    "Bayesian user LP, Dirichlet prior": ("n", (100, 200, 400), (200, 400, 800, 1600)),
    "local mechanism": ("n", (25, 50, 100), (50, 100, 200, 400)),
    "Gaussian-DP noise, μ = 1": ("cells", (4, 6), (4, 6, 8, 12)),
}


#: Random priors per size of the Bayesian user LP: ``(seed, Dirichlet concentration, loss)``.
#: The first two are the priors that once took 1000 times the median at n = 999.
PRIOR_SEEDS: tuple[tuple[int, float, str], ...] = (
    (17005, 1.0, "squared"),
    (17006, 0.2, "squared"),
    (1, 1.0, "abs"),
    (2, 0.2, "abs"),
    (3, 1.0, "squared"),
    (4, 0.2, "squared"),
)
#: Priors per size in the quick ladder (the first ones of `PRIOR_SEEDS`).
QUICK_PRIORS = 3
#: The worst prior of a size may take at most this many times the median one.
WORST_OVER_MEDIAN = 10.0
#: The designers whose cases take a random prior (``seed``): their sizes are summarised.
SEEDED = ("Bayesian user LP, Dirichlet prior",)


#: Modules every designer loads on first use, imported before the baseline is read.
_IMPORTS = (
    "cvxpy",
    "networkx",
    "optmech.lp.design",
    "optmech.lp.additive.beyond",
    "optmech.lp.additive2d.design",
    "optmech.lp.user",
    "optmech.lp.local",
)


def _design(designer: str, parameter: int, seed: int | None = None) -> tuple[Any, int]:
    """The designer's result for ``parameter`` (and the prior ``seed``, an index into
    `PRIOR_SEEDS`, for the user LP) and the case's size."""
    import optmech

    if designer == "ε-DP noise, 1-D":
        noise = optmech.design_noise(
            optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=parameter, periods=20
        )
        return noise, len(noise.densities)
    if designer == "(ε, δ) noise, 1-D":
        noise = optmech.design_noise(
            optmech.ApproxDP(1.0, 1e-6), sensitivity=1.0, cost="abs", resolution=parameter
        )
        return noise, len(noise.densities)
    if designer == "ε-DP noise, 2-D (ℓ1)":
        plane = optmech.design_noise(
            optmech.PureDP(1.0),
            sensitivity=1.0,
            cost="l1",
            dimension=2,
            sensitivity_norm="l1",
            resolution=parameter,
            periods=4,
        )
        return plane, int(plane.densities.size)
    if designer == "Bayesian user LP, Dirichlet prior":
        draw, concentration, loss = PRIOR_SEEDS[seed or 0]
        prior = np.random.default_rng(draw).dirichlet(concentration * np.ones(parameter + 1))
        return optmech.bayesian_mechanism(prior, loss, 0.5, max_memory_gb=8.0), parameter
    if designer == "local mechanism":
        inputs = np.arange(float(parameter))
        local = optmech.local_mechanism(
            np.full(parameter, 1.0 / parameter), "abs", 1.0, inputs=inputs, max_memory_gb=8.0
        )
        return local, parameter
    if designer == "Gaussian-DP noise, μ = 1":
        noise = optmech.design_noise(
            optmech.GaussianDP(1.0), sensitivity=1.0, cost="abs", resolution=parameter
        )
        return noise, len(noise.densities)
    raise ValueError(f"unknown designer {designer!r}")


def scaling_case(designer: str, parameter: int, seed: int | None = None) -> dict[str, Any]:
    """One case of a ladder (child process): seconds, memory, size, status."""
    import importlib
    import warnings

    for module in _IMPORTS:  # the imports belong to the baseline, not to the solve
        importlib.import_module(module)
    baseline = _status_mb("VmRSS")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a wide interval is in the row
        result, size = _design(designer, parameter, seed)
    total = time.perf_counter() - start
    prov = result.provenance
    return {
        "total": total,
        "size": size,
        "solver": prov.solver,
        "status": prov.status,
        "value": prov.value,
        "interval": (prov.value - prov.lower_bound) / max(abs(prov.value), 1.0),
        "solve_mb": _status_mb("VmHWM") - baseline,
        "baseline_mb": baseline,
    }


def slope(sizes: list[float], values: list[float]) -> float | None:
    """Least-squares slope of log(value) against log(size) (None for fewer than 2 points).

    Examples
    --------
    >>> round(slope([10, 100, 1000], [2e-3, 2e-1, 2e1]), 12)
    2.0
    """
    if len(sizes) < 2:
        return None
    return float(np.polyfit(np.log(sizes), np.log(values), 1)[0])


def largest_within(size: float, value: float, exponent: float | None, limit: float) -> float:
    """The size at which ``value · (s/size)^exponent`` reaches ``limit`` (inf if it never
    grows).

    Examples
    --------
    >>> largest_within(100, 6.0, 2.0, 600.0)
    1000.0
    """
    if exponent is None or exponent <= 0.0 or value <= 0.0:
        return math.inf
    return float(size * (limit / value) ** (1.0 / exponent))


def spread(designer: str, unit: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The priors of one size: median and worst time, the worst's prior, their ratio and whether
    it is within `WORST_OVER_MEDIAN` (a case over the time limit counts as the limit).

    Examples
    --------
    >>> row = spread("d", "n", [{"size": 10, "total": t, "seed": i, "solve_mb": 1.0}
    ...                        for i, t in enumerate([1.0, 2.0, 30.0])])
    >>> row["median"], row["worst"], row["worst_seed"], row["within"]
    (2.0, 30.0, 2, False)
    """
    times = [
        float(c["total"]) if isinstance(c.get("total"), (int, float)) else LIMIT_SECONDS
        for c in cases
    ]
    worst = int(np.argmax(times))
    median = float(np.median(times))
    ratio = times[worst] / median if median > 0 else math.inf
    solved = [c for c in cases if isinstance(c.get("total"), (int, float))]
    return {
        "section": "scaling",
        "kind": "spread",
        "designer": designer,
        "unit": unit,
        "size": max((c["size"] for c in solved), default=None),
        "priors": len(cases),
        "median": median,
        "worst": times[worst],
        "worst_seed": cases[worst].get("seed"),
        "worst_over_median": ratio,
        "within": ratio <= WORST_OVER_MEDIAN,
        "total": median if len(solved) == len(cases) else None,  # the fits take whole sizes
        "solve_mb": float(np.median([c["solve_mb"] for c in solved])) if solved else None,
        "baseline_mb": solved[0].get("baseline_mb", 0.0) if solved else 0.0,
        "failed": len(cases) - len(solved),
    }


def one_solver(cases: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The solved cases a fit may take — those of the solver of the largest one — and a note
    saying so (a fit across a change of solver mixes two growth laws). Reports that did not
    record the solver are cut after the last size whose time fell (a change of solver is what
    makes a larger LP faster), and the note says that too.

    Examples
    --------
    >>> cases = [{"size": s, "total": t} for s, t in [(2e3, 0.4), (4e3, 1.6), (8e3, 1.1),
    ...                                                 (16e3, 3.0)]]
    >>> kept, note = one_solver(cases)
    >>> [c["size"] for c in kept], note
    ([8000.0, 16000.0], 'solver not recorded; fitted from 8000 on, where the time fell')
    """
    solved = [c for c in cases if isinstance(c.get("total"), (int, float))]
    if not solved:
        return [], "nothing solved"
    solver = solved[-1].get("solver")
    if solver is not None:
        kept = [c for c in solved if c.get("solver") == solver]
        others = sorted({str(c.get("solver")) for c in solved} - {solver})
        extra = f" (not {', '.join(others)}, which solved the smaller sizes)" if others else ""
        return kept, f"fitted over the sizes solved by {solver}{extra}"
    falls = [i for i in range(1, len(solved)) if solved[i]["total"] < solved[i - 1]["total"]]
    if not falls:
        return solved, "solver not recorded"
    start = falls[-1]
    return solved[start:], (
        f"solver not recorded; fitted from {solved[start]['size']:.0f} on, where the time fell"
    )


def _summary(designer: str, unit: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    solved, fitted_over = one_solver(cases)
    sizes = [float(c["size"]) for c in solved]
    time_b = slope(sizes, [c["total"] for c in solved])
    memory = [max(c["solve_mb"], 1.0) for c in solved]
    memory_b = slope(sizes, memory)
    out: dict[str, Any] = {
        "section": "scaling",
        "kind": "summary",
        "designer": designer,
        "unit": unit,
        "time_exponent": time_b,
        "memory_exponent": memory_b,
        "fitted_over": fitted_over,
        "largest_solved": max(sizes) if sizes else None,
    }
    if solved:
        last = solved[-1]
        by_time = largest_within(last["size"], last["total"], time_b, LIMIT_SECONDS)
        budget = LIMIT_MB - last.get("baseline_mb", 0.0)
        by_memory = largest_within(last["size"], memory[-1], memory_b, budget)
        out["largest_estimate"] = min(by_time, by_memory)
        out["limited_by"] = "time" if by_time <= by_memory else "memory"
    return out


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the scaling section: each case, then one summary per designer."""
    rows: list[dict[str, Any]] = []
    for designer, (unit, quick_ladder, full_ladder) in LADDERS.items():
        cases: list[dict[str, Any]] = []
        seeds: list[int | None] = [None]
        if designer in SEEDED:
            seeds = list(range(QUICK_PRIORS if quick else len(PRIOR_SEEDS)))
        for parameter in quick_ladder if quick else full_ladder:
            size_rows = []
            for seed in seeds:
                kwargs: dict[str, Any] = {"designer": designer, "parameter": parameter}
                if seed is not None:
                    kwargs["seed"] = seed
                out = run_once(MODULE, "scaling_case", timeout, **kwargs)
                row = {"section": "scaling", "kind": "case", "designer": designer, **out}
                if seed is not None:
                    row["seed"] = seed
                    row.setdefault("size", parameter)
                print(
                    f"[scaling] {designer}, parameter {parameter}"
                    + ("" if seed is None else f", prior {PRIOR_SEEDS[seed]}")
                    + f": {row['status']}, {unit} {row.get('size', '–')}, "
                    f"{row.get('total', float('nan')):.3g} s, solve memory "
                    f"{row.get('solve_mb', float('nan')):.0f} MB, load {row['load']:.2f}",
                    flush=True,
                )
                rows.append(row)
                size_rows.append(row)
            if seed is None:
                cases += size_rows
            else:
                one = spread(designer, unit, size_rows)
                rows.append(one)
                cases.append(one)
                print(
                    f"[scaling] {designer}, {unit} {parameter}: median {one['median']:.3g} s, "
                    f"worst {one['worst']:.3g} s (prior {one['worst_seed']}), "
                    f"{one['worst_over_median']:.2g}x the median",
                    flush=True,
                )
            if not all(isinstance(r.get("total"), (int, float)) for r in size_rows):
                break  # a time-out or failure ends the ladder
        summary = _summary(designer, unit, cases)
        rows.append(summary)
        print(
            f"[scaling] {designer}: time ∝ {unit}^{summary['time_exponent']}, memory ∝ "
            f"{unit}^{summary['memory_exponent']}, largest within 10 min and 8 GB about "
            f"{summary.get('largest_estimate')}",
            flush=True,
        )
    return rows
