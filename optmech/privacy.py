"""Privacy guarantees: pure ε-DP and approximate (ε, δ)-DP.

Both are frozen dataclasses that validate on construction, so a guarantee that exists is a
valid one. ``ApproxDP(0, delta)`` is the (0, δ) guarantee of Geng, Ding, Guo & Kumar
(seed 004).
"""

from __future__ import annotations

from dataclasses import dataclass

from optmech._validation import check_real

__all__ = ["ApproxDP", "Privacy", "PureDP", "parse_privacy"]


@dataclass(frozen=True)
class PureDP:
    """Pure ε-differential privacy.

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound, in (0, inf).

    Examples
    --------
    >>> PureDP(1.0)
    PureDP(epsilon=1.0)
    """

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "epsilon", check_real("epsilon", self.epsilon, low=0.0, low_open=True)
        )

    @property
    def delta(self) -> float:
        """The δ of a pure guarantee, 0."""
        return 0.0

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


@dataclass(frozen=True)
class ApproxDP:
    """Approximate (ε, δ)-differential privacy: ``P(S) ≤ e^ε P(S + d) + δ``.

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound, in [0, inf); 0 gives the (0, δ) guarantee.
    delta : float
        Additive slack, in (0, 1). For δ = 0 use :class:`PureDP`.

    Examples
    --------
    >>> ApproxDP(0, 0.25)
    ApproxDP(epsilon=0.0, delta=0.25)
    """

    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0))
        object.__setattr__(
            self,
            "delta",
            check_real(
                "delta",
                self.delta,
                low=0.0,
                high=1.0,
                low_open=True,
                high_open=True,
                hint="use PureDP(epsilon) for delta = 0",
            ),
        )

    def __str__(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


Privacy = PureDP | ApproxDP


def parse_privacy(spec: str) -> PureDP | ApproxDP:
    """Parse ``eps=E`` (PureDP), ``delta=D`` (ApproxDP(0, D)) or ``eps=E,delta=D`` (ApproxDP).

    Examples
    --------
    >>> parse_privacy("eps=1,delta=1e-6")
    ApproxDP(epsilon=1.0, delta=1e-06)
    """
    if not isinstance(spec, str):
        raise TypeError(f"`privacy` spec must be a string such as 'eps=1'; got {spec!r}.")
    fields: dict[str, float] = {}
    valid = "'eps=E', 'delta=D' or 'eps=E,delta=D'"
    for part in spec.split(","):
        key, sep, value = part.strip().partition("=")
        key = {"epsilon": "eps", "e": "eps", "d": "delta"}.get(key.strip().lower(), key.strip())
        if not sep or key not in ("eps", "delta") or key in fields:
            raise ValueError(f"`privacy` must be {valid}; got {spec!r}.")
        try:
            fields[key] = float(value)
        except ValueError as exc:
            raise ValueError(f"`privacy` must be {valid} with numbers; got {spec!r}.") from exc
    if "delta" not in fields:
        return PureDP(fields["eps"])
    return ApproxDP(fields.get("eps", 0.0), fields["delta"])
