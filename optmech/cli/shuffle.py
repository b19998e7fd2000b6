"""``optmech shuffle``: the shuffled reports' central ε, or the best randomizer for it.

Each of ``--n`` users applies the same local randomizer and a shuffler releases the histogram of
their reports. Without ``--design`` the command certifies the central ε at ``--delta`` of a
randomizer: a matrix file (``--matrix``, .npy or .csv, rows the inputs) or generalised randomized
response on K values at local ε₀ (``--grr K --eps0 E``), by the method ``--method`` (auto takes
the smallest bound: exact for two outputs and n ≤ 1000, the clone reduction of Feldman, McMillan
& Talwar 2021, or its blanket variant; Balle et al. 2019). It prints the certified ε, the ε of a
concrete pair of datasets below it, and each method's bound.

With ``--design`` it designs the randomizer of least loss for labels (``--inputs``) with a prior
(or, with ``--objective minimax``, the worst label) and a cost, whose shuffled reports are
certified central (``--epsilon``, ``--delta``)-DP: the local LP with blanket rows, over a
frontier of local ε₀ and clone probability (``--thetas``), each candidate certified by the same
analysis. It prints the value, the lower bound over the family searched, the certified central
ε, the local ε₀, GRR and RR-on-Bins calibrated to the same target, the frontier and the
randomizer.

Examples::

    $ optmech shuffle --grr 4 --eps0 2 --n 10000 --delta 1e-6
    $ optmech shuffle --matrix rr.csv --n 1000 --delta 1e-6 --method blanket --json
    $ optmech shuffle --design --inputs 0,1,2,3,4,5,6,7 --epsilon 1 --delta 1e-6 --n 10000
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path
from typing import Any, Literal

import numpy as np

from optmech.cli._args import add_json, add_max_memory, add_solver, check_solver, flagged
from optmech.cli._output import (
    fmt,
    print_json,
    print_table,
    result_json,
)
from optmech.cli.local import OBJECTIVES, numbers, print_used_outputs, prior_weights
from optmech.lp.limits import LOCAL_MEMORY_GB

__all__ = ["FLAGS", "METHODS", "add_arguments", "compute_design", "compute_guarantee", "run"]

#: The methods of ``--method`` (``shuffle_epsilon``'s).
METHODS = ("auto", "exact", "clones", "blanket")
#: The library's parameter names that differ from an option's ``dest``.
FLAGS = {"mechanism": "--matrix", "loss": "--cost", "normalize": "--prior", "k": "--grr"}
#: Largest ``rows² x columns`` of a matrix certified (the certificate compares every pair of
#: rows on every output): about 400 MB of float64.
MAX_PAIR_ENTRIES = 50_000_000
#: Largest K of ``--grr`` (K³ within `MAX_PAIR_ENTRIES`).
MAX_GRR = 300
#: Largest ``--n``.
MAX_N = 10**8
#: Largest number of columns printed as a table (wider randomizers: --json).
MAX_PRINTED_COLUMNS = 16
#: The options of each mode only, refused in the other.
DESIGN_ONLY = ("inputs", "prior", "objective", "cost", "epsilon", "outputs", "thetas", "solver")
GUARANTEE_ONLY = ("matrix", "grr", "eps0", "method")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``shuffle`` options."""
    parser.add_argument("--n", type=int, required=True, metavar="N", help="number of users, ≥ 2")
    parser.add_argument(
        "--delta", type=float, required=True, metavar="D", help="central δ, in (0, 1)"
    )
    given = parser.add_argument_group("the guarantee of a randomizer (without --design)")
    given.add_argument(
        "--matrix",
        default=None,
        metavar="FILE",
        help="the randomizer P(output | input), rows the inputs: a .npy or .csv file",
    )
    given.add_argument(
        "--grr",
        type=int,
        default=None,
        metavar="K",
        help=f"generalised randomized response on K values, 2 ≤ K ≤ {MAX_GRR} (with --eps0)",
    )
    given.add_argument(
        "--eps0", type=float, default=None, metavar="E", help="local ε₀ of --grr, in (0, 50]"
    )
    given.add_argument(
        "--method",
        default=None,
        choices=METHODS,
        help="auto: the smallest certified bound; exact (two outputs, n ≤ 1000), clones "
        "(FMT 2021) or blanket (default: auto)",
    )
    design = parser.add_argument_group("designing the randomizer (--design)")
    design.add_argument(
        "--design",
        action="store_true",
        help="design the randomizer of least loss meeting the central target",
    )
    design.add_argument(
        "--inputs", default=None, metavar="X1,X2,...", help="the labels, strictly increasing"
    )
    design.add_argument(
        "--prior",
        default=None,
        metavar="PRIOR",
        help="uniform, or comma-separated weights of the labels (normalised); for --objective "
        "bayesian only (default: uniform)",
    )
    design.add_argument(
        "--objective",
        default=None,
        choices=OBJECTIVES,
        help="bayesian: the expected loss under --prior; minimax: the worst label's (default: "
        "bayesian)",
    )
    design.add_argument(
        "--epsilon", type=float, default=None, metavar="E", help="central ε target, in (0, 50]"
    )
    design.add_argument(
        "--cost",
        "--loss",
        dest="cost",
        default=None,
        metavar="SPEC",
        help="cost of the error (answer − truth): abs, squared, power:P, zero-one[:T], "
        "asym:OVER,UNDER[,P]; --loss is the same option (default: squared)",
    )
    design.add_argument(
        "--outputs",
        default=None,
        metavar="A:B:N",
        help="output grid: N points from A to B, or comma-separated values (default: the "
        "labels and the outputs of the calibrated RR-on-Bins)",
    )
    design.add_argument(
        "--thetas",
        default=None,
        metavar="T1,T2,...",
        help="the frontier's lines, fractions in [0, 1] of the blanket's room (default: "
        "0,0.25,0.5,0.75,1)",
    )
    add_solver(parser)  # (of --design too; listed under the options)
    add_max_memory(parser, LOCAL_MEMORY_GB)
    add_json(parser)


