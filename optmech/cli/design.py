"""``optmech design``: design optimal additive noise by LP and compare it with the closed forms.

Prints the LP value (the exact expected cost of the designed, certified noise) and the
certified lower bound of the LP's optimum, the closed-form optimum where a theorem gives one —
the staircase for ε-DP (Geng & Viswanath 2016), the discrete staircase on ℤ, the uniform+atom
for (0, δ) *within symmetric non-increasing noise* (Geng, Ding, Guo & Kumar 2019) — or the
truncated Laplace and Gaussian baselines for (ε, δ), the certified privacy and the solver's
statistics. ``--plot out.png`` draws the designed density next to the reference.

Example::

    $ optmech design --privacy eps=1 --sensitivity 1 --cost abs --resolution 40 --periods 4
    $ optmech design --privacy delta=0.3 --cost squared --symmetric --monotone
    $ optmech design --privacy eps=1,delta=1e-6 --cost abs --json
    $ optmech design --privacy eps=20 --cost abs          # a graded grid: within 0.1% of V*
    $ optmech design --privacy zcdp=0.5 --integer --cost abs   # against the discrete Gaussian
    $ optmech design --privacy gdp=1 --integer --cost squared  # against the rounded Gaussian
    $ optmech design --privacy rdp=2:0.5 --integer
    $ optmech design --privacy profile=0.5:1e-2,1:1e-3 --cost abs
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from optmech.cli._output import print_json, print_table
from optmech.costs import Cost, parse_cost
from optmech.lp.additive import design_noise
from optmech.lp.designed import DesignedNoise
from optmech.privacy import ApproxDP, PureDP, parse_privacy

__all__ = ["compute", "register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``design`` subcommand."""
    parser = sub.add_parser(
        "design",
        help="design optimal additive noise by LP (any cost), certify it, compare closed forms",
        description="Design additive noise for ε-DP, (0, δ) or (ε, δ) by linear programming over "
        "piecewise-constant densities (or pmfs on ℤ), certify its privacy independently and "
        "compare its cost with the closed-form optimum where a theorem gives one.",
    )
    parser.add_argument(
        "--privacy",
        required=True,
        metavar="SPEC",
        help="eps=E (pure), delta=D ((0, δ)), eps=E,delta=D, zcdp=RHO, gdp=MU, "
        "rdp=ALPHA:EPS[;ALPHA:EPS...] or profile=EPS:DELTA[,EPS:DELTA...]",
    )
    parser.add_argument(
        "--sensitivity",
        type=float,
        default=1.0,
        metavar="D",
        help="query sensitivity, > 0 (an integer with --integer; default 1)",
    )
    parser.add_argument(
        "--cost",
        default="abs",
        metavar="SPEC",
        help="abs (default), squared, power:P, zero-one:T, asym:OVER,UNDER[,P]",
    )
    parser.add_argument("--integer", action="store_true", help="noise on the integers")
    parser.add_argument(
        "--resolution",
        type=int,
        default=None,
        metavar="M",
        help="cells per sensitivity (default: about 20(1 + e^(ε/2)) for ε-DP, at most 400, "
        "then a graded grid; 20 for (ε, δ))",
    )
    parser.add_argument(
        "--periods",
        type=int,
        default=None,
        metavar="K",
        help="sensitivity periods on each side of 0",
    )
    parser.add_argument(
        "--grid",
        default="auto",
        choices=("auto", "uniform", "graded"),
        help="how a period is cut: graded (a geometric ladder near the staircase's step, for "
        "large ε), uniform, or auto (graded for ε-DP when no --resolution is given and a "
        "uniform grid cannot resolve the top step; default)",
    )
    parser.add_argument("--symmetric", action="store_true", help="restrict to symmetric noise")
    parser.add_argument(
        "--monotone", action="store_true", help="restrict to noise non-increasing in |x|"
    )
    parser.add_argument("--solver", default=None, metavar="S", help="cvxpy solver name")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--plot",
        default=None,
        metavar="OUT.png",
        help="draw the designed density next to the reference (matplotlib)",
    )
    parser.set_defaults(run=run)


