"""Sweep tasks: functions of keyword parameters returning a flat dict of JSON-able results.

Built-in tasks wrap optmech's public API (closed forms and LP designers); any other
importable function can be named as ``"package.module:function"``. A task must be a
module-level function (it is pickled to worker processes) and must raise on failure rather
than return NaN: the runner records the exception as an ``error`` row, retried next run.
"""

from __future__ import annotations

import importlib
import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "available_tasks",
    "check_task_parameters",
    "resolve_task",
    "sweep_task",
    "task_options",
    "task_parameters",
]

TaskFn = Callable[..., dict[str, Any]]
_TASKS: dict[str, TaskFn] = {}
#: Built-in tasks taking ``**options``: the option names each accepts (read when checked).
_OPTIONS: dict[str, Callable[[], tuple[str, ...]]] = {}


def sweep_task(
    name: str, *, options: Callable[[], tuple[str, ...]] | None = None
) -> Callable[[TaskFn], TaskFn]:
    """Register a built-in task under ``name``; ``options`` returns the names its
    ``**options`` accept (so a misspelt option is refused before anything runs).

    Examples
    --------
    >>> from optmech.sweep import sweep_task
    >>> register = sweep_task("my-task")  # a decorator that registers a task function
    >>> callable(register)
    True
    """

    def wrap(fn: TaskFn) -> TaskFn:
        _TASKS[name] = fn
        if options is not None:
            _OPTIONS[name] = options
        return fn

    return wrap


def available_tasks() -> list[str]:
    """Names of the built-in tasks.

    Examples
    --------
    >>> from optmech.sweep import available_tasks
    >>> "staircase" in available_tasks(), "design-noise" in available_tasks()
    (True, True)
    """
    return sorted(_TASKS)


def resolve_task(name: str) -> TaskFn:
    """The function behind a task name (built-in, or ``"module:function"``), or a clear error.

    Examples
    --------
    >>> from optmech.sweep import resolve_task
    >>> row = resolve_task("staircase")(epsilon=1.0, cost="abs")  # one task, one row
    >>> sorted(row), round(row["ratio"], 4)  # the staircase's gain over Laplace at ε = 1
    (['gamma', 'laplace_cost', 'ratio', 'staircase_cost'], 1.0422)
    """
    if not isinstance(name, str):
        raise ValueError(f"sweep spec: `task` must be a string; got {name!r}.")
    if name in _TASKS:
        return _TASKS[name]
    module_name, sep, attr = name.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(
            f"sweep spec: `task` must be one of {available_tasks()} or 'package.module:function'; "
            f"got {name!r}."
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"sweep spec: cannot import module {module_name!r} ({exc}).") from exc
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ValueError(f"sweep spec: {module_name!r} has no function {attr!r}.")
    return fn


_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def task_parameters(name: str) -> dict[str, Any]:
    """The named parameters of task ``name`` and their defaults (`inspect.Parameter.empty`
    for a required one), in order; see `task_options` for the rest.

    Examples
    --------
    >>> task_parameters("staircase")
    {'epsilon': <class 'inspect._empty'>, 'cost': 'abs', 'sensitivity': 1.0}
    """
    sig = inspect.signature(resolve_task(name))
    return {p.name: p.default for p in sig.parameters.values() if p.kind in _KEYWORD}


def task_options(name: str) -> tuple[str, ...]:
    """The options a built-in task takes through its ``**options`` and passes on (empty for a
    task without them).

    Examples
    --------
    >>> "resolution" in task_options("design-noise"), task_options("staircase")
    (True, ())
    """
    named = task_parameters(name)
    return tuple(o for o in _OPTIONS[name]() if o not in named) if name in _OPTIONS else ()


