"""The result of a dual certificate: a candidate mechanism proved optimal within a gap.

Built by [`grs_certificate`][optmech.theorems.certificates.grs_certificate] and
[`minimax_certificate`][optmech.theorems.certificates.minimax_certificate] (Ghosh, Roughgarden
& Sundararajan (2012); Gupte & Sundararajan (2010)).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from optmech._floats import FloatArray, IntArray
from optmech.results import json_safe

__all__ = ["DualCertificate"]


@dataclass(frozen=True, repr=False)
class DualCertificate:
    """A candidate mechanism proved optimal, within ``gap``, by a dual point (no LP solved).

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

    @property
    def gap(self) -> float:
        """``value − lower_bound`` (≥ 0): how far the candidate can be from the optimum."""
        return self.value - self.lower_bound

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

    def summary(self) -> str:
        """Two lines: the verdict with the interval, and the worst dual row."""
        verdict = "certified" if self.certified else "NOT certified"
        i, r = self.worst_row
        return (
            f"{self.theorem}, n = {self.n}, ε = {self.epsilon:g}, {self.loss}: {verdict}; "
            f"optimum in [{self.lower_bound:.12g}, {self.value:.12g}] (relative gap "
            f"{self.relative_gap:.3g}, accuracy {self.accuracy:.0e})\n"
            f"worst dual row: reduced cost of x[{i}, {r}] is {self.worst_violation:.3g} "
            f"{'below' if self.worst_violation > 0 else 'above'} its row multiplier "
            f"({self.seconds:.2f} s)"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the fields, ``gap``, ``relative_gap`` and ``certified``."""
        out = {
            "result": type(self).__name__,
            "theorem": self.theorem,
            "n": self.n,
            "epsilon": self.epsilon,
            "loss": self.loss,
            "value": self.value,
            "lower_bound": self.lower_bound,
            "gap": self.gap,
            "relative_gap": self.relative_gap,
            "certified": self.certified,
            "accuracy": self.accuracy,
            "worst_violation": self.worst_violation,
            "worst_row": list(self.worst_row),
            "assignment": self.assignment,
            "seconds": self.seconds,
        }
        return json_safe(out)  # type: ignore[no-any-return]

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

    def _repr_html_(self) -> str:
        i, r = self.worst_row
        rows = [
            ("theorem", self.theorem),
            ("instance", f"n = {self.n}, ε = {self.epsilon:g}, {self.loss}"),
            ("certified", "yes" if self.certified else "NO"),
            ("interval", f"[{self.lower_bound:.12g}, {self.value:.12g}]"),
            ("relative gap", f"{self.relative_gap:.3g} (accuracy {self.accuracy:.0e})"),
            ("worst dual row", f"x[{i}, {r}]: {self.worst_violation:.3g}"),
            ("time", f"{self.seconds:.2f} s"),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in rows
        )
        return f"<table>{body}</table>"

    def __repr__(self) -> str:
        return (
            f"DualCertificate({self.theorem!r}, n={self.n}, epsilon={self.epsilon:g}, "
            f"value={self.value:.10g}, lower_bound={self.lower_bound:.10g}, "
            f"certified={self.certified})"
        )
