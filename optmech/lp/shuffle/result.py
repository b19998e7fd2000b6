"""The result of `shuffle_mechanism`: a local randomizer designed for a central guarantee after
shuffling, its certificate, the frontier searched and the calibrated baselines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optmech._floats import FloatArray
from optmech.certify.shuffle import ShuffleGuarantee
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.provenance import Provenance
from optmech.results import MechanismResult

__all__ = ["FrontierPoint", "ShuffleBaseline", "ShuffleMechanism", "VariationPoint"]


@dataclass(frozen=True)
class FrontierPoint:
    """One line of the (ε₀, p) frontier searched (`optmech.lp.shuffle.frontier`).

    Attributes
    ----------
    theta : float
        The line: clone probability ``p_θ(ε₀) = (1 − θ) e^(−ε₀) + θ · 2/(e^ε₀ + 1)``.
    local_epsilon : float
        The largest ε₀ found whose bound meets the target (the LP is solved there).
    excluded_epsilon : float or None
        The smallest ε₀ found whose bound misses it (None: none up to ε₀ = 50).
    clone_probability : float
        ``p_θ`` at `local_epsilon`: the blanket rows of the LP.
    value : float or None
        The LP's certified value at `local_epsilon` (None when it failed).
    central_epsilon : float or None
        The central ε `shuffle_epsilon` certifies for that LP's matrix.
    accepted : bool
        Whether that certificate meets the target (only accepted matrices can be returned).
    lower_bound : float
        The LP's rigorous lower bound at `excluded_epsilon` (at `local_epsilon` when nothing
        was excluded; 0 when that LP failed).
    """

    theta: float
    local_epsilon: float
    excluded_epsilon: float | None
    clone_probability: float
    value: float | None
    central_epsilon: float | None
    accepted: bool
    lower_bound: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class VariationPoint:
    """One variation line searched (`optmech.lp.shuffle.frontier`): the LP with the variation
    row ``Σ_y t_y ≥ 1 − β_b(ε₀)``, each ε₀ judged by the certificate of the LP's own matrix.

    Attributes
    ----------
    outputs_count : float
        The line: ``β_b(ε₀) = (e^ε₀ − 1)/(e^ε₀ + b − 1)`` with ``b = outputs_count`` (1: no row).
    local_epsilon : float
        The largest ε₀ found whose LP matrix is certified at the target (None found: the
        line is not reported).
    excluded_epsilon : float or None
        The smallest ε₀ found above it whose LP matrix is not (None: none up to ε₀ = 50).
    variation : float
        ``β_b`` at `local_epsilon`.
    value : float
        The LP's value at `local_epsilon`.
    central_epsilon : float
        The central ε `shuffle_epsilon` certifies for that LP's matrix (at most the target).
    lower_bound : float
        The LP's rigorous lower bound at `excluded_epsilon` (at `local_epsilon` when nothing
        was excluded; 0 when that LP failed): a bound over the line's LP-feasible matrices up
        to that ε₀, not over every matrix the certificate accepts.
    """

    outputs_count: float
    local_epsilon: float
    excluded_epsilon: float | None
    variation: float
    value: float
    central_epsilon: float
    lower_bound: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class ShuffleBaseline:
    """A classical randomizer calibrated to the same central target: its largest ε₀ (found by
    bisection) whose shuffled guarantee is certified at most the target, and its value under
    the same prior (or the worst input) and cost.

    Attributes
    ----------
    name : str
        ``"GRR"`` (generalised randomized response on the inputs) or ``"RR-on-Bins"``.
    local_epsilon : float
    value : float
        Its expected loss (or worst input's), rounded up.
    guarantee : ShuffleGuarantee
        Its certificate.
    randomizer : LocalRandomizer
        Its matrix, inputs and outputs.
    """

    name: str
    local_epsilon: float
    value: float
    guarantee: ShuffleGuarantee = field(repr=False)
    randomizer: LocalRandomizer = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Name, ε₀, value, certified central ε and the outputs used."""
        return {
            "name": self.name,
            "local_epsilon": self.local_epsilon,
            "value": self.value,
            "central_epsilon": self.guarantee.epsilon,
            "outputs": np.asarray(self.randomizer.outputs, dtype=np.float64).tolist(),
        }


@dataclass(frozen=True, repr=False)
class ShuffleMechanism(MechanismResult):
    """A local randomizer whose n shuffled reports are certified central (ε, δ)-DP
    (`shuffle_mechanism`).

    ``value`` is the randomizer's expected loss (or its worst input's), rounded up;
    ``lower_bound`` the least LP bound over the frontier searched, a lower bound over the
    family searched, not over every randomizer (`shuffle_mechanism`); ``certified_epsilon`` the
    central ε of `guarantee`, never the target.

    Attributes
    ----------
    mechanism : ndarray, shape (k, m)
        ``Q[i, r] = P(output r | input i)``.
    inputs, outputs : ndarray
    epsilon, delta : float
        The central target.
    n : int
        Number of users whose reports are shuffled.
    guarantee : ShuffleGuarantee
        `shuffle_epsilon` of `mechanism`: ``guarantee.epsilon ≤ epsilon``.
    frontier : tuple of FrontierPoint
        The blanket lines searched, in order of θ.
    baselines : dict of str to ShuffleBaseline
        GRR and (squared or absolute error, Bayesian) RR-on-Bins calibrated to the target.
    objective : str
        ``"bayesian"`` or ``"minimax"``.
    source : str
        Which candidate was returned (``"LP, θ = 0.5"``, or a baseline when none of the LP
        points beat it on the grid).
    provenance : Provenance
        The chosen LP's provenance, its interval replaced by ``[lower_bound, value]``.
    variation : tuple of VariationPoint
        The variation lines searched, in order of ``b`` (those with a certified point).

    Examples
    --------
    >>> import optmech
    >>> res = optmech.shuffle_mechanism("uniform", "squared", 1.0, 1e-6, n=1000,
    ...                                 inputs=[0, 1, 2], thetas=(1.0,))
    >>> bool(res.guarantee.epsilon <= 1.0 and res.local_epsilon > 1.0)
    True
    """

    mechanism: FloatArray
    inputs: FloatArray
    outputs: FloatArray
    epsilon: float
    delta: float
    n: int
    guarantee: ShuffleGuarantee
    frontier: tuple[FrontierPoint, ...]
    baselines: dict[str, ShuffleBaseline]
    objective: str
    source: str
    provenance: Provenance
    variation: tuple[VariationPoint, ...] = ()

    _model = "shuffle (local randomizer for a central target)"
    _dict_fields = (
        "epsilon",
        "delta",
        "n",
        "local_epsilon",
        "objective",
        "source",
        "inputs",
        "outputs",
        "mechanism",
    )

    @property
    def certified_epsilon(self) -> float:
        """The central ε certified for the n shuffled reports (`guarantee`)."""
        return self.guarantee.epsilon

    @property
    def local_epsilon(self) -> float:
        """ε₀ of the randomizer, certified (rounded up)."""
        return self.guarantee.local_epsilon

    @property
    def randomizer(self) -> LocalRandomizer:
        """The mechanism as a `LocalRandomizer` over `inputs` and `outputs`."""
        return LocalRandomizer(self.mechanism, self.inputs, self.outputs)

    def rvs(self, x: Any, size: Any = None, rng: Any = None) -> Any:
        """One user's report: draws of the outputs for the input value(s) ``x``
        (`LocalRandomizer.rvs` of `randomizer`)."""
        return self.randomizer.rvs(x, size, rng)

    def _privacy_requested(self) -> str | None:
        return f"central (ε, δ) = ({self.epsilon:g}, {self.delta:g}), n = {self.n}"

    def _privacy_met(self, rtol: float) -> bool | None:
        return bool(self.guarantee.epsilon <= self.epsilon * (1.0 + rtol))

    def _privacy_rows(self) -> list[tuple[str, Any]]:
        return [
            ("certified central ε", self.guarantee.epsilon),
            ("local ε₀", self.local_epsilon),
            ("certificate", self.guarantee.method),
        ]

    def _own_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("users n", self.n), ("returned", self.source)]
        for name, base in self.baselines.items():
            rows.append((f"{name} (ε₀ {base.local_epsilon:.4g})", base.value))
        return rows

    def _fields(self) -> dict[str, Any]:
        out = super()._fields()
        out["guarantee"] = {
            "epsilon": self.guarantee.epsilon,
            "lower_bound": self.guarantee.lower_bound,
            "method": self.guarantee.method,
            "bounds": self.guarantee.bounds,
        }
        out["frontier"] = [point.to_dict() for point in self.frontier]
        out["variation"] = [point.to_dict() for point in self.variation]
        out["baselines"] = {name: base.to_dict() for name, base in self.baselines.items()}
        return out

    def _plot_title(self) -> str:
        return f"shuffled n = {self.n}: ε ≤ {self.certified_epsilon:.4g}, value {self.value:.4g}"

    def __repr__(self) -> str:
        return (
            f"ShuffleMechanism(value={self.value:.6g}, lower_bound={self.lower_bound:.6g}, "
            f"certified_epsilon={self.certified_epsilon:.6g}, "
            f"local_epsilon={self.local_epsilon:.6g}, n={self.n}, delta={self.delta:g})"
        )
