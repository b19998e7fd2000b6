"""``optmech user``: the optimal mechanism for one user, vs geometric + remap.

Solves the user-specific LP over a neighbour graph (a count query on {0..n}, the path graph, or
another) for a Bayesian user with a prior and a loss (GRS: Ghosh, Roughgarden & Sundararajan
2012) or, with ``--minimax``, a minimax user (Gupte & Sundararajan), and prints the certified
optimal mechanism and its value. For a count query it also prints the value of the geometric
mechanism followed by the user's optimal remap, with the remap itself (Ghosh, Roughgarden &
Sundararajan 2012). ``--plot`` draws the mechanism as a heat map.

Constraints of your own (as for ``optmech local``): ``--unbiased`` (the output's mean is the
input; the outputs are then widened to the integers from ``min − span`` to ``max + span``, span
the inputs' range), ``--monotone`` (stochastically increasing) and ``--max-risk B`` (every
input's expected loss at most B). Each constraint's residual is printed; the geometric
reference is then left out (it need not meet them).

Examples::

    $ optmech user --n 5 --epsilon 0.693 --prior uniform --loss abs
    $ optmech user --n 10 --epsilon 1 --loss squared --minimax --side-info 0,3,5
    $ optmech user --epsilon 1 --graph grid:3x3 --loss abs --json
    $ optmech user --n 200 --epsilon 1 --prior binomial:0.3 --progress
    $ optmech user --n 5 --epsilon 1 --loss squared --minimax --unbiased
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from optmech.cli._args import (
    add_cost,
    add_epsilon,
    add_json,
    add_max_memory,
    add_output_constraints,
    add_plot,
    add_progress,
    add_solver,
    check_plot_path,
    check_solver,
    options_of,
)
from optmech.cli._limits import check_user_size, user_lp_shape
from optmech.cli._output import (
    certified_value_rows,
    fmt,
    print_mechanism,
    print_table,
    print_wrapped,
    result_json,
    save_plot_then_json,
)
from optmech.lp.limits import USER_MEMORY_GB

__all__ = ["FLAGS", "JSON_EXTRAS", "add_arguments", "compute", "run"]

#: What ``--json`` adds to the result's own dictionary (besides the provenance's fields lifted
#: to the top level; ``--plot`` adds ``plot``): the graph's name, the ``--cost`` as given, the
#: repair's weight and cost (earlier versions' keys), the geometric reference, and the
#: caller's constraints with their residuals.
JSON_EXTRAS = (
    "graph",
    "cost",
    "repair_lambda",
    "repair_cost",
    "geometric_value",
    "remap",
    "geometric_note",
    "gap",
    "constraints",
    "plot",
)

#: The library's parameter names that differ from an option's ``dest``, as this command spells
#: them (for error messages).
FLAGS = {
    "max_variables": "--max-memory-gb",
    "normalize": "--normalize-prior",
    "loss": "--cost",
    "side_information": "--side-info",
}

#: The user LPs' default memory limit (from `optmech.lp.limits`, which loads no LP).
DEFAULT_MAX_MEMORY_GB = USER_MEMORY_GB

#: Largest number of columns printed as a table (wider mechanisms: --json or --plot).
MAX_PRINTED_COLUMNS = 25


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``user`` options."""
    parser.add_argument(
        "--n",
        type=int,
        default=None,
        metavar="N",
        help="largest query result (inputs 0..N): for the path and sensitivity graphs only "
        "(the other graphs fix their inputs)",
    )
    add_epsilon(parser, "(0, 50] (above 50, e^ε exceeds 1e21 and the LP loses meaning)")
    parser.add_argument(
        "--prior",
        default=None,
        metavar="PRIOR",
        help="uniform, binomial:p, or a JSON file holding a list of probabilities (Bayesian "
        "users; default: uniform)",
    )
    parser.add_argument(
        "--normalize-prior",
        action="store_true",
        help="divide the prior by its sum instead of requiring it to sum to 1",
    )
    add_cost(parser, matrix=True)
    parser.add_argument(
        "--minimax",
        action="store_true",
        help="minimax user: minimise the worst expected loss over --side-info",
    )
    parser.add_argument(
        "--side-info",
        default=None,
        metavar="I,J,...",
        help="comma-separated inputs the minimax user considers possible (default all)",
    )
    parser.add_argument(
        "--graph",
        default="path",
        metavar="GRAPH",
        help="neighbour graph: path, sensitivity:D, grid:AxB, king:AxB, hypercube:R",
    )
    add_output_constraints(
        parser,
        "input",
        unbiased="the output's mean is the input (outputs widened by the inputs' range each side)",
    )
    add_solver(parser)
    add_max_memory(parser, DEFAULT_MAX_MEMORY_GB)
    add_progress(parser, "the LP's stages, solver attempts and repair steps")
    add_json(parser)
    add_plot(parser, "a heat map of the mechanism")


