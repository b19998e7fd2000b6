"""Benchmark of the additive-noise LP designer (optmech.design_noise).

Measures, on ε-DP noise for |e| with Δ = 1, ε = 1 unless said otherwise:

1. ``solvers``  — HiGHS vs CLARABEL by resolution m (20 periods each side): build, cvxpy
   compile, solver and certification times, value gap to the staircase optimum, repair.
2. ``windows``  — the three window forms (all pairs, sparse table, blocks) at one size.
3. ``full``     — the unrestricted LP (an asymmetric cost, so no mirror reduction) by m.
4. ``approx``   — (ε, δ) and (0, δ) designs.
5. ``memory``   — peak RSS growth against the estimate used to refuse large problems.
6. ``graded``   — large ε: the default grid (uniform, capped at 400 cells per Δ, up to
   ε = 2 ln 19 ≈ 5.9; graded above) against the other kind, |e| and e²: value / V* (V* the
   staircase optimum, Geng & Viswanath 2016), the certified interval's width, cells, seconds.

The headline sizes (m up to 1000, 20 periods) with phases and the ratio pipeline / direct
solver are measured by the benchmark package: ``python -m benchmarks --only additive``.

Timings are wall-clock seconds on a shared 2-core machine: noisy, compare within one run.
Run: ``python benchmarks/bench_additive.py [--quick] [--only NAME ...]``.
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
import warnings
from collections.abc import Callable

import optmech
from optmech.lp.additive import (
    AdditiveSpec,
    build_additive_lp,
    estimate_additive_size,
    finish_design,
)
from optmech.lp.design import design_noise
from optmech.lp.solve import solve

WINDOWS = ("pairs", "sparse-table", "blocks")
V_STAR_ABS_EPS1 = math.exp(0.5) / (math.e - 1.0)  # staircase optimum, Geng & Viswanath 2016


def _row(*cells: object) -> None:
    print(
        "  ".join(f"{c:>11.4g}" if isinstance(c, float) else f"{c!s:>11}" for c in cells),
        flush=True,
    )


def design(
    m: int,
    k: int,
    solver: str,
    *,
    cost: object = "abs",
    window: str = "auto",
    privacy: object = None,
    **kw: object,
) -> tuple[object, object, float, float]:
    privacy = privacy or optmech.PureDP(1.0)
    t0 = time.perf_counter()
    spec = AdditiveSpec(
        privacy, sensitivity=1.0, cost=cost, resolution=m, periods=k, window=window, **kw
    )
    lp = build_additive_lp(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = solve(lp.problem, solver=solver, kind="additive")
    t1 = time.perf_counter()
    noise = finish_design(lp, result)
    t2 = time.perf_counter()
    return lp, noise, t1 - t0, t2 - t1


def _by_solver(
    cases: list[tuple[object, dict[str, object]]],
    cells: Callable[[object, object, float], tuple[object, ...]],
) -> None:
    """One row per case and solver: the case's label, the solver, then ``cells(lp, noise,
    certify seconds)``; a failure is reported and the sweep goes on."""
    for label, kwargs in cases:
        for solver in ("HIGHS", "CLARABEL"):
            try:
                lp, noise, _, t_cert = design(solver=solver, **kwargs)  # type: ignore[arg-type]
            except Exception as exc:  # report and go on
                _row(label, solver, "FAIL", type(exc).__name__)
                continue
            _row(label, solver, *cells(lp, noise, t_cert))


def bench_solvers(ms: list[int], k: int) -> None:
    print(f"\n[solvers] eps=1, |e|, periods={k} (mirror-reduced: |e| is symmetric)")
    _row(
        "m", "solver", "vars", "build", "compile", "solve", "certify", "gap", "repair", "repair_rel"
    )
    _by_solver(
        [(m, {"m": m, "k": k}) for m in ms],
        lambda lp, noise, t_cert: (
            noise.record.num_variables,
            lp.build_time,
            noise.record.compile_time,
            noise.record.solve_time,
            t_cert,
            noise.value / V_STAR_ABS_EPS1 - 1,
            noise.record.repair.kind,
            noise.record.repair_cost / noise.record.value,
        ),
    )


def bench_windows(m: int, k: int) -> None:
    print(f"\n[windows] eps=1, asymmetric cost asym:3,1 (full LP), m={m}, periods={k}")
    _row("window", "solver", "vars", "rows", "build", "compile", "solve", "value")
    _by_solver(
        [(w, {"m": m, "k": k, "cost": "asym:3,1", "window": w}) for w in WINDOWS],
        lambda lp, noise, _: (
            noise.record.num_variables,
            lp.a_ub.shape[0],
            lp.build_time,
            noise.record.compile_time,
            noise.record.solve_time,
            noise.value,
        ),
    )


def bench_full(ms: list[int], k: int) -> None:
    print(f"\n[full] unrestricted LP (asymmetric cost asym:3,1, no reduction), periods={k}")
    _row("m", "solver", "vars", "compile", "solve", "value", "cert_eps")
    _by_solver(
        [(m, {"m": m, "k": k, "cost": "asym:3,1"}) for m in ms],
        lambda _, noise, __: (
            noise.record.num_variables,
            noise.record.compile_time,
            noise.record.solve_time,
            noise.value,
            noise.certified_epsilon,
        ),
    )


def bench_approx() -> None:
    print("\n[approx] (eps, delta) and (0, delta) designs, |e|")
    _row("privacy", "m", "periods", "solver", "vars", "solve", "value", "cert_delta", "repair")
    cases = [
        (optmech.ApproxDP(1.0, 1e-6), 10),
        (optmech.ApproxDP(1.0, 1e-3), 20),
        (optmech.ApproxDP(0.0, 0.1), 20),
        (optmech.ApproxDP(0.0, 0.01), 10),
    ]
    for privacy, m in cases:
        for solver in ("HIGHS", "CLARABEL"):
            try:
                _, noise, _, _ = design(m, None, solver, privacy=privacy)  # type: ignore[arg-type]
            except Exception as exc:
                _row(str(privacy), m, "-", solver, "FAIL", type(exc).__name__)
                continue
            i = noise.record
            _row(
                str(privacy),
                m,
                i.periods,
                solver,
                i.num_variables,
                i.solve_time,
                noise.value,
                noise.certified_delta,
                i.repair.kind,
            )


_MEMORY_CHILD = """
import sys, warnings
warnings.simplefilter("ignore")
import optmech
from optmech.lp.design import design_noise


