"""Privacy guarantees: pure ε-DP, approximate (ε, δ)-DP and the guarantees beyond them.

Every guarantee is a frozen dataclass that validates on construction, so a guarantee that
exists is a valid one. ``ApproxDP(0, delta)`` is the (0, δ) guarantee of Geng, Ding, Guo &
Kumar. Beyond (ε, δ):

* `RenyiDP` — ``D_α(M(D) ‖ M(D')) ≤ ε(α)`` at one or several orders α > 1 (Mironov,
  2017, Definition 4);
* `ZCDP` — ρ-zero-concentrated DP, ``D_α ≤ ρα`` for every α > 1 (Bun & Steinke, 2016,
  Definition 1.1);
* `GaussianDP` — μ-GDP, the trade-off of ``N(0, 1)`` against ``N(μ, 1)``, equivalently
  ``δ(ε) ≤ Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` for every ε (Dong, Roth & Su, 2022,
  Corollary 2.13);
* `PrivacyProfile` — ``δ(ε_j) ≤ δ_j`` at finitely many points of the privacy
  profile.

`optmech.certify.profiles` certifies these for noise on ℤ;
`optmech.accounting` composes them.

References
----------
Mironov, I. (2017). Rényi differential privacy. IEEE CSF.
Bun, M. & Steinke, T. (2016). Concentrated differential privacy: simplifications, extensions,
and lower bounds. TCC.
Dong, J., Roth, A. & Su, W. J. (2022). Gaussian differential privacy. JRSS B 84(1), 3–37.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from optmech._scipy import optimize, special
from optmech._validation import check_real, describe

__all__ = [
    "ZCDP",
    "ApproxDP",
    "GaussianDP",
    "Privacy",
    "PrivacyProfile",
    "PureDP",
    "RenyiDP",
    "check_privacy",
    "gaussian_dp_delta",
    "parse_privacy",
]


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
    """Approximate (ε, δ)-differential privacy: $P(S) ≤ e^ε P(S + d) + δ$.

    Parameters
    ----------
    epsilon : float
        Privacy-loss bound, in [0, inf); 0 gives the (0, δ) guarantee.
    delta : float
        Additive slack, in (0, 1). For δ = 0 use `PureDP`.

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


#: What a guarantee accepts where it stores a tuple of reals.
_Reals = Sequence[float] | npt.NDArray[np.floating[Any]] | npt.NDArray[np.integer[Any]]


def _orders_or_values(
    name: str, value: Any, *, low: float, low_open: bool
) -> float | tuple[float, ...]:
    """A real in the range, or a non-empty 1-D sequence of them (returned as a tuple)."""
    if isinstance(value, numbers.Real) or (isinstance(value, np.ndarray) and value.ndim == 0):
        return check_real(name, value, low=low, low_open=low_open)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise TypeError(
            f"`{name}` must be a real number or a sequence of real numbers; got "
            f"{describe(value)} of type {type(value).__name__}."
        )
    if np.ndim(value) != 1 or len(value) == 0:
        raise ValueError(f"`{name}` must be a non-empty 1-D sequence; got {describe(value)}.")
    return tuple(
        check_real(f"{name}[{i}]", v, low=low, low_open=low_open) for i, v in enumerate(value)
    )


def _as_tuple(value: float | tuple[float, ...]) -> tuple[float, ...]:
    return value if isinstance(value, tuple) else (value,)


def _epsilon_points(epsilon: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The ε at which a profile is read, as a float array (±inf allowed, NaN refused).

    Examples
    --------
    >>> _epsilon_points([-np.inf, 0.5]).tolist()
    [-inf, 0.5]
    >>> PrivacyProfile(1.0, 0.1).delta(np.nan)
    Traceback (most recent call last):
    ...
    ValueError: `epsilon` must be real numbers; got NaN.
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    if np.any(np.isnan(eps)):
        raise ValueError("`epsilon` must be real numbers; got NaN.")
    return eps


def _check_delta_open(delta: Any) -> float:
    return check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)