def _read_json(path: str, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"`{what}` file {path!r} cannot be read: {exc.strerror}.") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"`{what}` file {path!r} is not UTF-8 text ({exc.reason}).") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"`{what}` file {path!r} is not valid JSON: {exc}.") from None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _floats(data: list[Any], flag: str, path: str, not_finite: str) -> np.ndarray:
    """``data`` (numbers, or rows of them) as finite floats; an integer beyond the floats, or
    a non-finite number (the error ``not_finite``), names ``flag``."""
    try:
        values = np.asarray(data, dtype=np.float64)
    except OverflowError:
        raise ValueError(
            f"`{flag}` file {path!r} holds an integer too large for a float."
        ) from None
    if not np.all(np.isfinite(values)):
        raise ValueError(not_finite)
    return values


def _json_prior(spec: str, *, normalize: bool = False) -> np.ndarray:
    """The list of probabilities in the JSON file ``spec``, or a ValueError naming --prior.

    With ``normalize`` the list is divided by its largest entry first (the prior's direction
    is what counts), so that weights near the largest float sum without overflow."""
    data = _read_json(spec, "--prior")
    if not isinstance(data, list) or not all(_is_number(v) for v in data):
        raise ValueError(
            f"`--prior` file {spec!r} must hold a JSON list of probabilities such as "
            f"[0.5, 0.25, 0.25]; got {type(data).__name__} {str(data)[:60]}."
        )
    not_finite = f"`--prior` file {spec!r} must hold finite numbers; got {str(data)[:60]}."
    prior = _floats(data, "--prior", spec, not_finite)
    largest = float(np.max(prior, initial=0.0))
    if normalize and largest > 0.0:
        prior = prior / largest
    elif not normalize and not math.isfinite(sum(data)):
        raise ValueError(
            f"`--prior` file {spec!r} must sum to 1; its sum overflows float64. Pass "
            "--normalize-prior to rescale it."
        )
    return prior


def _json_loss(spec: str) -> np.ndarray:
    """The loss matrix ``L[input][output]`` in the JSON file ``spec``: rows of finite numbers, of
    equal length; or a ValueError naming --cost."""
    data = _read_json(spec, "--cost")
    if not (
        isinstance(data, list)
        and data
        and all(isinstance(row, list) and row and all(_is_number(v) for v in row) for row in data)
    ):
        raise ValueError(
            f"`--cost` file {spec!r} must hold a loss matrix L[input][output] as a JSON list "
            f"of rows of numbers such as [[0, 1], [1, 0]]; got {str(data)[:60]}."
        )
    lengths = sorted({len(row) for row in data})
    if len(lengths) > 1:
        raise ValueError(
            f"`--cost` file {spec!r}: every row of the loss matrix must have as many entries "
            f"(one per output); got rows of lengths {lengths}."
        )
    return _floats(data, "--cost", spec, f"`--cost` file {spec!r}: the loss matrix must be finite.")