def peak_mb():  # VmHWM: this process's own peak (ru_maxrss would include the parent's size)
    with open("/proc/self/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("VmHWM:")) * 1024 / 1e6


m, k = int(sys.argv[1]), int(sys.argv[2])
base = peak_mb()
design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="asym:3,1", resolution=m, periods=k,
             solver="CLARABEL")
print(peak_mb() - base)
"""


def bench_memory(ms: list[int], k: int) -> None:
    print(
        f"\n[memory] peak RSS growth (fresh process each) vs the estimate used to refuse "
        f"large problems (CLARABEL, full LP asym:3,1, periods={k})"
    )
    _row("m", "est_MB", "rss_MB", "nonzeros")
    for m in ms:
        grid_n = 2 * k * m
        size = estimate_additive_size(
            optmech.PureDP(1.0),
            grid_n=grid_n,
            period=m,
            symmetric=False,
            monotone=False,
            window="blocks",
            atom=False,
        )
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY_CHILD, str(m), str(k)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        _row(m, size["bytes"] / 1e6, float(out.strip().splitlines()[-1]), size["nonzeros"])


def bench_graded(epsilons: list[float]) -> None:
    print("\n[graded] default grid vs the other kind (uniform capped at 400 cells / graded)")
    _row("eps", "cost", "grid", "cells", "value/V*-1", "interval", "cert_eps-eps", "seconds")
    for eps in epsilons:
        for cost in ("abs", "squared"):
            v_star = optmech.Staircase.optimal(epsilon=eps, cost=cost).expected_cost(cost)
            for grid in ("uniform", "graded"):
                t0 = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        noise = design_noise(
                            optmech.PureDP(eps), sensitivity=1.0, cost=cost, grid=grid
                        )
                except Exception as exc:  # report and go on
                    _row(eps, cost, grid, "FAIL", type(exc).__name__)
                    continue
                _row(
                    eps,
                    cost,
                    grid,
                    noise.record.cells_per_period,
                    noise.value / v_star - 1.0,
                    (noise.value - noise.lower_bound) / noise.value,
                    noise.certified_epsilon - eps,
                    time.perf_counter() - t0,
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument(
        "--only",
        nargs="*",
        default=None,
        choices=["solvers", "windows", "full", "approx", "memory", "graded"],
    )
    args = parser.parse_args(argv)
    quick = args.quick
    run = set(args.only or ["solvers", "windows", "full", "approx", "memory", "graded"])
    print(f"optmech {optmech.__version__}, python {sys.version.split()[0]}")
    if "solvers" in run:
        bench_solvers([10, 25, 50] if quick else [10, 25, 50, 100, 200, 400], 20)
    if "windows" in run:
        bench_windows(25 if quick else 50, 10)
    if "full" in run:
        bench_full([10, 25] if quick else [10, 25, 50, 100], 10 if quick else 20)
    if "approx" in run:
        bench_approx()
    if "memory" in run:
        bench_memory([25, 50] if quick else [25, 50, 100, 200, 400], 20)
    if "graded" in run:
        bench_graded([6.0, 10.0, 15.0] if quick else [4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