def check_task_parameters(name: str, keys: Any) -> None:
    """Raise ValueError unless the task ``name`` accepts every parameter in ``keys`` and gets
    every parameter it requires: a misspelt or a missing one fails before anything runs."""
    fn = resolve_task(name)  # an unknown task: a clear error
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read (a builtin): the tasks will say
        return
    params = sig.parameters.values()
    accepted = [p.name for p in params if p.kind in _KEYWORD]
    open_ended = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params)
    if open_ended and name in _OPTIONS:
        accepted += task_options(name)
        open_ended = False
    unknown = sorted(set(keys) - set(accepted))
    if unknown and not open_ended:
        raise ValueError(
            f"sweep spec: task {name!r} has no parameter {', '.join(map(repr, unknown))}; its "
            f"parameters are {', '.join(accepted)}."
        )
    missing = [
        p.name
        for p in params
        if p.default is inspect.Parameter.empty and p.kind in _KEYWORD and p.name not in keys
    ]
    if missing:
        raise ValueError(
            f"sweep spec: task {name!r} needs {', '.join(map(repr, missing))} in `grid` or `fixed`."
        )


def run_task(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run one task and check its result is a flat dict of finite JSON values."""
    out = resolve_task(name)(**params)
    if not isinstance(out, dict):
        raise TypeError(f"task {name!r} must return a dict; returned {type(out).__name__}.")
    clean: dict[str, Any] = {}
    for key, value in out.items():
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"task {name!r} returned a non-finite {key} = {value!r}.")
        if not isinstance(value, str | int | float | bool | type(None)):
            raise TypeError(
                f"task {name!r} returned {key} of type {type(value).__name__}; results must be "
                "numbers, strings, booleans or None."
            )
        clean[str(key)] = value
    return clean


# -- built-in tasks -------------------------------------------------------------------------


@sweep_task("staircase")
def staircase_task(
    *, epsilon: float, cost: str = "abs", sensitivity: float = 1.0
) -> dict[str, Any]:
    """Optimal staircase vs Laplace for one ε (Geng & Viswanath 2016, Fig. 2): γ*, both costs, their
    ratio."""
    import optmech
    from optmech.costs import parse_cost

    c = parse_cost(cost)
    s = optmech.Staircase.optimal(epsilon=epsilon, sensitivity=sensitivity, cost=c)
    lap = optmech.Laplace(epsilon=epsilon, sensitivity=sensitivity).expected_cost(c)
    v = s.expected_cost(c)
    return {"gamma": s.gamma, "staircase_cost": v, "laplace_cost": lap, "ratio": lap / v}


@sweep_task("uniform-atom")
def uniform_atom_task(
    *, delta: float, cost: str = "abs", sensitivity: float = 1.0
) -> dict[str, Any]:
    """Optimal (0, δ) noise within symmetric non-increasing noise (Geng, Ding, Guo & Kumar 2019):
    α*, its cost."""
    import optmech
    from optmech.costs import parse_cost

    c = parse_cost(cost)
    u = optmech.UniformAtom.optimal(delta=delta, sensitivity=sensitivity, cost=c)
    return {"alpha": u.alpha, "cost": u.expected_cost(c)}


def _design_options() -> tuple[str, ...]:
    """The options ``design-noise`` passes to `optmech.design_noise`: its own keywords and the
    modelling options of the 1-D and 2-D specs."""
    from optmech.lp.additive.spec import AdditiveSpec
    from optmech.lp.additive2d.spec import AdditiveSpec2D
    from optmech.lp.design import design_noise

    own = ("privacy", "sensitivity", "cost", "solver")
    keywords = [p.name for p in inspect.signature(design_noise).parameters.values()]
    run = tuple(k for k in keywords if k not in own and k != "spec_options")
    names = (*run, *AdditiveSpec.options(), *AdditiveSpec2D.options())
    return tuple(dict.fromkeys(names))


@sweep_task("design-noise", options=_design_options)
def design_noise_task(
    *,
    privacy: str,
    cost: str = "abs",
    sensitivity: float = 1.0,
    solver: str | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Design optimal additive noise by LP (``privacy`` as ``eps=1``, ``delta=0.3``, ...).

    ``options`` are the modelling options of
    `optmech.lp.additive.AdditiveSpec` (``resolution``,
    ``periods``, ``integer``, ``symmetric``, ``monotone``, ``grid``, ...), passed to
    `optmech.design_noise` unchanged.
    """
    import optmech
    from optmech.costs import parse_cost
    from optmech.privacy import parse_privacy

    noise = optmech.design_noise(
        parse_privacy(privacy),
        sensitivity=sensitivity,
        cost=parse_cost(cost),
        solver=solver,
        **options,
    )
    info = noise.to_dict()
    return {
        "value": noise.value,
        "lower_bound": noise.lower_bound,
        "certified_epsilon": noise.certified_epsilon,
        # A 2-D design is pure ε-DP: it has no δ, which is 0.
        "certified_delta": float(getattr(noise, "certified_delta", 0.0)),
        "solver": noise.solver,
        "status": noise.status,
        "solve_time": noise.solve_time,
        "num_variables": info["provenance"]["num_variables"],
        "repair_cost": info["repair_cost"],
    }


def _prior(spec: str | list[float], n: int) -> np.ndarray:
    """``uniform``, ``binomial:P``, ``dirichlet:SEED`` (a random prior) or explicit weights."""
    from scipy import stats

    if isinstance(spec, list):
        return np.asarray(spec, dtype=np.float64)
    name, _, arg = str(spec).partition(":")
    if name == "uniform" and not arg:
        return np.full(n + 1, 1.0 / (n + 1))
    if name == "binomial" and arg:
        return stats.binom.pmf(np.arange(n + 1), n, float(arg))
    if name == "dirichlet" and arg:
        return np.random.default_rng(int(arg)).dirichlet(np.ones(n + 1))
    raise ValueError(
        f"`prior` must be 'uniform', 'binomial:P', 'dirichlet:SEED' or a list of weights; "
        f"got {spec!r}."
    )


@sweep_task("bayesian")
def bayesian_task(
    *,
    n: int,
    epsilon: float,
    prior: str | list[float] = "uniform",
    loss: str = "abs",
    solver: str | None = None,
) -> dict[str, Any]:
    """A GRS Bayesian user's LP optimum vs the geometric mechanism + Bayes remap."""
    import optmech
    from optmech.costs import parse_cost

    p = _prior(prior, n)
    cost = parse_cost(loss)
    user = optmech.bayesian_mechanism(p, cost, epsilon, solver=solver)
    ref = optmech.geometric_bayes(p, cost, epsilon, require_monotone=False)
    return {
        "value": user.value,
        "lower_bound": user.lower_bound,
        "certified_epsilon": user.certified_epsilon,
        "geometric_remap_value": ref.value,
        "relative_gap": (user.value - ref.value) / ref.value if ref.value else user.value,
        "solver": user.solver,
        "solve_time": user.solve_time,
    }


@sweep_task("minimax")
def minimax_task(
    *,
    n: int,
    epsilon: float,
    loss: str = "abs",
    side_information: list[int] | None = None,
    solver: str | None = None,
) -> dict[str, Any]:
    """A minimax user's LP optimum vs the geometric mechanism + best randomized remap."""
    import optmech
    from optmech.costs import parse_cost

    cost = parse_cost(loss)
    user = optmech.minimax_mechanism(
        cost, epsilon, n=n, side_information=side_information, solver=solver
    )
    ref = optmech.geometric_minimax(
        cost, epsilon, n=n, side_information=side_information, solver=solver
    )
    return {
        "value": user.value,
        "certified_epsilon": user.certified_epsilon,
        "geometric_remap_value": ref.value,
        "relative_gap": (user.value - ref.value) / ref.value if ref.value else user.value,
        "solver": user.solver,
        "solve_time": user.solve_time,
    }