def _prior(spec: str, values: np.ndarray, graph_kind: str, *, normalize: bool) -> np.ndarray:
    """The prior over the graph's nodes from a CLI spec."""
    from scipy import stats

    name, _, arg = spec.strip().partition(":")
    if name.lower() == "uniform" and not arg:
        return np.full(values.shape[0], 1.0 / values.shape[0])
    if name.lower() == "binomial" and arg:
        try:
            prob = float(arg)
        except ValueError as exc:
            raise ValueError(f"`--prior` binomial:p needs a number p; got {spec!r}.") from exc
        if not 0.0 <= prob <= 1.0:  # (nan fails too)
            raise ValueError(f"`--prior` binomial:p needs p in [0, 1]; got {prob!r}.")
        if graph_kind == "hypercube":  # every row ~ Bernoulli(p): P(D) = p^k (1 − p)^(R − k)
            rows = int(values.max())
            pmf = prob**values * (1.0 - prob) ** (rows - values)
        else:  # each query result ~ Binomial(its largest value, p), independently
            vals = values.reshape(values.shape[0], -1)
            pmf = stats.binom.pmf(vals, vals.max(axis=0)[None, :], prob).prod(axis=1)
        return pmf / pmf.sum()
    if Path(spec).suffix.lower() == ".json":
        return _json_prior(spec, normalize=normalize)
    raise ValueError(
        "`--prior` must be 'uniform', 'binomial:p' or a .json file with probabilities; got "
        f"{spec!r}."
    )


def _loss(spec: str) -> Any:
    from optmech.costs import parse_cost

    if spec.strip().lower().endswith(".json"):
        return _json_loss(spec)
    return parse_cost(spec)


def _side_info(spec: str | None) -> list[int] | None:
    if spec is None:
        return None
    try:
        return [int(s) for s in spec.split(",") if s.strip()]
    except ValueError as exc:
        raise ValueError(
            f"`--side-info` must be comma-separated integers such as 0,3,5; got {spec!r}."
        ) from exc


def compute(
    *,
    n: int | None,
    epsilon: float,
    prior: str | None = None,
    loss: str = "abs",
    minimax: bool = False,
    side_info: str | None = None,
    graph: str = "path",
    solver: str | None = None,
    normalize_prior: bool = False,
    max_memory_gb: float = DEFAULT_MAX_MEMORY_GB,
    progress: bool = False,
    unbiased: bool = False,
    monotone: bool = False,
    max_risk: float | None = None,
) -> tuple[dict[str, Any], Any]:
    """Solve and assemble everything the command prints (also used by the tests).

    Every option that would be ignored is an error: ``--prior`` and ``--normalize-prior`` with
    ``--minimax``, ``--side-info`` without it, and ``--n`` with a graph that fixes its own
    inputs. The LP's size is checked against ``--max-memory-gb`` before any graph is built.
    """
    from optmech._validation import check_int
    from optmech.graphs import node_values, parse_graph
    from optmech.lp.solve import INCREMENTAL_SOLVER
    from optmech.lp.user import bayesian_mechanism, minimax_mechanism

    _check_combination(n, prior, minimax, side_info, graph, normalize_prior)
    check_solver(solver)
    loss_arg = _loss(loss)
    n_eff = None if n is None else check_int("--n", n, low=1)
    if n_eff is None and isinstance(loss_arg, np.ndarray) and loss_arg.ndim == 2:
        n_eff = loss_arg.shape[0] - 1
    if n_eff is None and _graph_kind(graph) in ("path", "sensitivity"):
        if prior is not None and prior.lower().endswith(".json"):
            n_eff = len(_json_prior(prior, normalize=normalize_prior)) - 1
        else:
            raise ValueError("`--n` is needed for the path and sensitivity graphs.")
    shape = user_lp_shape(graph, n_eff)
    if shape is not None:  # before the graph is built
        where = f"--n {n_eff}" if _graph_kind(graph) == "path" else f"--graph {graph!r}"
        constrained = unbiased or monotone or max_risk is not None
        master = solver is None or solver.upper() == INCREMENTAL_SOLVER
        on_path = _graph_kind(graph) == "path" and master
        columns = None if constrained or not on_path else ("minimax" if minimax else "bayesian")
        check_user_size(shape, max_memory_gb, where, columns=columns)
    g = parse_graph(graph, n_eff)
    values = node_values(g)
    side = _side_info(side_info)
    limits: dict[str, Any] = {
        "solver": solver,
        "max_memory_gb": max_memory_gb,
        "progress": progress,
    }
    limits.update(_constraints(unbiased, monotone, max_risk, values, loss_arg))
    if minimax:
        result = minimax_mechanism(loss_arg, epsilon, side_information=side, graph=g, **limits)
    else:
        result = bayesian_mechanism(
            _prior(
                "uniform" if prior is None else prior,
                values,
                g.graph.get("kind", ""),
                normalize=normalize_prior,
            ),
            loss_arg,
            epsilon,
            graph=g,
            normalize=normalize_prior,
            **limits,
        )
    repair = result.provenance.repair
    extras: dict[str, Any] = {
        "graph": g.graph.get("name", graph),
        "cost": loss,
        # Earlier versions' names of the repair's weight and cost, kept for scripts.
        "repair_lambda": repair.weight,
        "repair_cost": repair.cost,
        "geometric_value": None,
        "remap": None,
        "geometric_note": "",
        "constraints": [asdict(record) for record in result.provenance.constraints],
    }
    _geometric_reference(extras, result, g, minimax=minimax, solver=solver)
    return result_json(result, extras), result