def _reference(
    privacy: PureDP | ApproxDP, sensitivity: float, cost: Cost, integer: bool
) -> tuple[str, Any, list[tuple[str, Any]]]:
    """(description, optimal reference noise or None, [(baseline name, noise)])."""
    theorem_cost = cost.is_symmetric_nondecreasing
    if isinstance(privacy, PureDP):
        if not theorem_cost:
            return "none (cost outside the staircase theorem)", None, []
        if integer:
            from optmech.mechanisms.discrete_staircase import DiscreteStaircase

            ref = DiscreteStaircase.optimal(
                epsilon=privacy.epsilon, sensitivity=int(sensitivity), cost=cost
            )
            return "discrete staircase optimum (Geng & Viswanath 2016)", ref, []
        from optmech.mechanisms.staircase import Staircase

        ref = Staircase.optimal(epsilon=privacy.epsilon, sensitivity=sensitivity, cost=cost)
        return "staircase optimum (Geng & Viswanath 2016)", ref, []
    baselines: list[tuple[str, Any]] = []
    if privacy.epsilon > 0:
        from optmech.mechanisms.gaussian import Gaussian
        from optmech.mechanisms.truncated_laplace import TruncatedLaplace

        baselines.append(
            (
                "truncated Laplace",
                TruncatedLaplace(
                    epsilon=privacy.epsilon, delta=privacy.delta, sensitivity=sensitivity
                ),
            )
        )
        baselines.append(
            (
                "Gaussian (analytic)",
                Gaussian(
                    epsilon=privacy.epsilon,
                    delta=privacy.delta,
                    sensitivity=sensitivity,
                    calibration="analytic",
                ),
            )
        )
        return "none ((ε, δ): baselines only)", None, baselines
    if theorem_cost and not integer:
        from optmech.mechanisms.uniform_atom import UniformAtom

        ref = UniformAtom.optimal(delta=privacy.delta, sensitivity=sensitivity, cost=cost)
        return (
            "uniform+atom optimum within symmetric non-increasing noise "
            "(Geng, Ding, Guo & Kumar 2019)",
            ref,
            baselines,
        )
    return "none", None, baselines


def compute(
    privacy_spec: str,
    *,
    sensitivity: float = 1.0,
    cost_spec: str = "abs",
    integer: bool = False,
    resolution: int | None = None,
    periods: int | None = None,
    symmetric: bool = False,
    monotone: bool = False,
    solver: str | None = None,
    grid: str = "auto",
) -> tuple[dict[str, Any], DesignedNoise, Any, list[tuple[str, Any]]]:
    """Design and compare; returns (printed numbers, designed noise, reference, baselines)."""
    privacy = parse_privacy(privacy_spec)
    cost = parse_cost(cost_spec)
    noise = design_noise(
        privacy,
        sensitivity=int(sensitivity)
        if integer and float(sensitivity).is_integer()
        else sensitivity,
        cost=cost,
        integer=integer,
        resolution=resolution,
        periods=periods,
        symmetric=symmetric,
        monotone=monotone,
        solver=solver,
        grid=grid,
    )
    info = noise.info
    beyond = not isinstance(privacy, PureDP | ApproxDP)
    label, ref, baselines = (
        ("", None, []) if beyond else _reference(privacy, sensitivity, cost, integer)
    )
    out: dict[str, Any] = {
        "privacy": str(privacy),
        "sensitivity": info.sensitivity,
        "cost": cost.name,
        "integer": integer,
        "grid": info.grid,
        "resolution": info.resolution,
        "periods": info.periods,
        "symmetric": symmetric,
        "monotone": monotone,
        "lp_value": noise.value,
        "lower_bound": noise.lower_bound,
        "reference": label,
        "reference_value": None if ref is None else ref.expected_cost(cost),
        "certified_epsilon": noise.certified_epsilon,
        "certified_delta": noise.certified_delta,
        "atom": float(getattr(noise, "atom", 0.0)),
        "solver": info.solver,
        "status": info.status,
        "solve_time": info.solve_time,
        "compile_time": info.compile_time,
        "build_time": info.build_time,
        "num_variables": info.num_variables,
        "num_constraints": info.num_constraints,
        "max_violation": info.max_violation,
        "repair": str(info.repair),
        "repair_cost": info.repair_cost,
        "window": info.window,
    }
    if beyond:
        out.update(_beyond_summary(privacy, noise, float(sensitivity), cost, integer))
    if out["reference_value"] is not None:
        out["relative_gap"] = (noise.value - out["reference_value"]) / out["reference_value"]
    for name, base in baselines:
        out[f"{name} cost"] = base.expected_cost(cost)
    return out, noise, ref, baselines


