"""``optmech local``: the optimal ε-local-DP (label-DP) randomizer of a few labels.

Solves the complete-graph LP for labels (``--inputs``) with a prior (or, with ``--minimax``, the
worst label) and a loss of the error, over an output grid (``--outputs``, default the labels),
with constraints of your own: ``--unbiased`` (the output's mean is the label; Badanidiyuru et
al. 2023), ``--monotone`` (stochastically increasing) and ``--max-risk B`` (every label's expected
loss at most B). It prints the certified value and interval, the certified ε, each constraint's
residual, how far the grid can be from a continuum of outputs, and the mechanism. ``--rr-on-bins``
adds RR-on-Bins (Ghazi et al. 2023): the optimum over all real outputs for the squared and the
absolute error, by its dynamic programme.

Examples::

    $ optmech local --inputs 0,1,2,5 --prior 0.4,0.3,0.2,0.1 --epsilon 1 --cost squared
    $ optmech local --inputs 0,1,2,5 --epsilon 1 --cost squared --outputs=-10:15:101 --unbiased
    $ optmech local --inputs 0,1,2,5 --epsilon 2 --cost abs --max-risk 1.5 --rr-on-bins --json
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

import numpy as np

from optmech.cli._args import (
    add_cost,
    add_epsilon,
    add_json,
    add_max_memory,
    add_output_constraints,
    add_plot,
    add_solver,
    check_output_path,
)
from optmech.cli._output import (
    certified_value_rows,
    fmt,
    print_mechanism,
    print_table,
    result_json,
    save_plot_then_json,
)
from optmech.lp.limits import LOCAL_MEMORY_GB

__all__ = ["FLAGS", "JSON_EXTRAS", "add_arguments", "compute", "run"]

#: What ``--json`` adds to the result's own dictionary (besides the provenance's fields lifted
#: to the top level; ``--plot`` adds ``plot``): the ``--cost`` as given, earlier versions'
#: ``constraints``, ``grid`` and ``support``, and RR-on-Bins.
JSON_EXTRAS = ("cost", "constraints", "grid", "support", "rr_on_bins", "plot")

#: The library's parameter names that differ from an option's ``dest``.
FLAGS = {"loss": "--cost"}

#: The local LP's default memory limit (from `optmech.lp.limits`, which loads no LP).
DEFAULT_MAX_MEMORY_GB = LOCAL_MEMORY_GB

#: Largest number of columns printed as a table (wider mechanisms: --json or --plot).
MAX_PRINTED_COLUMNS = 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``local`` options."""
    parser.add_argument(
        "--inputs",
        required=True,
        metavar="X1,X2,...",
        help="the labels, comma-separated and strictly increasing",
    )
    parser.add_argument(
        "--prior",
        default="uniform",
        metavar="PRIOR",
        help="uniform, or comma-separated probabilities of the labels (normalised)",
    )
    parser.add_argument(
        "--minimax", action="store_true", help="minimise the worst label's expected loss"
    )
    add_epsilon(parser, "(0, 50]")
    add_cost(parser, default="squared")
    parser.add_argument(
        "--outputs",
        default=None,
        metavar="A:B:N",
        help="output grid: N points from A to B, or comma-separated values (default: the "
        "labels; with --unbiased, 121 points over the labels' range widened by twice it on "
        "each side)",
    )
    add_output_constraints(parser, "label", unbiased="the output's mean is the label")
    parser.add_argument(
        "--rr-on-bins",
        action="store_true",
        help="also compute RR-on-Bins (squared or absolute error only)",
    )
    add_solver(parser)
    add_max_memory(parser, DEFAULT_MAX_MEMORY_GB)
    add_json(parser)
    add_plot(parser, "a heat map of the mechanism")


def _numbers(flag: str, spec: str) -> np.ndarray:
    try:
        values = [float(s) for s in spec.split(",") if s.strip()]
    except ValueError as exc:
        raise ValueError(f"`{flag}` must be comma-separated numbers; got {spec!r}.") from exc
    return np.asarray(values, dtype=np.float64)


def _grid(spec: str | None, inputs: np.ndarray, unbiased: bool) -> np.ndarray:
    if spec is None:
        if not unbiased:
            return inputs
        span = float(inputs[-1] - inputs[0])
        return np.linspace(inputs[0] - 2 * span, inputs[-1] + 2 * span, 121)
    if ":" not in spec:
        return _numbers("--outputs", spec)
    parts = spec.split(":")
    try:
        low, high, count = float(parts[0]), float(parts[1]), int(parts[2])
    except (ValueError, IndexError) as exc:
        raise ValueError(
            f"`--outputs` must be A:B:N (N points from A to B) or comma-separated values; got "
            f"{spec!r}."
        ) from exc
    if len(parts) != 3 or count < 2 or not high > low:
        raise ValueError(f"`--outputs` A:B:N needs A < B and N ≥ 2; got {spec!r}.")
    return np.linspace(low, high, count)


