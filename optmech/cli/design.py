"""``optmech design``: design additive noise by LP, certify it, compare closed forms.

Designs optimal additive noise for ε-DP, (0, δ) or (ε, δ) — or zCDP, GDP, RDP and privacy
profiles — by linear programming over piecewise-constant densities (or pmfs on ℤ) and certifies
its privacy independently. ε may be as large as 50: above about 6 the grid is graded to resolve
the staircase's top step.

Prints the LP value (the exact expected cost of the designed, certified noise) and the
certified lower bound of the LP's optimum, the closed-form optimum where a theorem gives one —
the staircase for ε-DP (Geng & Viswanath 2016), the discrete staircase on ℤ, the uniform+atom
for (0, δ) *within symmetric non-increasing noise* (Geng, Ding, Guo & Kumar 2019) — or the
truncated Laplace and Gaussian baselines for (ε, δ), the certified privacy and the solver's
statistics. ``--plot out.png`` draws the designed density next to the reference.

Examples::

    $ optmech design --privacy eps=1 --sensitivity 1 --cost abs --resolution 40 --periods 4
    $ optmech design --privacy delta=0.3 --cost squared --symmetric --monotone
    $ optmech design --privacy eps=1,delta=1e-6 --cost abs --json
    $ optmech design --privacy eps=2 --cost asym:3,1 --unbiased --tail 1,0.2
    $ optmech design --privacy eps=20 --cost abs          # a graded grid: within 0.1% of V*
    $ optmech design --privacy zcdp=0.5 --integer --cost abs   # against the discrete Gaussian
    $ optmech design --privacy gdp=1 --integer --cost squared  # against the rounded Gaussian
    $ optmech design --privacy rdp=2:0.5 --integer
    $ optmech design --privacy profile=0.5:1e-2,1:1e-3 --cost abs
    $ optmech design --dimension 2 --sensitivity-norm l2 --privacy eps=1 --cost l1 --plot d.png
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from optmech.cli._args import (
    add_cost,
    add_json,
    add_max_memory,
    add_plot,
    add_progress,
    add_sensitivity,
    add_solver,
    check_plot_path,
    check_solver,
    flagged,
    options_of,
)
from optmech.cli._limits import check_design_1d, check_design_2d
from optmech.cli._output import print_fields, print_json, result_json, save_plot
from optmech.lp.limits import ADDITIVE_MEMORY_GB

__all__ = ["JSON_EXTRAS", "LEGACY_KEYS", "add_arguments", "compute", "compute_2d", "run"]

#: ``AdditiveSpec``'s default memory limit (from `optmech.lp.limits`, which loads no LP).
DEFAULT_MAX_MEMORY_GB = ADDITIVE_MEMORY_GB


#: Keys of the ``--json`` output that earlier versions printed and that the result's own
#: dictionary names otherwise (``value``, ``grid_kind``, ``staircase_value``): kept for scripts,
#: left out of the table.
LEGACY_KEYS = ("lp_value", "grid", "grid_staircase_value")

#: What ``--json`` adds to the result's own dictionary: the comparisons, the legacy keys and the
#: provenance's fields lifted to the top level (``--plot`` adds ``plot``).
JSON_EXTRAS = (
    *LEGACY_KEYS,
    "repair",
    "reference",
    "reference_value",
    "relative_gap",
    "rounds",
    "staircase_nd_value",
    "two_staircases_half_eps_value",
    "plot",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``design`` options."""
    parser.add_argument(
        "--privacy",
        required=True,
        metavar="SPEC",
        help="eps=E (pure, E in [1e-6, 50]), delta=D ((0, δ)), eps=E,delta=D (E in [0, 50]), "
        "zcdp=RHO, gdp=MU, rdp=ALPHA:EPS[;ALPHA:EPS...] or profile=EPS:DELTA[,EPS:DELTA...]",
    )
    add_sensitivity(parser, "an integer with --integer")
    add_cost(parser)
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
        help="sensitivity periods on each side of 0 (default: by ε and δ, enough for the "
        "geometric tails to carry the rest)",
    )
    parser.add_argument(
        "--grid",
        default="auto",
        choices=("auto", "uniform", "graded"),
        help="how a period is cut: graded (a geometric ladder near the staircase's step, for "
        "large ε), uniform, or auto (graded for ε-DP when no --resolution is given and a "
        "uniform grid cannot resolve the top step)",
    )
    parser.add_argument("--symmetric", action="store_true", help="restrict to symmetric noise")
    parser.add_argument(
        "--monotone", action="store_true", help="restrict to noise non-increasing in |x|"
    )
    parser.add_argument(
        "--unbiased",
        action="store_true",
        help="constrain the noise to zero mean (matters for an asymmetric --cost)",
    )
    parser.add_argument(
        "--tail",
        default=None,
        metavar="T,Q",
        help="constrain P(|Z| > T) ≤ Q (T ≥ 0, Q in [0, 1))",
    )
    parser.add_argument(
        "--dimension",
        type=int,
        default=1,
        choices=(1, 2),
        help="1 or 2: noise in the plane for a sensitivity measured in a norm (--cost then "
        "names a norm of the error: l1, l2 or linf; abs means l1)",
    )
    parser.add_argument(
        "--sensitivity-norm",
        default=None,
        choices=("l1", "l2", "linf"),
        help="with --dimension 2: the norm of the sensitivity ball (required there)",
    )
    add_solver(parser)
    add_max_memory(parser, DEFAULT_MAX_MEMORY_GB)
    add_progress(parser, "the design's stages and solver attempts")
    add_json(parser)
    add_plot(parser, "the designed density beside the closed-form reference")


