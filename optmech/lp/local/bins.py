"""RR-on-Bins as a result: the optimal label randomizer of Ghazi et al. (2023), certified.

`rr_on_bins` runs the dynamic programme of
`optmech.mechanisms.rr_on_bins` (no LP) and returns the bins, their
outputs, the optimal expected loss and the randomizer's matrix, whose ε is certified over every
pair of inputs. The matrix is built with the ratio ``e^ε (1 − 2^-40)``, so that floating-point
rounding cannot put its certificate above ε (doubled until it certifies:
`shrunk_until_certified`); its expected loss exceeds `value` by less than
1e-11 relative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._deprecation import renamed_keyword, warn_deprecated
from optmech._floats import FloatArray
from optmech.lp.matrix.repair import shrunk_until_certified
from optmech.lp.matrix.result import release
from optmech.lp.matrix.setting import check_epsilon
from optmech.mechanisms.local_randomizer import LocalRandomizer
from optmech.mechanisms.rr_on_bins import check_labels, optimal_bins, supported_loss
from optmech.provenance import Provenance
from optmech.results import BaseResult

__all__ = ["RROnBins", "rr_on_bins"]

#: Relative shrink of the ratio of the returned matrix (module docstring).
_SHRINK = 2.0**-40


@dataclass(frozen=True, repr=False)
class RROnBins(BaseResult):
    """The optimal RR-on-Bins randomizer (Ghazi et al. (2023)).

    A result of the one protocol (`optmech.results.Result`) computed
    without an LP: its provenance is exact (solver ``"none"``, status ``"exact"``,
    ``lower_bound == value``: the programme's optimum, one floating-point evaluation).

    Attributes
    ----------
    inputs : ndarray, shape (n,)
        The labels.
    prior : ndarray, shape (n,)
    epsilon : float
    loss : str
        ``"squared"`` or ``"absolute"``.
    bins : tuple of tuple of float
        The labels of each bin, bins in increasing order.
    outputs : ndarray, shape (k,)
        The output of each bin (the bins' values).
    value : float
        The optimal expected loss (the programme's, at the ratio $e^ε$).
    mechanism : ndarray, shape (n, k)
        ``Q[i, j]``: probability of output j for label i.
    certified_epsilon : float
        ε of `mechanism` certified over every pair of labels (≤ `epsilon`).
    values_by_bins : ndarray
        The best expected loss with exactly k bins, k = 1, …, n (``inf`` where the programme
        proved k bins cannot win).

    Examples
    --------
    >>> import optmech
    >>> rr = optmech.rr_on_bins([0.25, 0.5, 0.25], "squared", 1.0, inputs=[0.0, 1.0, 2.0])
    >>> rr.mechanism.shape[0], bool(rr.certified_epsilon <= 1.0 + 1e-9), len(rr.bins)
    (3, True, 2)
    """

    inputs: FloatArray = field(repr=False)
    prior: FloatArray = field(repr=False)
    epsilon: float
    loss: str
    bins: tuple[tuple[float, ...], ...]
    outputs: FloatArray = field(repr=False)
    value: float
    mechanism: FloatArray = field(repr=False)
    certified_epsilon: float
    values_by_bins: FloatArray = field(repr=False)

    _model = "RR-on-Bins (label DP)"

    @property
    def provenance(self) -> Provenance:
        """Exact, without an LP: solver ``"none"``, status ``"exact"``, the interval
        ``[value, value]``."""
        return Provenance(
            solver="none", status="exact", attempts=(), value=self.value, lower_bound=self.value
        )

    @property
    def lower_bound(self) -> float:
        """`value`: the programme is exact (no LP), so the interval is one point."""
        return self.value

    @property
    def upper_bound(self) -> float:
        """`value` (a minimisation)."""
        return self.value

    @property
    def assignment(self) -> np.ndarray:
        """The bin of each label."""
        out = np.empty(self.inputs.size, dtype=np.int64)
        for j, members in enumerate(self.bins):
            out[np.isin(self.inputs, members)] = j
        return out

    @property
    def randomizer(self) -> LocalRandomizer:
        """`mechanism` as a `LocalRandomizer` from the labels to the bins' outputs (to the bin
        indices ``0..k − 1`` when two bins share an output value)."""
        distinct = np.unique(self.outputs).size == self.outputs.size
        outputs = self.outputs if distinct else None
        return LocalRandomizer(self.mechanism, self.inputs, outputs)

    def expected_loss(self) -> float:
        """The expected loss of `mechanism` as stored (within 1e-11 of `value`)."""
        err = self.outputs[None, :] - self.inputs[:, None]
        table = err * err if self.loss == "squared" else np.abs(err)
        return float(np.sum(self.prior[:, None] * self.mechanism * table))

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release outputs for the label ``true_value`` (one of `inputs`): draws from its row of
        `mechanism` as stored, by the exact sampler
        (`RationalTable`)."""
        match = np.flatnonzero(self.inputs == float(true_value))
        if match.size == 0:
            raise ValueError(
                f"`true_value` must be one of the inputs {self.inputs.tolist()}; got "
                f"{true_value!r}."
            )
        return release(self.mechanism, int(match[0]), self.outputs, size, rng)

    def sample(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Deprecated name of `rvs`."""
        warn_deprecated("`RROnBins.sample(...)`", "`RROnBins.rvs(...)`")
        return self.rvs(true_value, size, rng)

    def plot(self, ax: Any = None) -> Any:
        """Heat map of `mechanism` (rows: labels; columns: the bins' outputs, by value); the
        title names the model; returns the Axes."""
        from optmech.plotting import plot_mechanism

        return plot_mechanism(
            self.mechanism,
            ax,
            inputs=self.inputs,
            outputs=self.outputs,
            title=f"{self.model}, ε = {self.epsilon:g}, {self.loss} loss {self.value:.6g}",
        )

    _dict_fields = ("loss", "epsilon", "inputs", "prior", "bins", "outputs", "mechanism")

    def _fields(self) -> dict[str, Any]:
        fields = super()._fields()
        fields["bins"] = [list(b) for b in self.bins]
        return fields

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [("loss", self.loss), ("bins", len(self.bins))]

    def __repr__(self) -> str:
        return (
            f"RROnBins(loss={self.loss}, epsilon={self.epsilon:g}, bins={len(self.bins)}, "
            f"value={self.value:.10g}, certified_epsilon={self.certified_epsilon:.10g})"
        )


@renamed_keyword("loss", "cost")
def rr_on_bins(
    prior: npt.ArrayLike, cost: Any, epsilon: float, *, inputs: npt.ArrayLike
) -> RROnBins:
    """The optimal RR-on-Bins randomizer of the labels ``inputs`` (Ghazi et al. (2023)).

    It is optimal among *all* ε-label-DP randomizers with real outputs for the squared and the
    absolute error; its bins are contiguous and follow from their dynamic programme
    (`optimal_bins`).

    Parameters
    ----------
    prior : array_like, shape (n,)
        Probabilities of the labels (summing to 1 within 1e-9).
    cost : {"squared", "absolute"} or Cost
        ``Squared()``, ``Absolute()`` (or ``Power(2)``, ``Power(1)``).
    epsilon : float
        Privacy level, in (0, 50].
    inputs : array_like, shape (n,)
        The labels, strictly increasing, at most 1000.

    Returns
    -------
    RROnBins

    Examples
    --------
    >>> import math
    >>> res = rr_on_bins([0.5, 0.5], "squared", math.log(3.0), inputs=[0.0, 1.0])
    >>> res.bins, round(res.value, 12)
    (((0.0,), (1.0,)), 0.1875)
    >>> res.certified_epsilon <= math.log(3.0)
    True
    """
    eps = check_epsilon(epsilon)
    x = check_labels(inputs, "inputs")
    name = supported_loss(cost)
    sol = optimal_bins(x, prior, eps, name)
    p = np.asarray(prior, dtype=np.float64)
    k = len(sol.bins)

    def build(ratio: float) -> FloatArray:
        q = np.full((x.size, k), 1.0 / (ratio + k - 1))
        q[np.arange(x.size), sol.assignment] = ratio / (ratio + k - 1)
        return q

    if x.size > 1:
        matrix, certified = shrunk_until_certified(build, eps, _SHRINK)
    else:
        matrix, certified = build(math.exp(eps)), 0.0
    return RROnBins(
        inputs=x,
        prior=p,
        epsilon=eps,
        loss=name,
        bins=tuple(tuple(float(v) for v in x[a : b + 1]) for a, b in sol.bins),
        outputs=sol.outputs,
        value=sol.value,
        mechanism=matrix,
        certified_epsilon=certified,
        values_by_bins=sol.values_by_bins,
    )
