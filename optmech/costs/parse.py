"""Turning what a user passes (a `Cost`, a name, a callable) into a cost."""

from __future__ import annotations

from typing import Any

from optmech._validation import describe
from optmech.costs.base import Cost
from optmech.costs.builtin import Absolute, Asymmetric, Power, Squared, ZeroOne
from optmech.costs.custom import Custom

__all__ = ["as_cost", "parse_cost"]


def as_cost(cost: Any) -> Cost:
    """Coerce ``cost`` to a `Cost`: a Cost, a spec (see `parse_cost`) or a
    callable.

    Examples
    --------
    >>> as_cost("abs")
    Absolute()
    """
    if isinstance(cost, Cost):
        return cost
    if isinstance(cost, str):
        return parse_cost(cost)
    if callable(cost):
        return Custom(cost)
    raise TypeError(
        "`cost` must be an optmech.costs.Cost, a spec string such as 'abs', 'squared', "
        f"'power:3', 'zero-one:0.5', 'asym:3,1', or a vectorised callable; got {describe(cost)}."
    )


def parse_cost(spec: str) -> Cost:
    """Parse a cost spec as used by the CLI.

    ``abs``, ``squared``, ``power:P``, ``zero-one[:T]``, ``asym:OVER,UNDER[,P]``.

    Examples
    --------
    >>> parse_cost("power:3")
    Power(p=3.0)
    >>> parse_cost("asym:3,1")
    Asymmetric(over=3.0, under=1.0, p=1.0)
    """
    if not isinstance(spec, str):
        raise TypeError(f"`cost` spec must be a string; got {describe(spec)}.")
    name, _, arg = spec.strip().lower().partition(":")
    valid = "'abs', 'squared', 'power:P', 'zero-one[:T]', 'asym:OVER,UNDER[,P]'"
    try:
        if name in ("abs", "absolute", "l1") and not arg:
            return Absolute()
        if name in ("squared", "square", "l2", "sq") and not arg:
            return Squared()
        if name in ("power", "pow") and arg:
            return Power(float(arg))
        if name in ("zero-one", "zeroone", "01", "0-1"):
            return ZeroOne(float(arg) if arg else 0.0)
        if name in ("asym", "asymmetric") and arg:
            parts = [float(x) for x in arg.split(",")]
            if len(parts) not in (2, 3):
                raise ValueError("asym takes OVER,UNDER or OVER,UNDER,P")
            return Asymmetric(over=parts[0], under=parts[1], p=parts[2] if len(parts) == 3 else 1.0)
    except ValueError as exc:
        raise ValueError(
            f"`cost` spec {spec!r} is malformed ({exc}); valid specs: {valid}."
        ) from exc
    raise ValueError(f"`cost` spec must be one of {valid}; got {spec!r}.")
