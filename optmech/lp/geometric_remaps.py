"""The geometric mechanism followed by a user's remap: the GRS optimum and the minimax optimum.

Ghosh, Roughgarden & Sundararajan (2012) ("GRS"), Thm. 3.1: for every Bayesian user with a
loss monotone in ``|i − r|`` (GRS §2.2), the range-restricted geometric mechanism ``G``
followed by the user's Bayes remap is optimal among all ε-DP mechanisms for a count query:
`geometric_bayes`. For minimax users the same holds with the best
randomized remap (Gupte & Sundararajan (2010)): `geometric_minimax`.
`check_monotone_loss` decides whether a loss is covered.

Examples
--------
>>> import numpy as np
>>> round(geometric_bayes(np.full(3, 1 / 3), "zero-one", 1.0).value, 6)
0.358589
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from optmech._deprecation import renamed_keyword
from optmech._floats import FloatArray
from optmech._validation import check_real_array
from optmech.lp.matrix.setting import check_epsilon
from optmech.lp.remap import RemapResult, _loss_for, bayes_remap, minimax_remap
from optmech.mechanisms.geometric import truncated_geometric
from optmech.provenance import DEFAULT_ACCURACY

__all__ = ["check_monotone_loss", "geometric_bayes", "geometric_minimax"]


def check_monotone_loss(loss: npt.ArrayLike, *, context: str = "this theorem") -> FloatArray:
    """Require ``l(i, r)`` non-decreasing in ``|i − r|`` on each side of ``i`` (GRS §2.2).

    For inputs ``0..N−1`` and outputs ``0..m−1``: in every row, non-increasing for ``r ≤ i`` and
    non-decreasing for ``r ≥ i`` (asymmetric losses allowed). Returns the matrix.

    Examples
    --------
    >>> check_monotone_loss([[0, 1], [1, 0]]).shape
    (2, 2)
    >>> check_monotone_loss([[0, 1, 0], [1, 0, 1], [2, 1, 0]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `loss` must be non-decreasing in |i − r| ...; row 0 decreases from r = 1 to r = 2.
    """
    lm = check_real_array("loss", loss, ndim=2)
    i = np.arange(lm.shape[0])[:, None]
    r = np.arange(lm.shape[1] - 1)[None, :]
    step = np.diff(lm, axis=1)  # l(i, r + 1) − l(i, r)
    tol = 1e-12 * (1.0 + np.abs(lm[:, 1:]))
    bad = ((r >= i) & (step < -tol)) | ((r + 1 <= i) & (step > tol))
    if np.any(bad):
        row, col = (int(v) for v in np.argwhere(bad)[0])
        how = "decreases" if step[row, col] < 0 else "increases"
        raise ValueError(
            f"`loss` must be non-decreasing in |i − r| on each side of i for {context} "
            f"(Ghosh, Roughgarden & Sundararajan (2012)); row {row} {how} from r = {col} to "
            f"r = {col + 1}."
        )
    return lm


def _square_loss(loss_m: FloatArray, require_monotone: bool, context: str) -> FloatArray:
    """``loss_m``, required square (outputs ``{0..n}``) and, if asked, monotone."""
    if loss_m.shape[0] != loss_m.shape[1]:
        raise ValueError(f"`cost` must be square (outputs {{0..n}}); got shape {loss_m.shape}.")
    if require_monotone:
        check_monotone_loss(loss_m, context=context)
    return loss_m


@renamed_keyword("loss", "cost")
def geometric_bayes(
    prior: npt.ArrayLike,
    cost: Any,
    epsilon: float,
    *,
    require_monotone: bool = True,
    normalize: bool = False,
) -> RemapResult:
    """``G`` followed by the user's Bayes remap: the GRS optimum (Thm. 3.1) for monotone losses.

    Parameters
    ----------
    prior : array_like, shape (n + 1,)
        Prior over ``{0..n}``.
    cost : Cost, str, callable or array_like
        Cost of $r − i$ or loss matrix of shape (n + 1, n + 1).
    epsilon : float
        In (0, 50].
    require_monotone : bool, default True
        Raise `ValueError` for a loss the theorem does not cover.

    Examples
    --------
    >>> import numpy as np
    >>> round(geometric_bayes(np.full(3, 1 / 3), "zero-one", 1.0).value, 6)
    0.358589
    """
    eps = check_epsilon(epsilon)
    p_arr = check_real_array("prior", prior, ndim=1)
    loss_m = _loss_for(cost, p_arr.size, None)
    _square_loss(loss_m, require_monotone, "GRS universal optimality")
    return bayes_remap(truncated_geometric(p_arr.size - 1, eps), p_arr, loss_m, normalize=normalize)


@renamed_keyword("loss", "cost")
def geometric_minimax(
    cost: Any,
    epsilon: float,
    *,
    n: int | None = None,
    side_information: Any = None,
    require_monotone: bool = True,
    solver: str | None = None,
    accuracy: float = DEFAULT_ACCURACY,
) -> RemapResult:
    """``G`` followed by the best randomized remap: the minimax optimum (Gupte & Sundararajan).

    Parameters
    ----------
    cost : Cost, str, callable or array_like
        Cost of $r − i$ (then ``n`` is needed) or a square loss matrix.
    epsilon : float
        In (0, 50].
    n : int, optional
        Largest query result.
    side_information : collection of int, optional
        The inputs S (default all).
    require_monotone : bool, default True
        Raise `ValueError` for a loss the theorem does not cover.
    solver : str, optional
        For the remap LP.
    accuracy : float, default 1e-6
        As for `minimax_remap`.

    Examples
    --------
    >>> res = geometric_minimax("abs", 3.0, n=30, side_information=[0, 30])
    >>> res.lower_bound <= res.value < 1e-9
    True
    """
    eps = check_epsilon(epsilon)
    loss_m = _loss_for(cost, None if n is None else int(n) + 1, None)
    _square_loss(loss_m, require_monotone, "the minimax optimality of G")
    g = truncated_geometric(loss_m.shape[0] - 1, eps)
    return minimax_remap(g, loss_m, side_information, solver=solver, accuracy=accuracy)