def _check_mode(args: argparse.Namespace) -> None:
    """Options of the other mode are refused by name, never ignored; ``--n`` within
    `MAX_N`."""
    if not 2 <= args.n <= MAX_N:
        raise ValueError(
            f"`--n` must be an integer in [2, {MAX_N:g}] (the certificate's work grows like "
            f"√n: n = 1e7 takes about 10 s); got {args.n}."
        )
    if args.design:
        for name in GUARANTEE_ONLY:
            if getattr(args, name) is not None:
                raise ValueError(
                    f"`--{name}` does not apply to --design (it states the guarantee of a "
                    "given randomizer); drop it, or drop --design."
                )
        return
    for name in DESIGN_ONLY:
        if getattr(args, name) is not None:
            raise ValueError(
                f"`--{name}` applies to --design only (designing the randomizer); add --design "
                "or drop it."
            )
    if args.max_memory_gb != LOCAL_MEMORY_GB:
        raise ValueError("`--max-memory-gb` applies to --design only; add --design or drop it.")


def _read_matrix(spec: str) -> np.ndarray:
    """``--matrix FILE``: a .npy or .csv file of finite numbers, at most `MAX_PAIR_ENTRIES`."""
    path = Path(spec)
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".csv"):
        raise ValueError(f"`--matrix` must be a .npy or .csv file; got {spec!r}.")
    try:
        if suffix == ".npy":
            matrix = np.load(path, allow_pickle=False)
        else:
            with warnings.catch_warnings():  # an empty file: refused below by its shape
                warnings.simplefilter("ignore", UserWarning)
                matrix = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
    except (OSError, ValueError, EOFError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ValueError(f"`--matrix` {spec!r} could not be read: {reason}") from None
    if matrix.dtype.kind not in "biuf":
        raise ValueError(f"`--matrix` must hold real numbers; {spec!r} holds {matrix.dtype}.")
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim == 2 and matrix.shape[0] ** 2 * matrix.shape[1] > MAX_PAIR_ENTRIES:
        raise ValueError(
            f"`--matrix` {spec!r} has {matrix.shape[0]} rows x {matrix.shape[1]} columns: its "
            f"certificate would compare {matrix.shape[0] ** 2 * matrix.shape[1]} entries, more "
            f"than {MAX_PAIR_ENTRIES}. Merge inputs or outputs."
        )
    return matrix


def _randomizer(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    """The matrix of ``--matrix`` or ``--grr K --eps0 E``, and how it was given."""
    if args.matrix is not None and args.grr is not None:
        raise ValueError("`--matrix` and `--grr` both give the randomizer; give one of them.")
    if args.matrix is not None:
        if args.eps0 is not None:
            raise ValueError("`--eps0` applies to --grr only (a matrix has its own ε₀).")
        return _read_matrix(args.matrix), f"matrix {args.matrix}"
    if args.grr is None:
        if args.eps0 is not None:
            raise ValueError("`--eps0` is the local ε₀ of --grr: give --grr K with it.")
        raise ValueError(
            "`--matrix` or `--grr` must give the randomizer (or --design to design one)."
        )
    if not 2 <= args.grr <= MAX_GRR:
        raise ValueError(f"`--grr` must be an integer in [2, {MAX_GRR}]; got {args.grr}.")
    eps0 = args.eps0
    if eps0 is None or not (0.0 < eps0 <= 50.0):
        raise ValueError(f"`--eps0` must be a real number in (0, 50] with --grr; got {eps0!r}.")
    from optmech.mechanisms.randomized_response import randomized_response

    return randomized_response(args.grr, eps0), f"GRR on {args.grr} values, ε₀ = {eps0:g}"


def compute_guarantee(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Certify the randomizer (also used by the tests)."""
    matrix, what = _randomizer(args)
    from optmech.certify.shuffle import shuffle_epsilon

    guarantee = shuffle_epsilon(matrix, args.n, args.delta, method=args.method or "auto")
    out = guarantee.to_dict()
    out["randomizer_given"] = what
    return out, guarantee


def compute_design(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Design the randomizer and assemble what the command prints (also used by the tests)."""
    from optmech.costs import parse_cost

    check_solver(args.solver)
    if args.inputs is None:
        raise ValueError("`--inputs` must give the labels with --design.")
    if args.epsilon is None:
        raise ValueError("`--epsilon` must give the central ε target with --design.")
    objective: Literal["bayesian", "minimax"] = args.objective or "bayesian"
    if objective == "minimax" and args.prior is not None:
        raise ValueError(
            "`--prior` does not apply to the minimax objective (the worst label's loss weighs "
            "no prior); drop --prior, or use --objective bayesian."
        )
    inputs = numbers("--inputs", args.inputs)
    if inputs.size and not math.isfinite(float(inputs.max()) - float(inputs.min())):
        raise ValueError(f"`--inputs` must span a finite range; got {args.inputs!r}.")
    prior = None if objective == "minimax" else prior_weights(args.prior)
    if prior is not None and not isinstance(prior, str) and prior.size != inputs.size:
        raise ValueError(
            f"`--prior` must have one entry per label ({inputs.size}); got {prior.size}."
        )
    cost_spec = "squared" if args.cost is None else args.cost
    cost = flagged("--cost", cost_spec, parse_cost)
    outputs = None
    if args.outputs is not None:
        if ":" in args.outputs:
            from optmech.cli.local import _range

            outputs = _range(args.outputs, inputs, args.max_memory_gb)
        else:
            outputs = numbers("--outputs", args.outputs)
    thetas = (
        (0.0, 0.25, 0.5, 0.75, 1.0)
        if args.thetas is None
        else tuple(numbers("--thetas", args.thetas).tolist())
    )
    from optmech import shuffle_mechanism

    result = shuffle_mechanism(
        prior,
        cost,
        args.epsilon,
        args.delta,
        n=args.n,
        inputs=inputs,
        outputs=outputs,
        objective=objective,
        thetas=thetas,
        solver=args.solver,
        normalize=True,
        max_memory_gb=args.max_memory_gb,
    )
    return result_json(result, {"cost": cost_spec}), result


def _print_guarantee(out: dict[str, Any]) -> None:
    rows = [
        ("randomizer", out["randomizer_given"]),
        ("users n", out["n"]),
        ("central δ", out["delta"]),
        ("local ε₀", out["local_epsilon"]),
        ("certified central ε (upper bound)", out["epsilon"]),
        ("ε of a concrete pair (lower bound)", out["lower_bound"]),
        ("method of the upper bound", out["method"]),
    ]
    rows += [(f"bound by {name}", value) for name, value in out["bounds"].items()]
    print_table(("quantity", "value"), rows)


def _print_design(out: dict[str, Any], result: Any) -> None:
    rows = [
        ("objective", f"{out['objective']}, cost {out['cost']}"),
        (
            "central target (ε, δ), users n",
            f"({fmt(out['epsilon'])}, {fmt(out['delta'])}), {out['n']}",
        ),
        ("value of the randomizer (certified)", out["value"]),
        ("lower bound over the family searched", out["lower_bound"]),
        ("certified central ε", out["certified_epsilon"]),
        ("local ε₀", out["local_epsilon"]),
        ("certificate", out["guarantee"]["method"]),
        ("returned", out["source"]),
    ]
    for name, base in out["baselines"].items():
        rows.append(
            (
                f"{name} at ε₀ {fmt(base['local_epsilon'], 5)}",
                f"value {fmt(base['value'])}, central ε {fmt(base['central_epsilon'], 5)}",
            )
        )
    print_table(("quantity", "value"), rows)
    print()
    print("frontier (θ: clone probability p_θ(ε₀); the LP at the largest ε₀ the bound certifies):")
    frontier = [
        (
            fmt(p["theta"], 4),
            fmt(p["local_epsilon"], 6),
            "none" if p["excluded_epsilon"] is None else fmt(p["excluded_epsilon"], 6),
            "failed" if p["value"] is None else fmt(p["value"]),
            "-" if p["central_epsilon"] is None else fmt(p["central_epsilon"], 5),
            "yes" if p["accepted"] else "no",
            fmt(p["lower_bound"]),
        )
        for p in out["frontier"]
    ]
    print_table(("θ", "ε₀", "excluded ε₀", "LP value", "central ε", "kept", "bound"), frontier)
    if out.get("variation"):
        print()
        print("variation lines (b: total variation at most randomized response's on b outputs;")
        print("the LP at the largest ε₀ its own matrix's certificate accepts):")
        varied = [
            (
                fmt(v["outputs_count"], 4),
                fmt(v["local_epsilon"], 6),
                "none" if v["excluded_epsilon"] is None else fmt(v["excluded_epsilon"], 6),
                fmt(v["value"]),
                fmt(v["central_epsilon"], 5),
                fmt(v["lower_bound"]),
            )
            for v in out["variation"]
        ]
        print_table(("b", "ε₀", "excluded ε₀", "LP value", "central ε", "bound"), varied)
    print_used_outputs(result.mechanism, out, "randomizer")


def run(args: argparse.Namespace) -> int:
    """Certify or design, then print; bad arguments raise ValueError/TypeError (exit 2)."""
    _check_mode(args)
    if args.design:
        out, result = compute_design(args)
        if args.json:
            print_json(out)
        else:
            _print_design(out, result)
        return 0
    out, _ = compute_guarantee(args)
    if args.json:
        print_json(out)
    else:
        _print_guarantee(out)
    return 0
