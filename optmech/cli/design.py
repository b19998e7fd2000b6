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
    $ optmech design --dimension 2 --sensitivity-norm l2 --privacy eps=1 --cost l1 --plot d.png
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

__all__ = ["compute", "compute_2d", "register", "run"]


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
        help="eps=E (pure), delta=D ((0, δ)) or eps=E,delta=D",
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
    parser.add_argument(
        "--dimension",
        type=int,
        default=1,
        choices=(1, 2),
        help="1 (default) or 2: noise in the plane for a sensitivity measured in a norm "
        "(--cost then names a norm of the error: l1, l2 or linf; abs means l1)",
    )
    parser.add_argument(
        "--sensitivity-norm",
        default=None,
        choices=("l1", "l2", "linf"),
        help="with --dimension 2: the norm of the sensitivity ball (required there)",
    )
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
    label, ref, baselines = _reference(privacy, sensitivity, cost, integer)
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
    if out["reference_value"] is not None:
        out["relative_gap"] = (noise.value - out["reference_value"]) / out["reference_value"]
    for name, base in baselines:
        out[f"{name} cost"] = base.expected_cost(cost)
    return out, noise, ref, baselines


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


def compute_2d(
    privacy_spec: str,
    *,
    sensitivity: float = 1.0,
    cost_spec: str = "l1",
    sensitivity_norm: str | None = None,
    resolution: int | None = None,
    periods: int | None = None,
    solver: str | None = None,
) -> tuple[dict[str, Any], Any]:
    """Design 2-D noise and compare it with the d-dimensional staircase of the ball's norm
    (Kulesza, Suresh & Wang 2025) and two 1-D staircases at ε/2; (printed numbers, noise)."""
    from optmech.costs.norm import Norm
    from optmech.mechanisms.staircase import Staircase
    from optmech.mechanisms.staircase_nd import StaircaseND

    privacy = parse_privacy(privacy_spec)
    cost = "l1" if cost_spec == "abs" else cost_spec
    options = {"resolution": resolution} if resolution is not None else {}
    noise = design_noise(
        privacy,
        sensitivity=sensitivity,
        cost=cost,
        dimension=2,
        sensitivity_norm=sensitivity_norm,
        periods=periods,
        solver=solver,
        **options,
    )
    spec, prov = noise.spec, noise.provenance
    norm_cost = spec.cost if isinstance(spec.cost, Norm) else None
    out: dict[str, Any] = {
        "privacy": str(privacy),
        "dimension": 2,
        "sensitivity": spec.sensitivity,
        "sensitivity_norm": spec.sensitivity_norm,
        "cost": repr(spec.cost),
        "resolution": spec.resolution,
        "periods": spec.periods,
        "lp_value": noise.value,
        "lower_bound": noise.lower_bound,
        "grid_staircase_value": noise.record.staircase_value,
        "certified_epsilon": noise.certified_epsilon,
        "solver": prov.solver,
        "status": prov.status,
        "solve_time": prov.solve_time,
        "build_time": prov.build_time,
        "num_variables": prov.num_variables,
        "num_constraints": prov.num_constraints,
    }
    if norm_cost is not None:
        best = StaircaseND.optimal(
            spec.epsilon, sensitivity=spec.sensitivity, cost=norm_cost, norm=spec.sensitivity_norm
        )
        out["staircase_nd_value"] = best.expected_cost(norm_cost)
        out["relative_gap"] = noise.value / out["staircase_nd_value"] - 1.0
    if norm_cost == Norm(1):
        half = Staircase.optimal(epsilon=spec.epsilon / 2, sensitivity=spec.sensitivity, cost="abs")
        out["two_staircases_half_eps_value"] = 2.0 * half.expected_cost("abs")
    return out, noise


def _run_2d(args: argparse.Namespace) -> int:
    """``--dimension 2``: design, print, plot the heat map."""
    if args.integer or args.symmetric or args.monotone or args.grid != "auto":
        raise ValueError(
            "--integer, --symmetric, --monotone and --grid are for --dimension 1; got one of "
            "them with --dimension 2."
        )
    if args.sensitivity_norm is None:
        raise ValueError("--sensitivity-norm (l1, l2 or linf) is required with --dimension 2.")
    passed = {key: getattr(args, key) for key in ("sensitivity", "resolution", "periods", "solver")}
    result, noise = compute_2d(
        args.privacy, cost_spec=args.cost, sensitivity_norm=args.sensitivity_norm, **passed
    )
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = noise.plot()
        ax.set_title(f"{result['privacy']}, {result['sensitivity_norm']} ball", fontsize=9)
        ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight")
        plt.close(ax.figure)
        result["plot"] = args.plot
    return _print(result, args.json)


def _print(result: dict[str, Any], as_json: bool) -> int:
    """The numbers as JSON or as a two-column table (yes/no for flags)."""
    if as_json:
        print_json(result)
        return 0
    rows = [(k, ("yes" if v else "no") if isinstance(v, bool) else v) for k, v in result.items()]
    print_table(("quantity", "value"), rows)
    return 0


def run(args: argparse.Namespace) -> int:
    """Design, print, plot; bad arguments raise ValueError/TypeError (exit status 2)."""
    if args.dimension == 2:
        return _run_2d(args)
    if args.sensitivity_norm is not None:
        raise ValueError("--sensitivity-norm needs --dimension 2.")
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
    return _print(result, args.json)
