"""The result of a dual certificate: a candidate mechanism proved optimal within a gap.

Built by `grs_certificate` and
`minimax_certificate` (Ghosh, Roughgarden
& Sundararajan (2012); Gupte & Sundararajan (2010)). It keeps the one result protocol of
`optmech.results`: the interval ``[lower_bound, value]`` is the
certificate's, its provenance says that no solver was run (solver ``"none"``, status ``"dual
certificate"``), and the privacy is the ε of the candidate, the geometric mechanism followed by
a remap: ε-DP by post-processing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech.provenance import Provenance
from optmech.results import BaseResult

__all__ = ["DualCertificate"]


@dataclass(frozen=True, repr=False)
class DualCertificate(BaseResult):
    """A candidate mechanism proved optimal, within ``gap``, by a dual point (no LP solved).

    A result of the protocol of `optmech.results`: ``upper_bound`` is
    `value`; `certified_epsilon` is `epsilon`, because the candidate — the range-restricted
    geometric mechanism (ε-DP, GRS §2) followed by a remap — is ε-DP by post-processing (it is
    not recomputed from floats: the certificate holds the remap, not the matrix); the
    `provenance` records that no solver ran (solver ``"none"``, status ``"dual certificate"``)
    and the interval with the accuracy asked. `certified` is the certificate's own verdict on
    optimality (``gap ≤ accuracy·|value|``); ``within_accuracy`` is the protocol's (relative to
    ``max(|value|, 1)``), and they agree for values of at least 1.

    Attributes
    ----------
    theorem : str
        What is certified, e.g. ``"GRS universal optimality"``.
    n : int
        Largest query result (inputs and outputs ``{0..n}``).
    epsilon : float
        The ε of the LP's privacy rows.
    loss : str
        The loss, by name.
    value : float
        The candidate's cost, rounded up: an upper bound on the LP optimum (the candidate is
        exactly ε-DP).
    lower_bound : float
        The dual bound, rounded down: the LP optimum is at least this.
    accuracy : float
        The requested relative accuracy: `certified` when ``gap ≤ accuracy·|value|``.
    assignment : ndarray of int, shape (n + 1,)
        The candidate's remap ``T(z)``: output ``z`` of ``G`` is reported as ``assignment[z]``.
    row_duals : ndarray, shape (n + 1,)
        The multipliers ``u`` of the row sums given by complementary slackness.
    worst_violation : float
        ``max_{i, r} (u_i − R[i, r])`` with ``R`` rounded down: how far the worst reduced cost
        falls below its row's multiplier (≤ 0 when the dual point is feasible for ``u``; a
        positive value costs the bound at most that much in its row).
    worst_row : tuple of int
        The dual row ``(i, r)`` (the reduced cost of ``x[i, r]``) where it happens.
    seconds : float
        Wall time of the whole certificate.
    """

    theorem: str
    n: int
    epsilon: float
    loss: str
    value: float
    lower_bound: float
    accuracy: float
    assignment: IntArray
    row_duals: FloatArray
    worst_violation: float
    worst_row: tuple[int, int]
    seconds: float

    _model: ClassVar[str] = "dual certificate"
    _dict_fields: ClassVar[tuple[str, ...]] = (
        "theorem",
        "n",
        "epsilon",
        "loss",
        "gap",
        "relative_gap",
        "certified",
        "accuracy",
        "worst_violation",
        "worst_row",
        "assignment",
        "seconds",
    )

    @property
    def model(self) -> str:
        """``"<theorem> (dual certificate)"``."""
        return f"{self.theorem} ({self._model})"

    @property
    def upper_bound(self) -> float:
        """`value`: the candidate's cost rounded up, the upper end of the interval."""
        return self.value

    @property
    def certified_epsilon(self) -> float:
        """`epsilon`: the candidate is ``G`` (ε-DP) followed by a remap, ε-DP by
        post-processing."""
        return self.epsilon

    @property
    def provenance(self) -> Provenance:
        """No solver: solver ``"none"``, status ``"dual certificate"``, the interval
        ``[lower_bound, value]``, the accuracy asked and the wall time."""
        return Provenance(
            solver="none",
            status="dual certificate",
            attempts=(),
            value=self.value,
            lower_bound=self.lower_bound,
            accuracy=self.accuracy,
            total_time=self.seconds,
        )

    @property
    def relative_gap(self) -> float:
        """``gap / |value|`` (``inf`` for a zero value with a positive gap)."""
        if self.value == 0.0:
            return 0.0 if self.gap <= 0.0 else math.inf
        return self.gap / abs(self.value)

    @property
    def certified(self) -> bool:
        """Whether the interval is finite and ``gap ≤ accuracy·|value|``."""
        finite = math.isfinite(self.value) and math.isfinite(self.lower_bound)
        return finite and self.gap <= self.accuracy * abs(self.value)

    def plot(self, ax: Any = None) -> Any:
        """The remap ``z ↦ T(z)`` against the identity; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 4))
        z = np.arange(self.n + 1)
        ax.plot(z, z, color="0.7", linewidth=1, label="identity")
        ax.step(z, self.assignment, where="mid", label="remap T(z)")
        ax.set_xlabel("output z of G")
        ax.set_ylabel("reported answer")
        verdict = "certified" if self.certified else "not certified"
        ax.set_title(f"{self.theorem}: {verdict}, gap {self.relative_gap:.2g}")
        ax.legend(fontsize=8)
        return ax

    def _fields(self) -> dict[str, Any]:
        fields = super()._fields()
        fields["worst_row"] = list(self.worst_row)
        return fields

    def _own_rows(self) -> list[tuple[str, Any]]:
        """Theorem, instance, the optimality verdict, relative gap, worst dual row, time."""
        i, r = self.worst_row
        side = "below" if self.worst_violation > 0 else "above"
        return [
            ("theorem", self.theorem),
            ("instance", f"n = {self.n}, ε = {self.epsilon:g}, {self.loss}"),
            ("certified optimal", "yes" if self.certified else "NO"),
            ("relative gap", f"{self.relative_gap:.3g} (accuracy {self.accuracy:.0e})"),
            (
                "worst dual row",
                f"reduced cost of x[{i}, {r}] {abs(self.worst_violation):.3g} {side} its row "
                "multiplier",
            ),
            ("time", f"{self.seconds:.2f} s"),
        ]

    def __repr__(self) -> str:
        return (
            f"DualCertificate({self.theorem!r}, n={self.n}, epsilon={self.epsilon:g}, "
            f"value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"certified={self.certified})"
        )