@dataclass(frozen=True)
class ZCDP:
    """ρ-zero-concentrated differential privacy: ``D_α(M(D) ‖ M(D')) ≤ ρα`` for every α > 1.

    Bun & Steinke (2016), Definition 1.1 (with ξ = 0). The Gaussian mechanism with noise
    $N(0, σ²)$ and sensitivity Δ is $Δ²/(2σ²)$-zCDP, and so is the discrete Gaussian on ℤ
    (Canonne, Kamath & Steinke, 2020).

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ, in (0, inf).

    Examples
    --------
    >>> z = ZCDP(0.5)
    >>> z, str(z), z.renyi_epsilon(2.0)
    (ZCDP(rho=0.5), '0.5-zCDP', 1.0)
    >>> round(z.to_approx(1e-6).epsilon, 6)  # ρ + 2√(ρ log(1/δ))
    5.756522
    """

    rho: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", check_real("rho", self.rho, low=0.0, low_open=True))

    def renyi_epsilon(self, alpha: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
        """The implied Rényi curve $ε(α) = ρα$ at orders ``alpha`` (each in (1, inf))."""
        a = np.asarray(alpha, dtype=np.float64)
        if not np.all(np.isfinite(a) & (a > 1.0)):
            bad = float(a[~(np.isfinite(a) & (a > 1.0))].flat[0])
            raise ValueError(f"`alpha` must be a finite real number in (1, inf); got {bad!r}.")
        out = self.rho * a
        return float(out) if out.ndim == 0 else out

    def to_approx(self, delta: float) -> ApproxDP:
        """A valid, not tight, (ε, δ) guarantee: $ε = ρ + 2√(ρ log(1/δ))$.

        Bun & Steinke (2016), Proposition 1.3. Tighter conversions exist (e.g. Canonne, Kamath &
        Steinke, 2020, Proposition 12); this one is the classical closed form.

        Parameters
        ----------
        delta : float
            In (0, 1).
        """
        d = _check_delta_open(delta)
        return ApproxDP(self.rho + 2.0 * math.sqrt(self.rho * math.log(1.0 / d)), d)

    def __str__(self) -> str:
        return f"{self.rho:g}-zCDP"


@dataclass(frozen=True)
class RenyiDP:
    """(α, ε)-Rényi differential privacy, at one order or several at once.

    ``D_α(M(D) ‖ M(D')) ≤ ε`` for neighbours D, D' (Mironov, 2017, Definition 4); with
    sequences, one bound per order.

    Parameters
    ----------
    alpha : float or sequence of float
        Order(s) α, each in (1, inf), distinct. A sequence is stored as a tuple.
    epsilon : float or sequence of float
        Bound(s) ε(α), each in [0, inf); a scalar with a scalar ``alpha``, a sequence of the
        same length with a sequence.

    Examples
    --------
    >>> RenyiDP(2, 0.5)
    RenyiDP(alpha=2.0, epsilon=0.5)
    >>> r = RenyiDP([2, 8], [0.5, 1.5])
    >>> str(r), r.orders
    ('(α, ε)-RDP at (2, 0.5), (8, 1.5)', (2.0, 8.0))
    >>> round(r.to_approx(1e-6).epsilon, 4)  # min over orders of ε + log(1/δ)/(α − 1)
    3.4736
    """

    alpha: float | tuple[float, ...]
    epsilon: float | tuple[float, ...]

    if TYPE_CHECKING:  # any sequence (or 1-D array) is accepted, and stored as a tuple

        def __init__(self, alpha: float | _Reals, epsilon: float | _Reals) -> None: ...

    def __post_init__(self) -> None:
        alpha = _orders_or_values("alpha", self.alpha, low=1.0, low_open=True)
        eps = _orders_or_values("epsilon", self.epsilon, low=0.0, low_open=False)
        if isinstance(alpha, tuple) != isinstance(eps, tuple) or len(_as_tuple(alpha)) != len(
            _as_tuple(eps)
        ):
            raise ValueError(
                "`alpha` and `epsilon` must both be scalars or sequences of the same length; "
                f"got {len(_as_tuple(alpha))} order(s) and {len(_as_tuple(eps))} bound(s)."
            )
        orders = _as_tuple(alpha)
        if len(set(orders)) != len(orders):
            raise ValueError(f"`alpha` must hold distinct orders; got {orders!r}.")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "epsilon", eps)

    @property
    def orders(self) -> tuple[float, ...]:
        """The orders α as a tuple (one entry for a scalar guarantee)."""
        return _as_tuple(self.alpha)

    @property
    def epsilons(self) -> tuple[float, ...]:
        """The bounds ε(α) as a tuple, in the order of `orders`."""
        return _as_tuple(self.epsilon)

    def to_approx(self, delta: float) -> ApproxDP:
        """(ε, δ)-DP with $ε = min over orders of ε(α) + log(1/δ)/(α − 1)$.

        Mironov (2017), Proposition 3.

        Parameters
        ----------
        delta : float
            In (0, 1).
        """
        d = _check_delta_open(delta)
        log_inv = math.log(1.0 / d)
        eps = min(e + log_inv / (a - 1.0) for a, e in zip(self.orders, self.epsilons, strict=True))
        return ApproxDP(eps, d)

    def __str__(self) -> str:
        pairs = ", ".join(
            f"({a:g}, {e:g})" for a, e in zip(self.orders, self.epsilons, strict=True)
        )
        return f"(α, ε)-RDP at {pairs}"


