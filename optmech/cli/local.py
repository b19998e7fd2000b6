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
import math
import sys
from dataclasses import asdict
from typing import Any, Literal

import numpy as np

from optmech.cli._args import (
    add_cost,
    add_epsilon,
    add_json,
    add_max_memory,
    add_output_constraints,
    add_plot,
    add_solver,
    check_plot_path,
    flagged,
)
from optmech.cli._output import (
    certified_value_rows,
    fmt,
    print_mechanism,
    print_table,
    print_wrapped,
    result_json,
    save_plot_then_json,
)
from optmech.lp.limits import LOCAL_MEMORY_GB

#: The objectives of ``--objective`` (``local_mechanism``'s ``objective``).
OBJECTIVES = ("bayesian", "minimax")
#: How the default ``--outputs`` is made, for messages about it.
DEFAULT_OUTPUTS_NOTE = (
    "the labels, or with --unbiased 121 points over their range widened by twice it on each side"
)

__all__ = [
    "FLAGS",
    "JSON_EXTRAS",
    "OBJECTIVES",
    "add_arguments",
    "compute",
    "numbers",
    "print_used_outputs",
    "prior_weights",
    "run",
]

#: What ``--json`` adds to the result's own dictionary (besides the provenance's fields lifted
#: to the top level; ``--plot`` adds ``plot``): the ``--cost`` as given, earlier versions'
#: ``constraints``, ``grid`` and ``support``, and RR-on-Bins.
JSON_EXTRAS = ("cost", "constraints", "grid", "support", "rr_on_bins", "plot")

#: The library's parameter names that differ from an option's ``dest``.
FLAGS = {"loss": "--cost", "normalize": "--prior"}

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
        "--objective",
        default=None,
        choices=OBJECTIVES,
        help="bayesian: the expected loss under --prior; minimax: the worst label's expected "
        "loss (no prior) (default: bayesian, as optmech.local_mechanism's)",
    )
    parser.add_argument(
        "--minimax",
        action="store_true",
        help="the same as --objective minimax",
    )
    parser.add_argument(
        "--prior",
        default=None,
        metavar="PRIOR",
        help="uniform, or comma-separated weights of the labels (normalised); for --objective "
        "bayesian only (default: uniform)",
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
        help="also compute RR-on-Bins (squared or absolute error; --objective bayesian only)",
    )
    add_solver(parser)
    add_max_memory(parser, DEFAULT_MAX_MEMORY_GB)
    add_json(parser)
    add_plot(parser, "a heat map of the mechanism")


def numbers(flag: str, spec: str) -> np.ndarray:
    """The comma-separated finite numbers ``spec`` of the option ``flag``; an empty field, a
    word or a number beyond the floats (``1e309``, ``inf``, ``nan``) is a ValueError naming
    ``flag`` and the field."""
    fields = spec.split(",")
    values = []
    for k, field in enumerate(fields, start=1):
        text = field.strip()
        where = f"field {k} of {len(fields)}" if len(fields) > 1 else "its value"
        if not text:
            raise ValueError(
                f"`{flag}` must be comma-separated numbers; {where} is empty in {spec!r}."
            )
        try:
            value = float(text)
        except ValueError:
            raise ValueError(
                f"`{flag}` must be comma-separated numbers; {where} is {text!r} in {spec!r}."
            ) from None
        if not math.isfinite(value):
            raise ValueError(
                f"`{flag}` must hold finite numbers (at most {sys.float_info.max:.4g} in size); "
                f"{where} is {text!r}."
            )
        values.append(value)
    return np.asarray(values, dtype=np.float64)


def _range(spec: str, inputs: np.ndarray, max_memory_gb: float) -> np.ndarray:
    """``--outputs A:B:N``: N points from A to B, their count checked against the memory
    allowed before they are made."""
    from optmech.exceptions import ProblemTooLargeError
    from optmech.lp.matrix.envelope_setting import check_local_size

    parts = spec.split(":")
    usage = (
        f"`--outputs` must be A:B:N (N points from A to B) or comma-separated values; got {spec!r}."
    )
    if len(parts) != 3:
        raise ValueError(usage)
    low, high = (float(numbers("--outputs", part)[0]) for part in parts[:2])
    try:
        count = int(parts[2])
    except ValueError:
        raise ValueError(usage) from None
    if count < 2 or not high > low:
        raise ValueError(f"`--outputs` A:B:N needs A < B and N ≥ 2; got {spec!r}.")
    if not math.isfinite(high - low):
        raise ValueError(
            f"`--outputs` A:B:N: B − A must be a finite float (at most "
            f"{sys.float_info.max:.4g}); got {spec!r}."
        )
    try:
        check_local_size(inputs.size, count, max_memory_gb=max_memory_gb)
    except ProblemTooLargeError as exc:
        raise ProblemTooLargeError(f"`--outputs` {spec!r}: {exc}") from None
    return np.linspace(low, high, count)


def _grid(args: argparse.Namespace, inputs: np.ndarray) -> np.ndarray:
    spec = args.outputs
    if spec is None:
        if not args.unbiased:
            return inputs
        span = float(inputs[-1] - inputs[0])
        low, high = inputs[0] - 2 * span, inputs[-1] + 2 * span
        if not math.isfinite(high - low):
            raise ValueError(
                "`--inputs` span too wide for the default `--outputs` of --unbiased (the "
                "labels' range widened by twice it on each side overflows float64); give "
                "--outputs."
            )
        return np.linspace(low, high, 121)
    if ":" in spec:
        return _range(spec, inputs, args.max_memory_gb)
    return numbers("--outputs", spec)