def _prior(spec: str, n: int) -> np.ndarray:
    if spec.strip().lower() == "uniform":
        return np.full(n, 1.0 / n)
    values = _numbers("--prior", spec)
    if values.size != n:
        raise ValueError(f"`--prior` must have one entry per label ({n}); got {values.size}.")
    if np.any(values < 0) or values.sum() <= 0:
        raise ValueError(f"`--prior` must be non-negative with a positive sum; got {spec!r}.")
    return values / values.sum()


def compute(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Solve and assemble everything the command prints (also used by the tests)."""
    from optmech import local_mechanism, rr_on_bins
    from optmech.constraints import MaxRisk, Monotone, Unbiased
    from optmech.costs import parse_cost

    inputs = _numbers("--inputs", args.inputs)
    outputs = _grid(args.outputs, inputs, args.unbiased)
    prior = None if args.minimax else _prior(args.prior, inputs.size)
    cons: list[Any] = []
    if args.unbiased:
        cons.append(Unbiased())
    if args.monotone:
        cons.append(Monotone())
    if args.max_risk is not None:
        if not args.max_risk > 0 or not np.isfinite(args.max_risk):
            raise ValueError(f"`--max-risk` must be in (0, inf); got {args.max_risk!r}.")
        cons.append(MaxRisk(args.max_risk))
    cost = parse_cost(args.cost)
    result = local_mechanism(
        prior,
        cost,
        args.epsilon,
        inputs=inputs,
        outputs=outputs,
        constraints=cons,
        solver=args.solver,
        max_memory_gb=args.max_memory_gb,
    )
    extras: dict[str, Any] = {
        "cost": args.cost,
        # Earlier versions' keys, kept for scripts: the constraints' records (the provenance's),
        # the grid statement and the outputs the mechanism uses.
        "constraints": [asdict(record) for record in result.constraints],
        "grid": result.grid_statement,
        "support": result.support,
        "rr_on_bins": None,
    }
    if args.rr_on_bins:
        if prior is None:
            raise ValueError("`--rr-on-bins` needs a prior: drop --minimax.")
        rr = rr_on_bins(prior, cost, args.epsilon, inputs=inputs)
        extras["rr_on_bins"] = {
            "value": rr.value,
            "bins": [list(b) for b in rr.bins],
            "outputs": rr.outputs.tolist(),
            "certified_epsilon": rr.certified_epsilon,
        }
    return result_json(result, extras), result


def _print(out: dict[str, Any], result: Any) -> None:
    rows = [
        ("objective", f"{out['objective']}, cost {out['cost']}"),
        ("epsilon", out["epsilon"]),
        *certified_value_rows(out),
        ("certified epsilon (every pair of labels)", out["certified_epsilon"]),
        ("solver", f"{out['solver']} ({out['status']})"),
    ]
    rows += [
        (f"constraint {c['name']}", f"residual {c['residual']:.3g}") for c in out["constraints"]
    ]
    if out["rr_on_bins"] is not None:
        rr = out["rr_on_bins"]
        rows.append(("RR-on-Bins value (real outputs)", rr["value"]))
        rows.append(("RR-on-Bins outputs", ", ".join(fmt(v, 5) for v in rr["outputs"])))
    print_table(("quantity", "value"), rows)
    print(f"\ngrid: {out['grid']}")
    mech = result.mechanism
    used = mech.max(axis=0) > 0
    print_mechanism(
        mech[:, used],
        [fmt(float(x), 5) for x in out["inputs"]],
        [fmt(float(v), 5) for v in np.asarray(out["outputs"])[used]],
        corner="label \\ output",
        title="optimal mechanism P(output | label), outputs it uses:",
        max_columns=MAX_PRINTED_COLUMNS,
        too_wide=f"optimal mechanism: {mech.shape[0]} x {int(used.sum())} used outputs "
        "(see --json)",
    )


def run(args: argparse.Namespace) -> int:
    """Solve, print, optionally plot; bad arguments raise ValueError/TypeError (exit 2)."""
    plot = check_output_path("--plot", args.plot)
    out, result = compute(args)
    if save_plot_then_json(out, result.plot, plot, args.json):
        return 0
    _print(out, result)
    if plot is not None:
        print(f"\nheat map written to {plot}")
    return 0