def gaussian_dp_delta(mu: float, epsilon: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
    """``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``, in log space (no cancellation to 0).

    Computed as ``Φ(a)·(−expm1(ε + log Φ(b) − log Φ(a)))`` with ``log Φ`` from
    `scipy.special.log_ndtr`, so it keeps its relative precision where both terms are far
    below the smallest float. Private formula: ``mu`` and ``epsilon`` are trusted.
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    a = -eps / mu + 0.5 * mu
    b = -eps / mu - 0.5 * mu
    log_a = special.log_ndtr(a)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.minimum(eps + special.log_ndtr(b) - log_a, 0.0)
        out = np.exp(log_a) * -np.expm1(x)
    out = np.where(np.isnan(out), np.where(eps > 0, 0.0, 1.0), out)  # ε = ±inf
    out = np.clip(out, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class GaussianDP:
    """μ-Gaussian differential privacy (Dong, Roth & Su, 2022, Definition 2.6).

    Distinguishing neighbours is at least as hard as telling ``N(0, 1)`` from $N(μ, 1)$;
    equivalently, for every ε, $δ(ε) ≤ δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)$
    (Corollary 2.13). Gaussian noise $N(0, σ²)$ with sensitivity Δ is $Δ/σ$-GDP.

    Parameters
    ----------
    mu : float
        In (0, inf).

    Examples
    --------
    >>> g = GaussianDP(1.0)
    >>> str(g), round(g.delta(0.0), 6)  # δ_μ(0) = 2Φ(μ/2) − 1
    ('1-GDP', 0.382925)
    >>> round(g.to_approx(1e-5).epsilon, 4)
    4.3772
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, low=0.0, low_open=True))

    def delta(self, epsilon: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
        """The implied profile $δ_μ(ε)$ at each ``epsilon`` (real numbers), computed stably."""
        return gaussian_dp_delta(self.mu, _epsilon_points(epsilon))

    def to_approx(self, delta: float) -> ApproxDP:
        """(ε, δ)-DP with the smallest ε ≥ 0 such that $δ_μ(ε) ≤ δ$ (to 1e-12 relative, up).

        Parameters
        ----------
        delta : float
            In (0, 1).
        """
        d = _check_delta_open(delta)
        if gaussian_dp_delta(self.mu, 0.0) <= d:
            return ApproxDP(0.0, d)
        hi = 1.0
        while gaussian_dp_delta(self.mu, hi) > d:
            hi *= 2.0
        root = optimize.brentq(
            lambda e: math.log(max(gaussian_dp_delta(self.mu, e), 1e-320)) - math.log(d),
            0.0,
            hi,
            xtol=1e-14,
            rtol=1e-13,
        )
        eps = root * (1.0 + 1e-12) + 1e-13  # the root rounded up: δ_μ(ε) ≤ δ
        while gaussian_dp_delta(self.mu, eps) > d:
            eps = eps * (1.0 + 1e-12) + 1e-13
        return ApproxDP(eps, d)

    def __str__(self) -> str:
        return f"{self.mu:g}-GDP"


@dataclass(frozen=True)
class PrivacyProfile:
    """Points of a privacy profile: $δ(ε_j) ≤ δ_j$ for each j.

    ``δ(ε) = sup_S P(M(D) ∈ S) − e^ε P(M(D') ∈ S)`` over neighbours is non-increasing in ε, so
    a valid profile has strictly increasing ``epsilons`` and non-increasing ``deltas``; by the
    same monotonicity $δ(ε) ≤ δ_j$ for every ε ≥ ε_j (`delta`).

    Parameters
    ----------
    epsilons : float or sequence of float
        ε_j, each in [0, inf), strictly increasing. Stored as a tuple.
    deltas : float or sequence of float
        δ_j, each in [0, 1], non-increasing, one per ε_j. Stored as a tuple.

    Examples
    --------
    >>> p = PrivacyProfile([0.5, 1.0], [1e-2, 1e-3])
    >>> str(p)
    'δ(0.5) ≤ 0.01, δ(1) ≤ 0.001'
    >>> p.delta([0.0, 0.7, 2.0]).tolist()
    [1.0, 0.01, 0.001]
    """

    epsilons: tuple[float, ...]
    deltas: tuple[float, ...]

    if TYPE_CHECKING:  # a real, any sequence (or 1-D array) is accepted, and stored as a tuple

        def __init__(self, epsilons: float | _Reals, deltas: float | _Reals) -> None: ...

    def __post_init__(self) -> None:
        eps = _as_tuple(_orders_or_values("epsilons", self.epsilons, low=0.0, low_open=False))
        dlt = _orders_or_values("deltas", self.deltas, low=0.0, low_open=False)
        dlt = _as_tuple(dlt)
        if len(eps) != len(dlt):
            raise ValueError(
                f"`epsilons` and `deltas` must have the same length; got {len(eps)} and {len(dlt)}."
            )
        for i, d in enumerate(dlt):
            if d > 1.0:
                raise ValueError(
                    f"`deltas[{i}]` must be a finite real number in [0, 1]; got {d!r}."
                )
        for i in range(1, len(eps)):
            if not eps[i] > eps[i - 1]:
                raise ValueError(
                    f"`epsilons` must be strictly increasing: `epsilons[{i}]` must be in "
                    f"({eps[i - 1]:g}, inf); got {eps[i]!r}. Sort the points by ε."
                )
            if dlt[i] > dlt[i - 1]:
                raise ValueError(
                    f"`deltas` must be non-increasing (a privacy profile is): `deltas[{i}]` "
                    f"must be in [0, {dlt[i - 1]:g}]; got {dlt[i]!r}."
                )
        object.__setattr__(self, "epsilons", eps)
        object.__setattr__(self, "deltas", dlt)

    def delta(self, epsilon: npt.ArrayLike) -> float | npt.NDArray[np.float64]:
        """The implied bound at ``epsilon``: $δ_j$ of the largest $ε_j ≤ ε$, else 1."""
        eps = _epsilon_points(epsilon)
        idx = np.searchsorted(np.asarray(self.epsilons), eps, side="right") - 1
        table = np.append(np.asarray(self.deltas), 1.0)  # index −1 → 1
        out = table[idx]
        return float(out) if out.ndim == 0 else out

    def __str__(self) -> str:
        return ", ".join(
            f"δ({e:g}) ≤ {d:g}" for e, d in zip(self.epsilons, self.deltas, strict=True)
        )


Privacy = PureDP | ApproxDP | ZCDP | RenyiDP | GaussianDP | PrivacyProfile


def check_privacy(privacy: Any, *, beyond: bool = False) -> Any:
    """``privacy`` if it is a `PureDP` or `ApproxDP` guarantee; with
    ``beyond=True`` also `ZCDP`, `RenyiDP`, `GaussianDP` or
    `PrivacyProfile`.

    Examples
    --------
    >>> check_privacy(PureDP(1.0))
    PureDP(epsilon=1.0)
    >>> check_privacy(ZCDP(0.5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: `privacy` must be optmech.PureDP(epsilon) or ... got ZCDP(rho=0.5).
    """
    kinds: tuple[type, ...] = (PureDP, ApproxDP)
    names = "optmech.PureDP(epsilon) or optmech.ApproxDP(epsilon, delta)"
    if beyond:
        kinds += (ZCDP, RenyiDP, GaussianDP, PrivacyProfile)
        names = (
            "optmech.PureDP(epsilon), ApproxDP(epsilon, delta), ZCDP(rho), RenyiDP(alpha, "
            "epsilon), GaussianDP(mu) or PrivacyProfile(epsilons, deltas)"
        )
    if not isinstance(privacy, kinds):
        raise TypeError(f"`privacy` must be {names}; got {describe(privacy)}.")
    return privacy


_FORMS = (
    "'eps=E', 'delta=D', 'eps=E,delta=D', 'zcdp=RHO', 'gdp=MU', 'rdp=ALPHA:EPS[;ALPHA:EPS...]' "
    "or 'profile=EPS:DELTA[,EPS:DELTA...]'"
)
_KINDS = {"zcdp": "zcdp", "rho": "zcdp", "gdp": "gdp", "mu": "gdp", "rdp": "rdp", "renyi": "rdp"}
_KINDS["profile"] = "profile"


def _pairs(spec: str, value: str, separator: str) -> tuple[list[float], list[float]]:
    """``a:b`` pairs separated by ``separator``, as two lists of floats."""
    first, second = [], []
    for item in value.split(separator):
        left, colon, right = item.strip().partition(":")
        if not colon:
            raise ValueError(f"`privacy` must be {_FORMS}; got {spec!r} (missing ':').")
        try:
            first.append(float(left))
            second.append(float(right))
        except ValueError as exc:
            raise ValueError(f"`privacy` must be {_FORMS} with numbers; got {spec!r}.") from exc
    return first, second


def _parse_beyond(spec: str, kind: str, value: str) -> Privacy:
    if kind == "rdp":
        orders, eps = _pairs(spec, value, ";")
        return (
            RenyiDP(orders[0], eps[0]) if len(orders) == 1 else RenyiDP(tuple(orders), tuple(eps))
        )
    if kind == "profile":
        eps, deltas = _pairs(spec, value, ",")
        return PrivacyProfile(tuple(eps), tuple(deltas))
    try:
        number = float(value)
    except ValueError as exc:
        raise ValueError(f"`privacy` must be {_FORMS} with numbers; got {spec!r}.") from exc
    return ZCDP(number) if kind == "zcdp" else GaussianDP(number)


def parse_privacy(spec: str) -> Privacy:
    """Parse a privacy specification string.

    Forms: ``eps=E`` (`PureDP`), ``delta=D`` (``ApproxDP(0, D)``), ``eps=E,delta=D``
    (`ApproxDP`), ``zcdp=RHO`` (`ZCDP`), ``gdp=MU``
    (`GaussianDP`),
    ``rdp=ALPHA:EPS`` with several orders separated by ``;`` (`RenyiDP`), and
    ``profile=EPS:DELTA`` with several points separated by ``,``
    (`PrivacyProfile`).

    Examples
    --------
    >>> parse_privacy("eps=1,delta=1e-6")
    ApproxDP(epsilon=1.0, delta=1e-06)
    >>> parse_privacy("zcdp=0.5"), parse_privacy("gdp=1")
    (ZCDP(rho=0.5), GaussianDP(mu=1.0))
    >>> parse_privacy("rdp=2:0.5;8:1.5")
    RenyiDP(alpha=(2.0, 8.0), epsilon=(0.5, 1.5))
    >>> parse_privacy("profile=0.5:1e-2,1:1e-3")
    PrivacyProfile(epsilons=(0.5, 1.0), deltas=(0.01, 0.001))
    """
    if not isinstance(spec, str):
        raise TypeError(f"`privacy` spec must be a string such as 'eps=1'; got {spec!r}.")
    head, sep, rest = spec.strip().partition("=")
    kind = _KINDS.get(head.strip().lower())
    if kind is not None:
        if not sep or not rest.strip():
            raise ValueError(f"`privacy` must be {_FORMS}; got {spec!r}.")
        return _parse_beyond(spec, kind, rest)
    fields: dict[str, float] = {}
    for part in spec.split(","):
        key, sep, value = part.strip().partition("=")
        key = {"epsilon": "eps", "e": "eps", "d": "delta"}.get(key.strip().lower(), key.strip())
        if not sep or key not in ("eps", "delta") or key in fields:
            raise ValueError(f"`privacy` must be {_FORMS}; got {spec!r}.")
        try:
            fields[key] = float(value)
        except ValueError as exc:
            raise ValueError(f"`privacy` must be {_FORMS} with numbers; got {spec!r}.") from exc
    if "delta" not in fields:
        return PureDP(fields["eps"])
    return ApproxDP(fields.get("eps", 0.0), fields["delta"])