def objective_of(args: argparse.Namespace) -> Literal["bayesian", "minimax"]:
    """The objective the options ask for; a flag that cannot apply is a ValueError naming it
    (never ignored)."""
    objective: Literal["bayesian", "minimax"] = args.objective or (
        "minimax" if args.minimax else "bayesian"
    )
    if args.minimax and objective != "minimax":
        raise ValueError(f"`--minimax` contradicts `--objective {objective}`; give one of them.")
    if objective == "minimax":
        if args.prior is not None:
            raise ValueError(
                "`--prior` does not apply to the minimax objective (the worst label's loss "
                "weighs no prior); drop --prior, or use --objective bayesian."
            )
        if args.rr_on_bins:
            raise ValueError(
                "`--rr-on-bins` needs a prior (it minimises the expected loss): drop "
                "--minimax / --objective minimax."
            )
    return objective


def print_used_outputs(mech: Any, out: dict[str, Any], name: str) -> None:
    """The matrix ``P(output | label)`` on the outputs it uses, labelled as in ``out``
    (``inputs``, ``outputs``); a line instead when it is too wide to print."""
    used = mech.max(axis=0) > 0
    print_mechanism(
        mech[:, used],
        [fmt(float(x), 5) for x in out["inputs"]],
        [fmt(float(v), 5) for v in np.asarray(out["outputs"])[used]],
        corner="label \\ output",
        title=f"{name} P(output | label), outputs it uses:",
        max_columns=MAX_PRINTED_COLUMNS,
        too_wide=f"{name}: {mech.shape[0]} x {int(used.sum())} used outputs (see --json)",
    )


def prior_weights(spec: str | None) -> Any:
    """``--prior``: ``"uniform"`` (its default) or the weights as given (the library
    normalises them)."""
    if spec is None or spec.strip().lower() == "uniform":
        return "uniform"
    values = numbers("--prior", spec)
    if np.any(values < 0) or not np.any(values > 0):
        raise ValueError(f"`--prior` must be non-negative with a positive sum; got {spec!r}.")
    return values


def compute(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Solve and assemble everything the command prints (also used by the tests)."""
    from optmech import local_mechanism, rr_on_bins
    from optmech.constraints import MaxRisk, Monotone, Unbiased
    from optmech.costs import parse_cost

    objective = objective_of(args)
    inputs = numbers("--inputs", args.inputs)
    if inputs.size and not math.isfinite(float(inputs.max()) - float(inputs.min())):
        raise ValueError(
            f"`--inputs` must span a finite range (at most {sys.float_info.max:.4g}); got "
            f"{args.inputs!r}."
        )
    prior = None if objective == "minimax" else prior_weights(args.prior)
    if prior is not None and not isinstance(prior, str) and prior.size != inputs.size:
        raise ValueError(
            f"`--prior` must have one entry per label ({inputs.size}); got {prior.size}."
        )
    if args.max_risk is not None and not (args.max_risk > 0 and math.isfinite(args.max_risk)):
        raise ValueError(f"`--max-risk` must be in (0, inf); got {args.max_risk!r}.")
    cost = flagged("--cost", args.cost, parse_cost)
    if args.rr_on_bins:  # its losses, checked before the LP is solved
        from optmech.mechanisms.rr_on_bins import supported_loss

        supported_loss(cost)
    if inputs.size >= 2:
        outputs = _grid(args, inputs)
    else:  # the library names the labels' count
        outputs = None
    cons: list[Any] = []
    if args.unbiased:
        cons.append(Unbiased())
    if args.monotone:
        cons.append(Monotone())
    if args.max_risk is not None:
        cons.append(MaxRisk(args.max_risk))
    try:
        result = local_mechanism(
            prior,
            cost,
            args.epsilon,
            objective=objective,
            inputs=inputs,
            outputs=outputs,
            constraints=cons,
            solver=args.solver,
            normalize=True,
            max_memory_gb=args.max_memory_gb,
        )
    except ValueError as exc:
        if args.outputs is None and "`outputs`" in str(exc):
            raise ValueError(
                f"{exc} (--outputs was not given: its default, {DEFAULT_OUTPUTS_NOTE}, was used)"
            ) from None
        raise
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
        assert prior is not None  # --rr-on-bins is refused under minimax
        weights = np.ones(inputs.size) if isinstance(prior, str) else prior / prior.max()
        rr = rr_on_bins(weights / weights.sum(), cost, args.epsilon, inputs=inputs)
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
    print()
    print_wrapped(f"grid: {out['grid']}", indent="  ")
    print_used_outputs(result.mechanism, out, "optimal mechanism")


def run(args: argparse.Namespace) -> int:
    """Solve, print, optionally plot; bad arguments raise ValueError/TypeError (exit 2)."""
    plot = check_plot_path("--plot", args.plot)
    out, result = compute(args)
    if save_plot_then_json(out, result.plot, plot, args.json):
        return 0
    _print(out, result)
    if plot is not None:
        print(f"\nheat map written to {plot}")
    return 0
