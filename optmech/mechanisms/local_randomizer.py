"""Local randomizers: a row-stochastic matrix over named inputs and outputs, ε-LDP over every
pair of inputs (Kairouz, Oh & Viswanath (2016); Duchi, Jordan & Wainwright (2013)).

A local randomizer ``Q[i, r] = P(output r | input i)`` is applied by each user to their own
value; it is ε-LDP when ``Q[i, r] ≤ e^ε Q[i', r]`` for *every* two inputs ``i, i'`` and every
output ``r`` (the complete neighbour graph). Its achieved ε is therefore

    ε₀(Q) = max over outputs r of log(max_i Q[i, r] / min_i Q[i, r]),

``inf`` when a column holds both a zero and a positive entry, and ``0`` for a constant
randomizer. `LocalRandomizer` computes ε₀ pessimistically (rounded up, never
below the exact value for the stored floats) and describes itself to certification as a
mechanism matrix over the complete graph, so ``optmech.certify.certify(randomizer)`` certifies it
from its numbers alone, by the independent matrix certifier; with a claim
``ApproxDP(ε, δ)`` the certifier gives the δ at that ε (the largest hockey-stick divergence
between two rows), which says what a pure ε cannot for a randomizer with zeros.

Generalised (k-ary) randomized response (Warner (1965); Kairouz, Oh & Viswanath (2016)) is the
randomizer `LocalRandomizer.randomized_response`;
the array itself is still given by
`optmech.mechanisms.randomized_response.randomized_response`.

Examples
--------
>>> import math
>>> rr = LocalRandomizer.randomized_response(3, math.log(2.0), inputs=["a", "b", "c"])
>>> rr.probabilities("a").tolist()
[0.5, 0.25, 0.25]
>>> bool(math.log(2.0) <= rr.epsilon <= math.log(2.0) * (1 + 1e-12))
True
>>> rr.rvs("b", size=4, rng=1).shape
(4,)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, IntArray
from optmech._validation import check_real_array, check_rng, check_size, describe
from optmech.mechanisms.description import (
    MatrixDescription,
    PrivacySource,
    SourceKind,
)
from optmech.mechanisms.randomized_response import randomized_response
from optmech.privacy import PureDP

__all__ = ["ROW_SUM_TOL", "LocalRandomizer", "broadcast_inputs"]

#: Largest deviation of a row sum from 1 accepted (the matrix certifier's tolerance).
ROW_SUM_TOL = 1e-9
#: Largest number of draws of one call of ``rvs`` (as the noise families).
_MAX_SAMPLES = 500_000_000
#: Bits of the uniform draws of numpy's ``Generator.random`` (multiples of ``2^-53``).
_BITS = 53


def _labels(name: str, value: Any, size: int) -> npt.NDArray[Any]:
    """``value`` as a 1-D array of ``size`` distinct labels (default ``0..size-1``)."""
    if value is None:
        return np.arange(size)
    arr = np.array(value)  # a copy: the flags set below are its own
    if arr.ndim != 1 or arr.size != size:
        raise ValueError(
            f"`{name}` must be a 1-D sequence of {size} labels (one per "
            f"{'row' if name == 'inputs' else 'column'} of `matrix`); got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iufU" or arr.dtype == np.bool_:
        raise TypeError(f"`{name}` must hold numbers or strings; got {describe(value)}.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must hold finite numbers; got {arr.tolist()!r}.")
    if np.unique(arr).size != arr.size:
        raise ValueError(f"`{name}` must be distinct; got {arr.tolist()!r}.")
    return arr


def _log_ratio_up(high: FloatArray, low: FloatArray) -> float:
    """``max log(high / low)`` over the entries, rounded up (``inf`` where ``low`` is 0 below a
    positive ``high``; 0 where both are 0 or equal).

    The float quotient is within half an ulp of the exact one, so its successor bounds it;
    the logarithm (within an ulp) is then raised by two ulps.
    """
    if np.any((low == 0) & (high > 0)):
        return math.inf
    differ = high > low
    if not np.any(differ):
        return 0.0
    ratio = float(np.max(high[differ] / low[differ]))
    up = math.log(math.nextafter(ratio, math.inf))
    return math.nextafter(math.nextafter(up, math.inf), math.inf)


def broadcast_inputs(inputs: npt.NDArray[np.int64], size: Any) -> npt.NDArray[np.int64]:
    """Input indices broadcast to the releases' shape ``size`` (their own shape for None);
    ValueError naming ``size`` past `_MAX_SAMPLES` draws, or for a shape the inputs do not
    broadcast to."""
    shape = check_size(size)
    if shape is None:
        return inputs
    if math.prod(shape) > _MAX_SAMPLES:
        raise ValueError(
            f"`size` must have at most {_MAX_SAMPLES:.0e} elements in all; got {size!r}. "
            "Draw in batches."
        )
    try:
        return np.broadcast_to(inputs, shape)
    except ValueError:
        raise ValueError(
            f"`size` must be a shape `x` broadcasts to; got size={size!r} for x of shape "
            f"{inputs.shape}."
        ) from None


class LocalRandomizer:
    """A local randomizer ``Q[i, r] = P(output r | input i)``, ε-LDP over every pair of inputs.

    Parameters
    ----------
    matrix : array_like, shape (k, m)
        Finite, non-negative entries; each row sums to 1 within `ROW_SUM_TOL` (1e-9). Stored as
        given (not renormalised).
    inputs : sequence of numbers or strings, optional
        The ``k`` distinct input values, one per row (default ``0..k-1``).
    outputs : sequence of numbers or strings, optional
        The ``m`` distinct output values, one per column (default ``0..m-1``).

    Attributes
    ----------
    matrix : ndarray, shape (k, m)
    inputs, outputs : ndarray
    epsilon : float
        ε₀, the achieved local ε (module docstring), rounded up.
    privacy : PureDP or None
        ``PureDP(epsilon)``; None for a constant randomizer (ε₀ = 0) or an infinite ε₀.

    Examples
    --------
    >>> import numpy as np
    >>> q = LocalRandomizer([[0.75, 0.25], [0.25, 0.75]], inputs=[0, 1], outputs=["no", "yes"])
    >>> round(q.epsilon, 12) == round(float(np.log(3.0)), 12)
    True
    >>> q.rvs([0, 1, 1], rng=2).tolist()
    ['no', 'yes', 'yes']
    >>> q
    LocalRandomizer(2 inputs × 2 outputs, epsilon=1.098612289)
    """

    matrix: FloatArray
    inputs: npt.NDArray[Any]
    outputs: npt.NDArray[Any]

    def __init__(self, matrix: npt.ArrayLike, inputs: Any = None, outputs: Any = None) -> None:
        q = check_real_array("matrix", matrix, ndim=2, nonnegative=True)
        err = np.abs(q.sum(axis=1) - 1.0)
        if float(np.max(err)) > ROW_SUM_TOL:
            row = int(np.argmax(err))
            raise ValueError(
                f"`matrix` rows must sum to 1 (within {ROW_SUM_TOL:g}): each row is the law of "
                f"the output for one input; row {row} sums to {float(q[row].sum())!r}."
            )
        q.setflags(write=False)
        self.matrix = q
        self.inputs = _labels("inputs", inputs, q.shape[0])
        self.outputs = _labels("outputs", outputs, q.shape[1])
        self.inputs.setflags(write=False)
        self.outputs.setflags(write=False)

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def randomized_response(cls, k: int, epsilon: float, *, inputs: Any = None) -> LocalRandomizer:
        """Generalised randomized response on ``k`` values (Warner (1965); Kairouz, Oh &
        Viswanath (2016)): the true value with probability ``e^ε/(e^ε + k − 1)``, each other
        with ``1/(e^ε + k − 1)``; the outputs are the inputs.

        Parameters
        ----------
        k : int
            Number of values, at least 2.
        epsilon : float
            Privacy level, in (0, 50].
        inputs : sequence, optional
            The ``k`` values (default ``0..k-1``), also the outputs.

        Examples
        --------
        >>> import math
        >>> rr = LocalRandomizer.randomized_response(4, math.log(3.0))
        >>> [round(p, 12) for p in rr.probabilities(0).tolist()]
        [0.5, 0.166666666667, 0.166666666667, 0.166666666667]
        """
        q = randomized_response(k, epsilon)
        return cls(q, inputs, inputs)

    # -- privacy -------------------------------------------------------------------------------
    @property
    def epsilon(self) -> float:
        """ε₀: ``max_r log(max_i Q[i, r] / min_i Q[i, r])``, rounded up (module docstring)."""
        q = self.matrix
        return _log_ratio_up(q.max(axis=0), q.min(axis=0))

    @property
    def privacy(self) -> PureDP | None:
        """``PureDP(epsilon)``, the local guarantee over every pair of inputs (None when ε₀ is 0
        or infinite)."""
        eps = self.epsilon
        return PureDP(eps) if 0.0 < eps < math.inf else None

    def _pairs(self) -> IntArray:
        """Every pair of rows ``(i, j)``, ``i < j``: the complete graph, as row-index pairs."""
        i, j = np.triu_indices(self.matrix.shape[0], k=1)
        return np.stack([i, j], axis=1).astype(np.int64)

    def _cumulative(self) -> FloatArray:
        """The cumulative rows, each divided by its own last entry (exactly 1 then)."""
        cum = np.cumsum(self.matrix, axis=1)
        return cum / cum[:, -1:]

    def sampled_matrix(self) -> FloatArray:
        """The law `rvs` draws, exactly: uniform draws ``u`` on the multiples of
        ``2^-53`` in [0, 1) select output ``r`` when ``C[r − 1] ≤ u < C[r]`` (``C`` the
        cumulative row), so ``P(r) = (⌈2^53 C[r]⌉ − ⌈2^53 C[r − 1]⌉) / 2^53``.

        Examples
        --------
        >>> q = LocalRandomizer([[0.75, 0.25], [0.25, 0.75]])
        >>> q.sampled_matrix().tolist()
        [[0.75, 0.25], [0.25, 0.75]]
        """
        ticks = np.ceil(np.ldexp(self._cumulative(), _BITS))
        counts = np.diff(np.concatenate([np.zeros((ticks.shape[0], 1)), ticks], axis=1), axis=1)
        return np.ldexp(counts, -_BITS)

    def sampled_epsilon(self) -> float:
        """ε₀ of the law `rvs` draws (`sampled_matrix`), rounded up:
        `epsilon` up to the rounding of the cumulative rows (``inf`` when an entry below
        ``2^-53`` faces a larger one).

        Examples
        --------
        >>> q = LocalRandomizer([[0.75, 0.25], [0.25, 0.75]])
        >>> q.sampled_epsilon() == q.epsilon
        True
        """
        s = self.sampled_matrix()
        return _log_ratio_up(s.max(axis=0), s.min(axis=0))

    def privacy_source(self) -> PrivacySource:
        """This randomizer described as a mechanism matrix over the complete graph on its inputs
        (kind ``matrix``), as `optmech.certify.certify` reads it."""
        matrix = MatrixDescription(
            self.matrix,
            self._pairs(),
            False,
            lambda x, rng: self.rvs(x, rng=rng),
            self.sampled_epsilon,
        )
        return PrivacySource(
            kind=SourceKind.MATRIX,
            family=type(self).__name__,
            guarantee=self.privacy,
            sensitivity=1.0,
            discrete=True,
            tabulated=True,
            parameters={"inputs": self.inputs.size, "outputs": self.outputs.size},
            matrix=matrix,
        )

    # -- the law -------------------------------------------------------------------------------
    def _rows(self, x: Any) -> IntArray:
        """Row index of each input value of ``x`` (same shape), else ValueError naming ``x``."""
        values = np.asarray(x)
        order = np.argsort(self.inputs, kind="stable")
        ranked = self.inputs[order]
        try:
            pos = np.clip(np.searchsorted(ranked, values), 0, ranked.size - 1)
            found = ranked[pos] == values
        except (TypeError, np.exceptions.DTypePromotionError):
            found = np.zeros(values.shape, dtype=bool)
            pos = np.zeros(values.shape, dtype=np.int64)
        if not np.all(found):
            bad = np.ravel(values)[int(np.argmin(np.ravel(found)))]
            bad = bad.item() if isinstance(bad, np.generic) else bad
            shown = self.inputs.tolist() if self.inputs.size <= 12 else f"{self.inputs.size} values"
            raise ValueError(f"`x` must hold inputs of the randomizer {shown}; got {bad!r}.")
        return np.asarray(order[pos], dtype=np.int64)

    def probabilities(self, x: Any) -> FloatArray:
        """``P(output | input x)`` for each input value of ``x``: shape ``x.shape + (m,)``.

        Examples
        --------
        >>> q = LocalRandomizer([[0.75, 0.25], [0.25, 0.75]], inputs=["a", "b"])
        >>> q.probabilities(["b", "a"]).tolist()
        [[0.25, 0.75], [0.75, 0.25]]
        """
        return self.matrix[self._rows(x)]

    def rvs(self, x: Any, size: Any = None, rng: Any = None) -> Any:
        """Draw outputs for the input value(s) ``x``, by inverse CDF on the cumulative rows
        (the law drawn is `sampled_matrix`, its ε₀ `sampled_epsilon`).

        Parameters
        ----------
        x : input value or array_like of them
        size : int or tuple of ints, optional
            Shape of the draws, ``x`` broadcast to it; default ``x``'s shape (one draw per
            input, a single output for a scalar).
        rng : None, int, SeedSequence, BitGenerator or Generator

        Returns
        -------
        output value or ndarray of them

        Examples
        --------
        >>> q = LocalRandomizer.randomized_response(2, 1.0)
        >>> q.rvs(0, size=(2, 3), rng=0).shape
        (2, 3)
        """
        rows = broadcast_inputs(self._rows(x), size)
        shape = rows.shape
        gen = check_rng(rng)
        cum = self._cumulative()
        u = gen.random(shape)
        picked = (cum[rows] <= u[..., None]).sum(axis=-1)
        out = self.outputs[picked]
        return out.item() if out.ndim == 0 else out

    # -- display -------------------------------------------------------------------------------
    def _rows_shown(self) -> list[tuple[str, Any]]:
        k, m = self.matrix.shape
        return [
            ("size", f"{k} inputs × {m} outputs"),
            ("epsilon (local)", self.epsilon),
            ("guarantee", self.privacy),
        ]

    def summary(self) -> str:
        """The display as text: the class, then one ``name  value`` row each.

        Examples
        --------
        >>> print(LocalRandomizer([[0.5, 0.5], [0.5, 0.5]]).summary())
        LocalRandomizer
          size             2 inputs × 2 outputs
          epsilon (local)  0
          guarantee        None
        """
        from optmech._display import text_summary

        return text_summary(type(self).__name__, self._rows_shown())

    def _repr_html_(self) -> str:
        from optmech._display import html_summary

        return html_summary(type(self).__name__, self._rows_shown())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: the class, ``epsilon`` (``"inf"`` when infinite), the matrix, the
        inputs and the outputs.

        Examples
        --------
        >>> d = LocalRandomizer([[1.0], [1.0]]).to_dict()
        >>> d["epsilon"], d["matrix"], d["inputs"], d["outputs"]
        (0.0, [[1.0], [1.0]], [0, 1], [0])
        """
        eps = self.epsilon
        return {
            "result": type(self).__name__,
            "epsilon": eps if math.isfinite(eps) else "inf",
            "matrix": self.matrix.tolist(),
            "inputs": self.inputs.tolist(),
            "outputs": self.outputs.tolist(),
        }

    def plot(self, ax: Any = None) -> Any:
        """Heat map of `matrix`, labelled with the input and output values; returns the Axes."""
        from optmech.plotting import plot_mechanism

        return plot_mechanism(
            self.matrix,
            ax,
            inputs=self.inputs,
            outputs=self.outputs,
            title=f"local randomizer, ε₀ = {self.epsilon:.6g}",
        )

    def __repr__(self) -> str:
        k, m = self.matrix.shape
        return f"{type(self).__name__}({k} inputs × {m} outputs, epsilon={self.epsilon:.10g})"
