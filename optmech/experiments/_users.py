"""Random count-query users shared by ``grs-users`` and ``minimax-remaps``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from optmech.costs import Absolute, Asymmetric, Squared, ZeroOne

__all__ = [
    "LOSS_KINDS",
    "USER_COLUMNS",
    "random_loss",
    "random_prior",
    "random_setting",
    "user_rows",
]

LOSS_KINDS = ("|e|", "e²", "0-1", "threshold 1", "asymmetric 2:1", "random monotone")
#: The first CSV columns of a random user's row (``user_rows``).
USER_COLUMNS = ["user", "loss", "n", "epsilon"]


def random_setting(rng: np.random.Generator, k: int, n_max: int) -> tuple[str, int, float]:
    """The ``k``-th user's loss kind (cycling), size ``n ∈ [3, n_max]`` and ε (log-uniform on
    [0.1, 4]), drawn in that order."""
    kind = LOSS_KINDS[k % len(LOSS_KINDS)]
    n = int(rng.integers(3, n_max + 1))
    eps = float(np.exp(rng.uniform(np.log(0.1), np.log(4.0))))
    return kind, n, eps


def random_prior(rng: np.random.Generator, n: int) -> np.ndarray:
    """A Dirichlet(1/2) prior over {0..n}, with some zeros."""
    p = rng.dirichlet(np.full(n + 1, 0.5))
    zeros = rng.random(n + 1) < 0.2
    if zeros.all():
        zeros[rng.integers(n + 1)] = False
    p[zeros] = 0.0
    return p / p.sum()


def random_loss(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """Loss matrix ``L[i, r]`` over {0..n}, non-decreasing in ``|i − r|`` on each side."""
    values = np.arange(n + 1)
    costs: dict[str, Any] = {
        "|e|": Absolute(),
        "e²": Squared(),
        "0-1": ZeroOne(),
        "threshold 1": ZeroOne(1.0),
        "asymmetric 2:1": Asymmetric(over=2.0, under=1.0),
    }
    if kind in costs:
        return np.asarray(costs[kind].loss_matrix(values, values), dtype=float)
    # Random monotone: per input, cumulative sums of non-negative steps on each side.
    steps = rng.exponential(1.0, size=(n + 1, 2 * n + 1))
    dist = values[None, :] - values[:, None]  # r − i
    right = np.cumsum(steps[:, : n + 1], axis=1)
    left = np.cumsum(steps[:, n + 1 :], axis=1)
    loss = np.zeros((n + 1, n + 1))
    for_right = dist > 0
    for_left = dist < 0
    rows = np.broadcast_to(values[:, None], dist.shape)
    loss[for_right] = right[rows[for_right], dist[for_right] - 1]
    loss[for_left] = left[rows[for_left], -dist[for_left] - 1]
    return loss


def user_rows(
    seed: int,
    count: int,
    n_max: int,
    measure: Callable[[np.random.Generator, str, int, float], list[Any]],
) -> list[list[Any]]:
    """CSV rows of ``count`` random users, all drawn from one generator seeded with ``seed``.

    Parameters
    ----------
    seed : int
        Seed of the generator.
    count : int
        Number of users.
    n_max : int
        Largest ``n`` of a user (`random_setting`).
    measure : callable
        ``measure(rng, kind, n, epsilon)`` draws the rest of the user from ``rng`` and returns
        the rest of its row.

    Returns
    -------
    list of list
        Row ``k`` is ``[k, kind, n, epsilon, *measure(rng, kind, n, epsilon)]`` (columns
        `USER_COLUMNS` first), with ``kind, n, epsilon`` from
        `random_setting`.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(count):
        kind, n, eps = random_setting(rng, k, n_max)
        rows.append([k, kind, n, eps, *measure(rng, kind, n, eps)])
    return rows