def _geometric_reference(
    extras: dict[str, Any], result: Any, g: Any, *, minimax: bool, solver: str | None
) -> None:
    """The geometric mechanism with the user's remap, for a count query without constraints
    (``extras``' ``geometric_value``, ``remap``, ``gap`` and ``geometric_note``)."""
    if extras["constraints"]:
        extras["geometric_note"] = "no geometric reference: it need not meet the constraints"
        return
    from optmech.graphs import is_path_graph
    from optmech.lp.geometric_remaps import check_monotone_loss, geometric_bayes, geometric_minimax

    count_query = is_path_graph(g) and result.setting.is_count_query
    if not count_query:
        extras["geometric_note"] = (
            "no geometric reference: the geometric mechanism is defined "
            "for a count query (path graph, outputs 0..n)"
        )
        return
    try:
        check_monotone_loss(result.loss)
    except ValueError as exc:
        extras["geometric_note"] = f"the loss is not monotone, GRS does not apply: {exc}"
    if minimax:
        ref = geometric_minimax(
            result.loss,
            result.epsilon,
            side_information=result.side_information.tolist(),
            require_monotone=False,
            solver=solver,
        )
        extras["remap"] = ref.remap.tolist()
    else:
        ref = geometric_bayes(result.prior, result.loss, result.epsilon, require_monotone=False)
        assert ref.assignment is not None  # a Bayes remap is deterministic: it has one
        extras["remap"] = [int(r) for r in ref.assignment]
    extras["geometric_value"] = ref.value
    extras["gap"] = (
        (result.value - ref.value) / ref.value if ref.value else result.value - ref.value
    )


def _constraints(
    unbiased: bool, monotone: bool, max_risk: float | None, values: np.ndarray, loss: Any
) -> dict[str, Any]:
    """``constraints`` (and, with ``--unbiased``, ``outputs``) for the library's functions."""
    from optmech.constraints import MaxRisk, Monotone, Unbiased

    cons: list[Any] = []
    extra: dict[str, Any] = {}
    if unbiased:
        if values.ndim != 1 or (isinstance(loss, np.ndarray) and loss.ndim == 2):
            raise ValueError(
                "`--unbiased` needs a one-dimensional query (the path or sensitivity graph) and "
                "a cost, not a loss matrix."
            )
        low, high = float(values.min()), float(values.max())
        span = math.ceil(high - low)
        extra["outputs"] = np.arange(math.floor(low) - span, math.ceil(high) + span + 1.0)
        cons.append(Unbiased())
    if monotone:
        cons.append(Monotone())
    if max_risk is not None:
        if not max_risk > 0 or not np.isfinite(max_risk):
            raise ValueError(f"`--max-risk` must be in (0, inf); got {max_risk!r}.")
        cons.append(MaxRisk(max_risk))
    if cons:
        extra["constraints"] = cons
    return extra


def _graph_kind(graph: str) -> str:
    """The ``--graph`` spec's kind: ``path``, ``grid``, ... (lower case)."""
    return graph.strip().lower().partition(":")[0]