def _checked_design(
    check: Callable[..., Any],
    privacy: Any,
    sensitivity: Any,
    cost: Any,
    options: dict[str, Any],
    **design_only: Any,
) -> Any:
    """``design_noise`` of the spec ``options`` describe, after ``check`` (``check_design_1d``
    or ``check_design_2d``) has refused it, before any grid is built, if the designer does not
    serve it; ``design_only`` are the designer's arguments that are not part of the spec."""
    from optmech.lp.design import design_noise

    check(privacy, sensitivity, cost, constrained=bool(design_only.get("constraints")), **options)
    return design_noise(privacy, sensitivity=sensitivity, cost=cost, **options, **design_only)


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
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    progress: bool = False,
    unbiased: bool = False,
    tail: str | None = None,
) -> tuple[dict[str, Any], Any, Any]:
    """Design and compare; returns (printed numbers, designed noise, closed-form reference).

    ``unbiased`` and ``tail`` (``"T,Q"``) are constraints of
    `optmech.constraints`; the closed-form reference is then the
    unconstrained optimum (a lower bound, not a target)."""
    from optmech.costs import parse_cost
    from optmech.mechanisms.references import ClosedFormReference, closed_form_reference
    from optmech.privacy import ApproxDP, PureDP, parse_privacy

    privacy = flagged("--privacy", privacy_spec, parse_privacy)
    cost = flagged("--cost", cost_spec, parse_cost)
    check_solver(solver)
    options: dict[str, Any] = {
        "integer": integer,
        "resolution": resolution,
        "periods": periods,
        "symmetric": symmetric,
        "monotone": monotone,
        "grid": grid,
        "max_memory_gb": max_memory_gb,
    }
    sensitivity = int(sensitivity) if integer and _is_whole(sensitivity) else sensitivity
    constraints = _constraints(unbiased, tail)
    noise = _checked_design(
        check_design_1d,
        privacy,
        sensitivity,
        cost,
        options,
        solver=solver,
        progress=progress,
        constraints=constraints,
    )
    info = noise.record
    beyond = not isinstance(privacy, PureDP | ApproxDP)
    ref = (
        closed_form_reference(privacy, sensitivity, cost, integer=integer)
        if isinstance(privacy, PureDP | ApproxDP)
        else ClosedFormReference("none", None, [])
    )
    extras: dict[str, Any] = {
        # Earlier versions' names of the result's own keys, kept for scripts.
        "lp_value": noise.value,
        "grid": info.grid_kind,
        "repair": str(info.repair.kind),
        "reference": ref.label,
        "reference_value": None if ref.optimum is None else ref.optimum.expected_cost(cost),
    }
    for record in noise.provenance.constraints:
        extras[f"constraint {record.name}: residual"] = record.residual
    if beyond:
        extras.update(_beyond_summary(privacy, noise, float(sensitivity), cost, integer))
    if extras["reference_value"] is not None:
        extras["relative_gap"] = _relative_gap(noise.value, extras["reference_value"])
    for name, base in ref.baselines:
        extras[f"{name} cost"] = base.expected_cost(cost)
    out = result_json(noise, extras)
    return out, noise, ref


def _constraints(unbiased: bool, tail: str | None) -> list[Any]:
    """``--unbiased`` and ``--tail T,Q`` as constraints (``--tail`` checked by name)."""
    from optmech.constraints import TailBound, Unbiased

    out: list[Any] = [Unbiased()] if unbiased else []
    if tail is not None:
        parts = str(tail).split(",")
        try:
            t, q = (float(p) for p in parts)
        except ValueError:
            raise ValueError(
                f"--tail must be T,Q (two numbers: P(|Z| > T) ≤ Q); got {tail!r}."
            ) from None
        out.append(flagged("--tail", tail, lambda _: TailBound(t, q)))
    return out


def _is_whole(value: float) -> bool:
    """Whether ``value`` is a finite whole number."""
    return math.isfinite(value) and float(value).is_integer()


def _relative_gap(value: float, reference: float) -> float | None:
    """``(value − reference)/reference``; None when the reference is 0 (a reference whose cost
    underflows: the relative gap has no meaning, both numbers are printed)."""
    return (value - reference) / reference if reference != 0.0 else None


def _beyond_summary(
    privacy: Any, noise: Any, sensitivity: float, cost: Any, integer: bool
) -> dict[str, Any]:
    """The Gaussian reference that meets the same guarantee and its cost
    (`optmech.mechanisms.gaussian_references`), and
    the rounds of the design (what is certified is the result's own)."""
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
    out["rounds"] = len(noise.provenance.rounds)
    return out


