"""The baselines of `optmech.shuffle_mechanism`: GRR and RR-on-Bins, each at the largest local ε₀
whose shuffled certificate meets the central target, and their values on the design's grid."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.shuffle import ShuffleGuarantee, shuffle_epsilon
from optmech.lp.matrix.envelope_setting import LocalSetting, resolve_local_setting
from optmech.lp.matrix.objectives import exact_upper_dot
from optmech.lp.shuffle.frontier import largest_certified
from optmech.lp.shuffle.result import ShuffleBaseline
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.mechanisms.randomized_response import randomized_response
from optmech.mechanisms.rr_on_bins import optimal_bins, rr_on_bins_matrix, supported_loss

__all__ = ["calibrated_baselines", "default_outputs", "embedded", "upper_value"]


def upper_value(prior: FloatArray | None, loss: FloatArray, matrix: FloatArray) -> float:
    """The expected loss (or the worst input's) of ``matrix``, rounded up."""
    if prior is None:
        return max(exact_upper_dot(row, q) for row, q in zip(loss, matrix, strict=True))
    return exact_upper_dot(prior[:, None] * loss, matrix)


def _loss_on(cost: Any, setting: LocalSetting, outputs: FloatArray) -> FloatArray | None:
    """The loss of the inputs at ``outputs``: columns of the setting's when they are on its
    grid, else the cost evaluated there; None for a loss matrix off the grid."""
    where = np.searchsorted(setting.outputs, outputs)
    where = np.minimum(where, setting.outputs.size - 1)
    if np.array_equal(setting.outputs[where], outputs):
        return setting.loss[:, where]
    if isinstance(cost, np.ndarray | list | tuple):
        return None
    return resolve_local_setting(
        None, cost, inputs=setting.inputs, outputs=outputs, max_memory_gb=math.inf
    ).loss


def _calibrate(
    name: str,
    make: Callable[[float], tuple[FloatArray, FloatArray]],
    setting: LocalSetting,
    cost: Any,
    epsilon: float,
    delta: float,
    n: int,
    tolerance: float,
    start: float | None,
) -> ShuffleBaseline | None:
    """The baseline ``make(ε₀) -> (matrix, outputs)`` at its largest ε₀ (by bisection) whose
    shuffled certificate is at most ``epsilon``, with its value; None when it has none or its
    loss cannot be evaluated. The bisection keeps the largest certified point it evaluated
    (its matrix and guarantee), which is the bracket's certified end."""
    kept: dict[float, tuple[FloatArray, FloatArray, ShuffleGuarantee]] = {}

    def central(eps0: float) -> float:
        matrix, outputs = make(eps0)
        guarantee = shuffle_epsilon(matrix, n, delta)
        if guarantee.epsilon <= epsilon and all(eps0 > e for e in kept):
            kept.clear()
            kept[eps0] = (matrix, outputs, guarantee)
        return guarantee.epsilon

    bracket = largest_certified(central, epsilon, tolerance, start)
    if bracket is None:
        return None
    matrix, outputs, guarantee = kept[bracket.certified]
    loss = _loss_on(cost, setting, outputs)
    if loss is None:
        return None
    return ShuffleBaseline(
        name=name,
        local_epsilon=bracket.certified,
        value=upper_value(setting.prior, loss, matrix),
        guarantee=guarantee,
        randomizer=LocalRandomizer(matrix, setting.inputs, outputs),
    )


def calibrated_baselines(
    setting: LocalSetting,
    cost: Any,
    epsilon: float,
    delta: float,
    n: int,
    tolerance: float,
    starts: tuple[float | None, float | None],
) -> dict[str, ShuffleBaseline]:
    """GRR on the inputs and, for the squared or absolute error under a prior, RR-on-Bins
    (its optimal bins at each ε₀; Ghazi et al. 2023), each calibrated to the target; their
    bisections start from ``starts`` (the frontier's largest and smallest ε₀: GRR's clone
    probability is the line θ = 1's, RR-on-Bins' with a bin of two labels or more θ = 0's)."""
    x = setting.inputs
    out: dict[str, ShuffleBaseline] = {}

    def grr(eps0: float) -> tuple[FloatArray, FloatArray]:
        return randomized_response(x.size, eps0), x

    found = _calibrate("GRR", grr, setting, cost, epsilon, delta, n, tolerance, starts[0])
    if found is not None:
        out["GRR"] = found
    prior = setting.prior
    if prior is None or isinstance(cost, np.ndarray | list | tuple):
        return out
    try:
        loss = supported_loss(cost)
    except (TypeError, ValueError):
        return out

    def bins(eps0: float) -> tuple[FloatArray, FloatArray]:
        sol = optimal_bins(x, prior, eps0, loss)
        matrix = rr_on_bins_matrix(sol.assignment, len(sol.bins), eps0)
        outputs, inverse = np.unique(sol.outputs, return_inverse=True)
        merged = np.zeros((x.size, outputs.size))  # two bins with one output: one column
        np.add.at(merged.T, inverse, matrix.T)
        return merged, outputs

    found = _calibrate("RR-on-Bins", bins, setting, cost, epsilon, delta, n, tolerance, starts[1])
    if found is not None:
        out["RR-on-Bins"] = found
    return out


def default_outputs(inputs: FloatArray, baselines: dict[str, ShuffleBaseline]) -> FloatArray:
    """The inputs and RR-on-Bins' outputs (so the LP's grid holds every baseline)."""
    extra = [np.asarray(b.randomizer.outputs, dtype=np.float64) for b in baselines.values()]
    return np.unique(np.concatenate([inputs, *extra]))


def embedded(base: ShuffleBaseline, setting: LocalSetting) -> FloatArray | None:
    """The baseline's matrix on the setting's output grid (None when an output is off it)."""
    outputs = np.asarray(base.randomizer.outputs, dtype=np.float64)
    where = np.minimum(np.searchsorted(setting.outputs, outputs), setting.outputs.size - 1)
    if not np.array_equal(setting.outputs[where], outputs):
        return None
    full = np.zeros((setting.num_inputs, setting.num_outputs))
    full[:, where] = base.randomizer.matrix
    return full