def _check_combination(
    n: int | None,
    prior: str | None,
    minimax: bool,
    side_info: str | None,
    graph: str,
    normalize_prior: bool,
) -> None:
    """Refuse options that the other options make meaningless (they would be ignored)."""
    if minimax and prior is not None:
        raise ValueError(
            f"`--prior` is for Bayesian users; a minimax user (--minimax) has no prior: drop "
            f"--prior {prior!r} or --minimax."
        )
    if minimax and normalize_prior:
        raise ValueError(
            "`--normalize-prior` is for Bayesian users; a minimax user (--minimax) has no "
            "prior: drop --normalize-prior or --minimax."
        )
    if not minimax and side_info is not None:
        raise ValueError("`--side-info` is for minimax users: add --minimax.")
    kind, _, arg = graph.strip().lower().partition(":")
    well_formed = user_lp_shape(graph, None) is not None or (
        kind == "hypercube" and arg.isdigit() and int(arg) >= 1
    )
    if n is not None and well_formed:  # (a malformed --graph: the graph's parser says why)
        raise ValueError(
            f"`--n` is for the path and sensitivity graphs; the graph {graph!r} fixes its own "
            f"inputs: drop --n {n}."
        )


def _label(v: Any) -> str:
    if isinstance(v, list):
        return "(" + ",".join(fmt(float(x), 3) for x in v) + ")"
    return fmt(float(v), 4)


def run(args: argparse.Namespace) -> int:
    """Solve, print, optionally plot; bad arguments raise ValueError/TypeError (exit 2)."""
    plot = check_plot_path("--plot", args.plot)  # before the solve, not after
    names: tuple[str, ...] = ("n", "epsilon", "prior", "minimax", "side_info", "graph", "solver")
    names += ("normalize_prior", "max_memory_gb", "progress", "unbiased", "monotone", "max_risk")
    out, result = compute(loss=args.cost, **options_of(args, names))
    if save_plot_then_json(out, result.plot, plot, args.json):
        return 0
    summary = [
        ("user", f"{out['objective']}, cost {args.cost}"),
        ("graph", out["graph"]),
        ("epsilon", out["epsilon"]),
        *certified_value_rows(out),
        ("certified epsilon", out["certified_epsilon"]),
        ("solver", f"{out['solver']} ({out['status']}, {out['solve_time']:.3g} s)"),
        ("privacy repair", f"lambda {out['repair_lambda']:.2g}, cost {out['repair_cost']:.2g}"),
    ]
    summary += [
        (f"constraint {c['name']}", f"residual {c['residual']:.3g}") for c in out["constraints"]
    ]
    if out["geometric_value"] is not None:
        kind = "randomized" if args.minimax else "Bayes"
        summary.append((f"geometric + {kind} remap", out["geometric_value"]))
        summary.append(("relative gap LP vs geometric", out["gap"]))
    print_table(("quantity", "value"), summary)
    if out["geometric_note"]:
        print()
        print_wrapped(f"note: {out['geometric_note']}", indent="  ")
    mech = result.mechanism
    print_mechanism(
        mech,
        [_label(v) for v in out["inputs"]],
        [_label(v) for v in out["outputs"]],
        corner="in \\ out",
        title="optimal mechanism P(output | input):",
        max_columns=MAX_PRINTED_COLUMNS,
        too_wide=f"optimal mechanism: {mech.shape[0]} x {mech.shape[1]} matrix (see --json or "
        "--plot)",
    )
    if out["remap"] is not None:
        print()
        if args.minimax:
            t = np.asarray(out["remap"])
            moved = [
                (z, r, t[z, r])
                for z, r in zip(*np.nonzero(t > 1e-9), strict=True)
                if z != r or not math.isclose(t[z, r], 1.0)
            ]
            print(
                "randomized remap of the geometric mechanism (entries other than z -> z "
                "with probability 1):"
            )
            for z, r, w in moved[:60]:
                print(f"  {z} -> {r} with probability {w:.6g}")
            if not moved:
                print("  none: the identity")
        else:
            changes = [(z, r) for z, r in enumerate(out["remap"]) if z != r]
            print("Bayes remap of the geometric mechanism (outputs not answered as is):")
            print(
                "  "
                + (
                    ", ".join(f"{z} -> {r}" for z, r in changes)
                    if changes
                    else "none: the identity"
                )
            )
    if args.plot:
        print(f"\nheat map written to {args.plot}")
    return 0