def compute_2d(
    privacy_spec: str,
    *,
    sensitivity: float = 1.0,
    cost_spec: str = "l1",
    sensitivity_norm: str | None = None,
    resolution: int | None = None,
    periods: int | None = None,
    solver: str | None = None,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    progress: bool = False,
) -> tuple[dict[str, Any], Any]:
    """Design 2-D noise and compare it with the d-dimensional staircase of the ball's norm
    (Kulesza, Suresh & Wang 2025) and two 1-D staircases at ε/2; (printed numbers, noise)."""
    from optmech.costs.norm import Norm
    from optmech.mechanisms.staircase import Staircase
    from optmech.mechanisms.staircase_nd import StaircaseND
    from optmech.privacy import parse_privacy

    privacy = flagged("--privacy", privacy_spec, parse_privacy)
    cost = "l1" if cost_spec == "abs" else cost_spec
    check_solver(solver)
    options: dict[str, Any] = {
        "sensitivity_norm": sensitivity_norm,
        "periods": periods,
        "max_memory_gb": max_memory_gb,
    }
    if resolution is not None:
        options["resolution"] = resolution
    noise = _checked_design(
        check_design_2d,
        privacy,
        sensitivity,
        cost,
        options,
        dimension=2,
        solver=solver,
        progress=progress,
    )
    spec = noise.spec
    norm_cost = spec.cost if isinstance(spec.cost, Norm) else None
    # Earlier versions' names of the result's own keys, kept for scripts.
    extras: dict[str, Any] = {
        "lp_value": noise.value,
        "grid_staircase_value": noise.record.staircase_value,
    }
    if norm_cost is not None:
        best = StaircaseND.optimal(
            epsilon=spec.epsilon,
            sensitivity=spec.sensitivity,
            cost=norm_cost,
            norm=spec.sensitivity_norm,
        )
        extras["staircase_nd_value"] = best.expected_cost(norm_cost)
        extras["relative_gap"] = _relative_gap(noise.value, extras["staircase_nd_value"])
    if norm_cost == Norm(1):
        half = Staircase.optimal(epsilon=spec.epsilon / 2, sensitivity=spec.sensitivity, cost="abs")
        extras["two_staircases_half_eps_value"] = 2.0 * half.expected_cost("abs")
    out = result_json(noise, extras)
    return out, noise


def _run_2d(args: argparse.Namespace, plot: Any) -> int:
    """``--dimension 2``: design, print, plot the heat map."""
    if args.integer or args.symmetric or args.monotone or args.grid != "auto":
        raise ValueError(
            "--integer, --symmetric, --monotone and --grid are for --dimension 1; got one of "
            "them with --dimension 2."
        )
    if args.unbiased or args.tail is not None:
        raise ValueError(
            "--unbiased and --tail are for --dimension 1 (constraints on 1-D ε-DP and (ε, δ) "
            "designs); got one of them with --dimension 2."
        )
    if args.sensitivity_norm is None:
        raise ValueError("--sensitivity-norm (l1, l2 or linf) is required with --dimension 2.")
    names: tuple[str, ...] = ("sensitivity", "sensitivity_norm", "resolution", "periods", "solver")
    names += ("max_memory_gb", "progress")
    result, noise = compute_2d(args.privacy, cost_spec=args.cost, **options_of(args, names))
    if plot is not None:

        def draw() -> Any:
            ax = noise.plot()
            ax.set_title(f"{result['privacy']}, {result['sensitivity_norm']} ball", fontsize=9)
            return ax

        save_plot(draw, plot, result)
    return _print(result, args.json)


def _print(result: dict[str, Any], as_json: bool, headline: Any = ()) -> int:
    """The numbers as JSON or as a two-column table, the privacy and the certified guarantee
    first (``headline``: ``(key, label, value)`` rows naming the keys in words)."""
    if as_json:
        print_json(result)
        return 0
    first = {"privacy": result["privacy"], **{key: result[key] for key, _, _ in headline}}
    rows = {key: value for key, value in {**first, **result}.items() if key not in LEGACY_KEYS}
    print_fields(rows, {key: label for key, label, _ in headline})
    return 0


def run(args: argparse.Namespace) -> int:
    """Design, print, plot; bad arguments raise ValueError/TypeError (exit status 2)."""
    plot = check_plot_path("--plot", args.plot)  # before the solve, not after
    if args.dimension == 2:
        return _run_2d(args, plot)
    if args.sensitivity_norm is not None:
        raise ValueError("--sensitivity-norm needs --dimension 2.")
    names: tuple[str, ...] = ("sensitivity", "integer", "resolution", "periods", "symmetric")
    names += ("monotone",)
    names += ("solver", "grid", "max_memory_gb", "progress", "unbiased", "tail")
    result, noise, _ = compute(args.privacy, cost_spec=args.cost, **options_of(args, names))
    if plot is not None:
        save_plot(noise.plot, plot, result)
    return _print(result, args.json, noise.certified_guarantee())