def _beyond_summary(
    privacy: Any, noise: DesignedNoise, sensitivity: float, cost: Cost, integer: bool
) -> dict[str, Any]:
    """The Gaussian reference that meets the same guarantee, its cost, and what is certified
    (:mod:`optmech.mechanisms.gaussian_references`)."""
    from optmech.lp.additive.spec import gaussian_scale
    from optmech.mechanisms.gaussian_references import gaussian_cost, lattice_gaussian_cost
    from optmech.privacy import GaussianDP

    out: dict[str, Any] = {"reference": "none (no closed-form reference)", "reference_value": None}
    scale = gaussian_scale(privacy)
    if scale is not None:
        sigma = scale * sensitivity
        if not integer:
            name, value = "Gaussian", gaussian_cost(sigma, cost)
        elif isinstance(privacy, GaussianDP):
            name, value = "rounded Gaussian", lattice_gaussian_cost(sigma, cost, rounded=True)
        else:
            name, value = "discrete Gaussian", lattice_gaussian_cost(sigma, cost)
        out["reference"] = f"{name} σ = {sigma:.6g} (Bun & Steinke 2016; Dong, Roth & Su 2022)"
        out["reference_value"] = value
    out.update(noise.record.beyond.to_dict() if noise.record.beyond is not None else {})
    out["rounds"] = len(noise.provenance.rounds)
    out["source"] = noise.record.source
    return out


def _plot(
    path: str,
    noise: DesignedNoise,
    ref: Any,
    baselines: list[tuple[str, Any]],
    result: dict[str, Any],
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    delta = float(result["sensitivity"])
    span = min(float(result["periods"]), 4.0) * delta
    fig, ax = plt.subplots(figsize=(8, 4.5))
    if noise.discrete:
        k = np.arange(-math.floor(span), math.floor(span) + 1, dtype=float)
        ax.stem(k, noise.pmf(k), linefmt="C0-", markerfmt="C0o", basefmt=" ", label="designed (LP)")
        if ref is not None:
            ax.plot(k, ref.pmf(k), "C1x", label=result["reference"])
        ax.set_ylabel("pmf")
    else:
        x = np.linspace(-span, span, 4001)
        ax.plot(x, noise.pdf(x), "C0-", lw=1.5, label="designed (LP)")
        others = ([(result["reference"], ref)] if ref is not None else []) + baselines
        for i, (name, other) in enumerate(others, start=1):
            ax.plot(x, other.pdf(x), f"C{i}--", lw=1.0, label=name)
        atom = float(getattr(noise, "atom", 0.0))
        if atom > 0:
            ax.annotate(f"atom {atom:.3g}", (0.0, float(np.max(noise.pdf(x)))), ha="center")
        ax.set_ylabel("density")
    ax.set_xlabel("noise x")
    ax.set_title(f"{result['privacy']}, cost {result['cost']}, LP value {result['lp_value']:.6g}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    """Design, print, plot; bad arguments raise ValueError/TypeError (exit status 2)."""
    result, noise, ref, baselines = compute(
        args.privacy,
        sensitivity=args.sensitivity,
        cost_spec=args.cost,
        integer=args.integer,
        resolution=args.resolution,
        periods=args.periods,
        symmetric=args.symmetric,
        monotone=args.monotone,
        solver=args.solver,
        grid=args.grid,
    )
    if args.plot:
        _plot(args.plot, noise, ref, baselines, result)
        result["plot"] = args.plot
    if args.json:
        print_json(result)
        return 0
    rows = [(k, ("yes" if v else "no") if isinstance(v, bool) else v) for k, v in result.items()]
    print_table(("quantity", "value"), rows)
    return 0
