"""Is a mechanism a remap of the geometric mechanism? And which remap (GRS §5)?

Ghosh, Roughgarden & Sundararajan (2012) ("GRS"), §5:

* ``G⁻¹`` is tridiagonal (``G = K D`` with ``K[i, j] = α^|i−j|``, whose inverse is
  ``(1 − α²)⁻¹ tridiag(−α, (1, 1 + α², …, 1 + α², 1), −α)``, and ``D`` the diagonal of column
  factors), so ``M = G T`` with ``T`` row-stochastic iff ``G⁻¹ M ≥ 0`` entrywise (rows of
  ``G⁻¹M`` sum to 1 because ``G 1 = 1``): `remap_of_geometric` /
  `is_remap_of_geometric`, in O(nm) without forming any inverse.
* The **constraint matrix** of a mechanism (GRS §5, Fig. 3): for each pair of neighbouring
  rows ``(i, i + 1)`` and output ``r``: ``Z`` (zero column), ``L`` (``x[i, r] = e^ε x[i+1, r]``),
  ``H`` (``x[i+1, r] = e^ε x[i, r]``), ``S`` (slack): `constraint_matrix`.
* For an optimal vertex, GRS Lemmas 5.9–5.11 read the remap of ``G`` off that matrix: the k-th
  non-Z column has ``h`` H's, then ``s`` S's, then L's, and ``G``'s outputs ``h … h + s`` are
  mapped to it (Lemma 5.10: mapping the outputs ``a … b`` of ``G`` to one column gives H's in
  rows ``0 … a−1``, S's in ``a … b−1``, L's below):
  `remap_from_constraint_matrix`.

Examples
--------
The worked example of GRS (Fig. 2): ``G`` for n = 5, ε = ln 2, with output 1 sent to 2.

>>> import math
>>> import numpy as np
>>> from optmech.lp.remap import apply_remap
>>> from optmech.mechanisms.geometric import truncated_geometric
>>> G = truncated_geometric(5, math.log(2))
>>> T = np.eye(6); T[1] = np.eye(6)[2]
>>> M = apply_remap(G, T)
>>> print(constraint_matrix(M, math.log(2))[:2])
[['L' 'Z' 'H' 'H' 'H' 'H']
 ['L' 'Z' 'S' 'H' 'H' 'H']]
>>> np.array_equal(remap_from_constraint_matrix(constraint_matrix(M, math.log(2))), T)
True
>>> is_remap_of_geometric(M, math.log(2))[0]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray
from optmech._floats import U as _U
from optmech._validation import check_real, check_real_array
from optmech.lp.matrix.setting import check_epsilon
from optmech.lp.remap import _check_mechanism
from optmech.mechanisms.geometric import truncated_geometric

__all__ = [
    "REMAP_ATOL",
    "GeometricRemapTest",
    "constraint_matrix",
    "geometric_inverse_apply",
    "is_remap_of_geometric",
    "remap_from_constraint_matrix",
    "remap_of_geometric",
]

#: Default absolute accuracy assumed of a mechanism's entries in the remap-of-G test: a solver's
#: vertex is feasible to about 1e-10 (HiGHS, tolerances 1e-10), so 1e-9 leaves a factor 10.
REMAP_ATOL = 1e-9


# --------------------------------------------------------------------------------------------
# Is M a remap of G?  (G⁻¹ tridiagonal)
# --------------------------------------------------------------------------------------------
def _inverse_parts(n: int, eps: float) -> tuple[float, float, FloatArray]:
    """``α``, ``1 − α²`` and the column factors ``d`` of ``G = K diag(d)``."""
    alpha = math.exp(-eps)
    one_minus_a2 = -math.expm1(-2.0 * eps)
    d = np.full(n + 1, math.tanh(eps / 2.0))  # (1 − α)/(1 + α)
    d[0] = d[n] = 1.0 / (1.0 + alpha)
    return alpha, one_minus_a2, d


def _tridiagonal(m: FloatArray, alpha: float, sign: float) -> FloatArray:
    """``(1 + α²) M[i] + sign·α (M[i−1] + M[i+1])``, end rows ``M[0] + sign·α M[1]`` and
    ``M[n] + sign·α M[n−1]``: ``(1 − α²) D G⁻¹ M`` for ``sign = −1``, the magnitudes of its
    terms for ``sign = +1``."""
    y = (1.0 + alpha * alpha) * m
    y[0] = m[0]
    y[-1] = m[-1]
    y[:-1] += sign * alpha * m[1:]
    y[1:] += sign * alpha * m[:-1]
    return y


def geometric_inverse_apply(mechanism: npt.ArrayLike, epsilon: float) -> FloatArray:
    """``G⁻¹ M`` for the range-restricted geometric ``G`` on ``{0..n}`` (tridiagonal, no inverse).

    Row ``i`` is ``((1 + α²) M[i] − α (M[i−1] + M[i+1])) / ((1 − α²) d_i)`` (end rows: ``M[0] −
    α M[1]`` and ``M[n] − α M[n−1]``), with ``d_i`` the column factors of ``G``.

    Examples
    --------
    >>> from optmech.mechanisms.geometric import truncated_geometric
    >>> bool(np.allclose(geometric_inverse_apply(truncated_geometric(4, 0.7), 0.7), np.eye(5)))
    True
    """
    eps = check_epsilon(epsilon)
    m = check_real_array("mechanism", mechanism, ndim=2)
    if m.shape[0] < 2:
        raise ValueError(f"`mechanism` must have at least 2 rows (n ≥ 1); got {m.shape[0]}.")
    n = m.shape[0] - 1
    alpha, one_minus_a2, d = _inverse_parts(n, eps)
    return _tridiagonal(m, alpha, -1.0) / (one_minus_a2 * d[:, None])


@dataclass(frozen=True)
class GeometricRemapTest:
    """Outcome of the test "is ``M`` a remap of ``G``?" (``G⁻¹M ≥ 0``).

    Attributes
    ----------
    is_remap : bool
        Every entry of ``G⁻¹M`` is at least ``−tolerance`` (entrywise).
    remap : ndarray, shape (n + 1, m)
        ``G⁻¹M`` clipped at 0 and row-normalised: the row-stochastic ``T`` with ``G T ≈ M``.
    min_entry : float
        The most negative entry of ``G⁻¹M`` (positive if none is negative).
    worst_margin : float
        ``min (G⁻¹M + tolerance)``: negative iff the test fails; its entry's tolerance is
        ``tolerance_at_worst``.
    tolerance_at_worst : float
        The tolerance of the entry where the margin is smallest.
    residual : float
        ``max |G T − M|`` for the returned ``T``.
    """

    is_remap: bool
    remap: FloatArray
    min_entry: float
    worst_margin: float
    tolerance_at_worst: float
    residual: float


def remap_of_geometric(
    mechanism: npt.ArrayLike, epsilon: float, *, atol: float = REMAP_ATOL
) -> GeometricRemapTest:
    """Test whether ``M = G T`` for some row-stochastic ``T``, and return ``T`` (GRS §5).

    $G⁻¹M ≥ 0$ decides it exactly in exact arithmetic. Numerically, if ``M = G T + E`` with
    $|E| ≤ atol$ entrywise, then $G⁻¹M = T + G⁻¹E$ and $|G⁻¹E|[i, r] ≤ κ_i · atol$ with
    $κ_i = ‖row i of G⁻¹‖₁$ ($((1 + α)/(1 − α))²$ inside, $(1 + α)/(1 − α)$ at the ends).
    An entry is accepted as non-negative when it is at least $−(κ_i atol + 8u s)$, where ``s``
    is the sum of the magnitudes of the three terms that formed it (floating-point rounding,
    $u = 2^{-53}$). The tolerance is therefore *relative to the accuracy of M's entries*, not to
    their size: entries of ``G`` as small as e^-45 play no role, and a mechanism that misses
    being a remap by more than the accuracy of its entries is rejected.

    Parameters
    ----------
    mechanism : array_like, shape (n + 1, m)
        Row-stochastic; rows are the inputs ``0..n`` of a count query.
    epsilon : float
        The ε of ``G``, in (0, 50].
    atol : float, default 1e-9
        Absolute accuracy of the entries of ``mechanism``, in [0, 1e-3]: 0 for a mechanism
        computed exactly, about the solver's feasibility tolerance for an LP's vertex.

    Examples
    --------
    >>> merge = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # G's outputs 1 and 2 merged
    >>> remap_of_geometric(truncated_geometric(2, 1.0) @ merge, 1.0).is_remap
    True
    """
    eps = check_epsilon(epsilon)
    atol = check_real("atol", atol, low=0.0, high=1e-3)
    m = _check_mechanism(mechanism)
    y = geometric_inverse_apply(m, eps)
    n = m.shape[0] - 1
    alpha, one_minus_a2, d = _inverse_parts(n, eps)
    kappa = np.full(n + 1, ((1.0 + alpha) / (1.0 - alpha)) ** 2 if alpha < 1 else np.inf)
    kappa[0] = kappa[n] = (1.0 + alpha) / (-math.expm1(-eps))
    mag = _tridiagonal(m, alpha, 1.0)
    tol = kappa[:, None] * atol + 8.0 * _U * mag / (one_minus_a2 * d[:, None])
    margin = y + tol
    k = int(np.argmin(margin))
    t = np.clip(y, 0.0, None)
    sums = t.sum(axis=1, keepdims=True)
    t = np.divide(t, sums, out=np.full_like(t, 1.0 / t.shape[1]), where=sums > 0)
    residual = float(np.max(np.abs(truncated_geometric(n, eps) @ t - m)))
    worst = float(margin.flat[k])
    return GeometricRemapTest(worst >= 0, t, float(y.min()), worst, float(tol.flat[k]), residual)


def is_remap_of_geometric(
    mechanism: npt.ArrayLike, epsilon: float, *, atol: float = REMAP_ATOL
) -> tuple[bool, FloatArray]:
    """Whether ``M = G T`` for a row-stochastic ``T`` (within ``atol``); returns ``(ok, T)``.

    See `remap_of_geometric` for the test and its tolerance; ``T`` is $G⁻¹M$
    clipped at 0 and row-normalised.

    Examples
    --------
    Randomized response on {0, 1, 2} is ε-DP but not a remap of ``G``:

    >>> import math
    >>> import numpy as np
    >>> rr = np.full((3, 3), 1.0) + (math.e - 1) * np.eye(3)
    >>> is_remap_of_geometric(rr / rr.sum(axis=1, keepdims=True), 1.0)[0]
    False
    """
    res = remap_of_geometric(mechanism, epsilon, atol=atol)
    return res.is_remap, res.remap


# --------------------------------------------------------------------------------------------
# Constraint matrix and the constructive remap (GRS Lemmas 5.9–5.11)
# --------------------------------------------------------------------------------------------
def constraint_matrix(
    mechanism: npt.ArrayLike,
    epsilon: float,
    *,
    rtol: float = 1e-6,
    atol: float = 1e-9,
) -> npt.NDArray[np.str_]:
    """The GRS constraint matrix (GRS §5, Fig. 3) of a count-query mechanism.

    Entry ``[i, r]`` describes rows ``i, i + 1`` at output ``r``: ``"Z"`` if column ``r`` is zero,
    ``"L"`` if $x[i, r] = e^ε x[i+1, r]$, ``"H"`` if $x[i+1, r] = e^ε x[i, r]$, ``"S"``
    otherwise.

    Tolerances: a solver's vertex is exact only to its absolute feasibility tolerance (about
    1e-10 for HiGHS here), so entries at or below ``atol`` are noise. A column whose largest
    entry is at most ``atol`` is ``Z`` (a used column of a remap of ``G`` has an entry of at
    least $tanh(ε/2)$, far above). A pair of entries both at most ``atol`` is classified by
    its side of the column's maximum — ``H`` above, ``L`` below — which is what every column of
    a remap of ``G`` shows (Lemma 5.10). Other pairs are equal when they agree within ``rtol``
    relative plus ``atol`` absolute.

    Parameters
    ----------
    mechanism : array_like, shape (n + 1, m)
    epsilon : float
    rtol, atol : float
        Tolerances (defaults suit an LP vertex accurate to about 1e-10).

    Returns
    -------
    ndarray of str, shape (n, m)

    Examples
    --------
    >>> constraint_matrix(truncated_geometric(2, 1.0), 1.0).tolist()  # G: H above, L below
    [['L', 'H', 'H'], ['L', 'L', 'H']]
    """
    eps = check_epsilon(epsilon)
    m = check_real_array("mechanism", mechanism, ndim=2, nonnegative=True)
    rtol = check_real("rtol", rtol, low=0.0, high=0.1)
    atol = check_real("atol", atol, low=0.0, high=0.1)
    e = math.exp(eps)
    a, b = m[:-1], m[1:]
    is_l = np.abs(a - e * b) <= rtol * np.maximum(a, e * b) + atol
    is_h = np.abs(b - e * a) <= rtol * np.maximum(b, e * a) + atol
    above = np.arange(m.shape[0] - 1)[:, None] < np.argmax(m, axis=0)[None, :]
    noise = np.maximum(a, b) <= atol
    out = np.full(a.shape, "S", dtype="<U1")
    out[is_l & ~is_h] = "L"
    out[is_h & ~is_l] = "H"
    undecided = noise | (is_l & is_h)
    out[undecided & above] = "H"
    out[undecided & ~above] = "L"
    out[:, m.max(axis=0) <= atol] = "Z"
    return out


def remap_from_constraint_matrix(matrix: npt.ArrayLike) -> FloatArray:
    """The deterministic remap ``T`` of ``G`` that produces a vertex with this constraint matrix.

    GRS Lemmas 5.9–5.11: a non-Z column with ``h`` H's, then ``s`` S's, then L's is produced by
    mapping ``G``'s outputs ``h, …, h + s`` to it (Lemma 5.10). The intervals of the non-Z
    columns must partition ``{0..n}`` (Lemma 5.9 for optimal vertices); ``T[z, r] = 1`` for
    ``z`` in column r's interval.

    Parameters
    ----------
    matrix : array_like of str, shape (n, m)
        From `constraint_matrix`.

    Returns
    -------
    ndarray, shape (n + 1, m)

    Raises
    ------
    ValueError
        A column is not of the form H…H S…S L…L, or the intervals do not partition {0..n}
        (the mechanism is not an optimal vertex for a monotone loss).

    Examples
    --------
    >>> import numpy as np
    >>> import optmech
    >>> G = optmech.truncated_geometric(2, epsilon=1.0)
    >>> C = optmech.constraint_matrix(G, 1.0)  # G itself: the identity remap
    >>> optmech.remap_from_constraint_matrix(C).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    c = np.asarray(matrix, dtype=str)
    if c.ndim != 2 or c.shape[0] < 1:
        raise ValueError(
            f"`matrix` must be a 2-d array of 'Z', 'S', 'L', 'H'; got shape {c.shape}."
        )
    if not np.all(np.isin(c, ["Z", "S", "L", "H"])):
        raise ValueError("`matrix` entries must be 'Z', 'S', 'L' or 'H'.")
    n = c.shape[0]
    t = np.zeros((n + 1, c.shape[1]))
    num = np.vectorize({"H": 0, "S": 1, "L": 2, "Z": 3}.__getitem__)(c)
    zero_col = np.all(num == 3, axis=0)
    if np.any(np.any(num == 3, axis=0) & ~zero_col):
        bad = int(np.argmax(np.any(num == 3, axis=0) & ~zero_col))
        raise ValueError(f"column {bad} of `matrix` mixes Z with other entries.")
    sorted_ok = np.all(np.diff(num, axis=0) >= 0, axis=0) | zero_col
    if not np.all(sorted_ok):
        bad = int(np.argmin(sorted_ok))
        raise ValueError(
            f"column {bad} of `matrix` is {''.join(c[:, bad])}, not of the form H…H S…S L…L "
            "(GRS Lemma 5.5/5.9): not an optimal vertex for a monotone loss."
        )
    h = np.sum(num == 0, axis=0)
    s = np.sum(num == 1, axis=0)
    for r in np.flatnonzero(~zero_col):  # one interval per used output (a few dozen)
        t[h[r] : h[r] + s[r] + 1, r] = 1.0
    covered = t.sum(axis=1)
    if not np.all(covered == 1):
        z = int(np.argmax(covered != 1))
        raise ValueError(
            f"the intervals read off `matrix` do not partition {{0..{n}}}: output {z} of G is "
            f"mapped {int(covered[z])} times (GRS Lemma 5.9 fails: not an optimal vertex)."
        )
    return t
