"""Shared pieces of the count-query checks: random users, certified intervals, timing.

The random users follow the hypotheses of Ghosh, Roughgarden & Sundararajan (2012), §2.2:
priors on ``{0..n}`` (Dirichlet, some with zeros) and losses non-decreasing in ``|i − r|`` on
each side of ``i``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from optmech.certify.matrix import DEFAULT_RTOL
from optmech.costs import Absolute, Asymmetric, Cost, Power, Squared, ZeroOne
from optmech.theorems.catalogue import CheckResult

__all__ = [
    "PRIVACY_RULE",
    "interval_of",
    "loss_matrix",
    "privacy_ok",
    "privacy_terms",
    "random_epsilon",
    "random_loss",
    "random_monotone_loss",
    "random_prior",
    "timed",
]

#: The library's privacy contract for a returned mechanism (``check_dp``'s default slack for
#: the rounding of mechanisms private in exact arithmetic), stated in each row that uses it.
PRIVACY_RULE = f"certified ε ≤ ε·(1 + {DEFAULT_RTOL:.0e})"


def privacy_ok(certified: float | None, epsilon: float) -> bool:
    """Whether a certified ε meets `PRIVACY_RULE`."""
    return certified is not None and certified <= epsilon * (1.0 + DEFAULT_RTOL)


def privacy_terms(certified: float | None, epsilon: float) -> dict[str, Any]:
    """The keyword arguments of a row that also checks a result's privacy: its verdict under
    `PRIVACY_RULE` (``extra_ok``), that rule (``extra_rule``) and the certified
    ε the row reports (``certified_epsilon``)."""
    return {
        "extra_ok": privacy_ok(certified, epsilon),
        "extra_rule": PRIVACY_RULE,
        "certified_epsilon": certified,
    }


def interval_of(result: Any) -> tuple[float, float]:
    """``(lower_bound, value)`` of an LP-backed result: its provenance's certified interval.

    Results without a ``provenance`` (older versions of a result type) fall back to their flat
    ``lower_bound`` and ``value`` (a common mechanism: ``ratio``) fields.
    """
    prov = getattr(result, "provenance", None)
    if prov is not None:
        return float(prov.lower_bound), float(prov.value)
    low = getattr(result, "lower_bound", -math.inf)
    value = result.value if hasattr(result, "value") else result.ratio
    return float(low if low is not None else -math.inf), float(value)


def timed(make: Callable[..., CheckResult], *args: Any, **kwargs: Any) -> CheckResult:
    """``make(*args, **kwargs)`` with its wall time recorded in the row."""
    start = time.perf_counter()
    row = make(*args, **kwargs)
    return replace(row, seconds=time.perf_counter() - start)


def random_monotone_loss(rng: np.random.Generator, n: int, *, strict: bool = False) -> np.ndarray:
    """``l(i, r)`` = cumulated random non-negative steps away from ``i`` on each side.

    With ``strict=False`` about 30% of the steps are 0 (ties); with ``strict=True`` every step
    is at least 0.05 (strictly monotone in ``|i − r|``).
    """
    steps = rng.exponential(1.0, size=(n + 1, n + 1))
    steps = steps + 0.05 if strict else steps * (rng.random((n + 1, n + 1)) < 0.7)
    i = np.arange(n + 1)[:, None]
    r = np.arange(n + 1)[None, :]
    right = np.where(r > i, steps, 0.0).cumsum(axis=1)
    left = np.where(r < i, steps, 0.0)[:, ::-1].cumsum(axis=1)[:, ::-1]
    return np.where(r >= i, right, left)


def random_asymmetric(rng: np.random.Generator) -> tuple[str, Asymmetric]:
    """An asymmetric power loss ``over·e₊^p + under·e₋^p`` with a short label."""
    over, under = float(rng.uniform(0.2, 5)), float(rng.uniform(0.2, 5))
    p = float(rng.choice([0.5, 1.0, 2.0]))
    return f"asymmetric {over:.3g}·e₊^{p:g} + {under:.3g}·e₋^{p:g}", Asymmetric(
        over=over, under=under, p=p
    )


def random_users(
    rng: np.random.Generator, count: int, n_range: tuple[int, int], *, prior: bool = True
) -> Iterator[tuple[int, int, float, np.ndarray | None, str, Any]]:
    """``(k, n, ε, prior or None, label, loss)`` for ``count`` random users, drawn in that
    order from ``rng`` (``n`` uniform in ``n_range``; `random_epsilon`,
    `random_prior` and `random_loss` of kind ``k``)."""
    for k in range(count):
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        eps = random_epsilon(rng)
        p = random_prior(rng, n) if prior else None
        label, loss = random_loss(rng, n, k)
        yield k, n, eps, p, label, loss


def random_loss(rng: np.random.Generator, n: int, kind: int) -> tuple[str, Any]:
    """A monotone loss of kind ``kind`` (cycling): |e|, e², 0-1, threshold, asymmetric, √|e|,
    random monotone matrix (with ties). Returns a short label and the cost or matrix."""
    choice = kind % 7
    if choice == 0:
        return "|e|", Absolute()
    if choice == 1:
        return "e²", Squared()
    if choice == 2:
        return "0-1", ZeroOne()
    if choice == 3:
        t = float(rng.integers(1, 4))
        return f"threshold |e|>{t:g}", ZeroOne(t)
    if choice == 4:
        return random_asymmetric(rng)
    if choice == 5:
        return "√|e|", Power(0.5)
    return "random monotone matrix", random_monotone_loss(rng, n)


def random_prior(rng: np.random.Generator, n: int) -> np.ndarray:
    """A Dirichlet prior on ``{0..n}``; about 30% of them with some zero masses."""
    p = rng.dirichlet(np.full(n + 1, float(rng.choice([0.3, 1.0, 3.0]))))
    if rng.random() < 0.3:
        p[rng.random(n + 1) < 0.3] = 0.0
        if p.sum() == 0:
            p[0] = 1.0
        p /= p.sum()
    return p


def random_epsilon(rng: np.random.Generator) -> float:
    """ε log-uniform on [0.05, 5]."""
    return float(np.exp(rng.uniform(math.log(0.05), math.log(5.0))))


def loss_matrix(loss: Any, n: int) -> np.ndarray:
    """``L[i, r]`` over ``{0..n}²`` for a cost of ``r − i`` or a given matrix."""
    if isinstance(loss, Cost):
        return loss.loss_matrix(np.arange(n + 1), np.arange(n + 1))
    return np.asarray(loss, dtype=np.float64)
