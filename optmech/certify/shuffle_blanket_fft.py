r"""The privacy blanket of shuffled reports for any matrix, on a lattice by one FFT per ε.

`optmech.certify.shuffle_blanket` computes the blanket divergence (Balle, Bell, Gascón &
Nissim, CRYPTO 2019; the decomposition Su, Cheng & Wang, arXiv 2504.07414, 2025, show optimal)
exactly when every ordered pair has at most three groups of outputs. For any other matrix this
module bounds it on a lattice, as Su, Cheng & Wang compute it by FFT, in a certified form.

**One compound sum.** With $m \sim \mathrm{Bin}(n − 1, γ)$ the pair's bound is
$Σ_m P(m)\, E[(Σ_{i=1}^{m+1} Z_i)_+] / (m + 1)$, and
$P(\mathrm{Bin}(n − 1, γ) = m) / (m + 1) = P(\mathrm{Bin}(n, γ) = m + 1) / (nγ)$, so

$$
δ(ε) ≤ \max_{(x^0, x^1)} \frac{1}{nγ}\, E\Big[\Big(Σ_{i=1}^{n} W_i\Big)_+\Big], \qquad
W = Z \cdot \mathrm{Bern}(γ) \ \text{(independent)}, \quad Z = a(Y) − e^ε b(Y),\ Y \sim ω:
$$

one sum of n independent copies of W, whose characteristic function is the n-th power of W's.

**The lattice.** Each value z of Z is replaced by a draw of the two lattice points $h⌊z/h⌋$
and $h⌊z/h⌋ + h$ of mean z (a mean-preserving spread): given the W's, the lattice sum has
mean $Σ W_i$, so by Jensen's inequality $E[(Σ \tilde W_i)_+] ≥ E[(Σ W_i)_+]$ and the lattice
value is an upper bound; it adds at most $h^2/4$ to each draw's variance, so h can be a small
fraction of the standard deviation of Z rather than of the sum's (a quarter, finer where the
lattice is short: ``_RESOLUTION``). The law of W̃ is folded on
$\mathbb{Z}_N$, its real FFT raised to the n-th power and transformed back: that is the law of
the lattice sum folded mod N, read on a window $[L, L + N − 1]$ of lattice points that covers
the sum's mean minus ``_SPREAD`` standard deviations up to as many above zero. Folding only
moves mass from below the window into it (positive parts not below the truth's, where
negative) and from above it down into it; the mass above is charged by Chernoff's bound,
$E[S\,1\{S > u\}] ≤ (u + 1/λ)\, e^{−λu}\, E[e^{λ \tilde W}]^n$ for u ≥ 0, λ > 0
(as $s ≤ (u + 1/λ) e^{λ(s − u)}$ for s > u), its least over a grid of λ.

**Rounding, charged so that the value is an upper bound.** a is rounded up and b down, and
each computed z raised by a few ulps of $|a| + e^ε |b|$ (a larger Z only raises the positive
part), and the probability of the upper lattice point by a few ulps of $|z|/h + 1$ (a larger
mean again); ω's masses carry a total variation τ of a few ulps, which moves the bound by at
most τ times the range of W (couple the draws: each differing draw moves the sum by at most
the range; divided by nγ with n γ draws expected). The forward transform's every frequency
is within $c\,u (\log_2 N + 2) \sqrt{N} \|w\|_2$ of the truth (its error in the 2-norm,
Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §24.1, with c = 16 as in
`optmech.certify.shuffle_exact`); a frequency whose n-th power is then below $e^{−700}$ is
left out and charged that. The others ("live", near zero) are summed directly,
$\hat φ(θ) = Σ_j w_j e^{−iθ j}$ over the few lattice points, each within
$e_1 = u(4 |θ| \max_j |j| + 2 p + 16)$ for p points (the angle's rounding and the sum's),
or, beyond ``_DIRECT`` terms, taken from the transform with its error. Each n-th power is then
within $n e_1 (|\hat φ| + e_1)^{n − 1}$ plus the power's own
$8u (n (|\log \hat φ| + 1) + 4)$ relative. These errors reach $Σ_{k=0}^{\mathrm{top}} k\,
p(k)$ through the inverse transform, at most $(1/N)\, Σ_θ |e_θ|\, |Σ_{k ≤ top} k e^{iθk}|$
with $|Σ_{k ≤ K} k r^k| ≤ \min(K(K+1)/2,\ 2/|1 − r|^2 + K/|1 − r|)$; the inverse transform's
own error is charged in the 2-norm against the weights' 2-norm. Sums carry ``_SLACK``
relative.

**Pairs.** Pairs equal up to relabelling the outputs are evaluated once. At each ε every
pair gets Chernoff's bound $E[e^{λW}]^n / (λ nγ)$ (as $s ≤ e^{λs}/λ$ for s > 0), cheap; the
lattice is computed in decreasing order of it, until a pair's Chernoff bound is at most the
largest value so far (the curve is the largest over the pairs of the lesser of the two bounds,
so no pair is left out).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from optmech._floats import FloatArray, U

__all__ = ["LatticePairs", "lattice_pairs"]

#: Relative allowance for the sums.
_SLACK = 1e-12
#: Lattice spacing: the standard deviation of Z (under ω) divided by this, doubled (up to
#: ``_FINEST``) while the estimated lattice stays within ``_CHEAP_LENGTH`` (small n).
_RESOLUTION = 4.0
_FINEST = 32.0
_CHEAP_LENGTH = 1 << 12
#: Standard deviations of the sum the window covers below its mean and above zero.
_SPREAD = 12.0
#: Largest FFT length (estimated before, and enforced), and the most lattice cells (lengths
#: summed over the pairs computed) per ε, beyond which the curve is 1 there.
_MAX_LENGTH = 1 << 20
_MAX_CELLS = 1 << 23
#: Most distinct pair structures, and largest ``inputs² × outputs`` grouped.
_MAX_PAIRS = 512
_MAX_MATRIX = 1 << 18
#: Most terms (live frequencies times lattice points) summed directly.
_DIRECT = 1 << 18
#: Most halvings of ε below the reference, and most secant steps after them.
_HALVINGS = 4
_STEPS = 8


@dataclass(frozen=True)
class LatticePairs:
    """The distinct ordered pairs of a matrix, against its blanket.

    Attributes
    ----------
    weight : ndarray, shape (k_out,)
        ω, the blanket law.
    a, b : ndarray, shape (pairs, k_out)
        ``M(y|x⁰)/ω(y)`` rounded up and ``M(y|x¹)/ω(y)`` rounded down, one row per pair.
    gamma : float
        The blanket mass γ, rounded down.
    error : float
        Total variation between ω's computed and exact masses, an upper bound.
    """

    weight: FloatArray
    a: FloatArray
    b: FloatArray
    gamma: float
    error: float


def lattice_pairs(matrix: FloatArray) -> LatticePairs | None:
    """The distinct ordered pairs of a matrix (rows differing, and unequal as multisets of
    ``(ω, a, b)`` over the outputs), or None when there are more than ``_MAX_PAIRS``.

    Parameters
    ----------
    matrix : ndarray, shape (k_in, k_out)
        A validated row-stochastic matrix without zero columns and with a finite ε₀.

    Returns
    -------
    LatticePairs or None

    Examples
    --------
    >>> import numpy as np
    >>> m = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])
    >>> lattice_pairs(m).a.shape  # six ordered pairs: x¹ is x⁰ shifted by one or by two
    (2, 3)
    """
    k_in, k_out = matrix.shape
    if k_in * k_in * k_out > _MAX_MATRIX:
        return None
    floor = matrix.min(axis=0)
    gamma = float(floor.sum())
    omega = floor / gamma
    grow = 1.0 + 8.0 * k_out * U
    ratio = matrix / floor[None, :] * gamma
    first, second = (
        v.ravel() for v in np.meshgrid(np.arange(k_in), np.arange(k_in), indexing="ij")
    )
    keep = np.any(matrix[first] != matrix[second], axis=1)
    a, b = ratio[first[keep]] * grow, ratio[second[keep]] / grow
    if a.shape[0] == 0:
        return None
    # pairs alike up to relabelling the outputs: the sorted triples (ω, a, b) agree
    w = np.broadcast_to(omega, a.shape)
    order = np.lexsort((b, a, w), axis=-1)
    key = np.concatenate([np.take_along_axis(v, order, 1) for v in (w, a, b)], axis=1)
    _, index = np.unique(key, axis=0, return_index=True)
    if index.size > _MAX_PAIRS:
        return None
    return LatticePairs(
        weight=omega,
        a=a[index],
        b=b[index],
        gamma=gamma / grow,
        error=2.0 * (k_out + 2) * U,
    )


def _lattice_law(
    z: FloatArray, weight: FloatArray, gamma: float, h: float
) -> tuple[FloatArray, FloatArray]:
    """The lattice points (in units of h) and masses of W̃: z spread on its two neighbouring
    points with mean at least z, times γ, and 0 with mass 1 − γ."""
    scaled = z / h
    low = np.floor(scaled)
    up = np.minimum(1.0, scaled - low + 4.0 * U * (np.abs(scaled) + 1.0))
    points = np.concatenate([low, low + 1.0, [0.0]])
    mass = np.concatenate([gamma * weight * (1.0 - up), gamma * weight * up, [1.0 - gamma]])
    return points, np.maximum(mass, 0.0)


def _chernoff_tail(points: FloatArray, mass: FloatArray, n: int, top: float) -> float:
    """An upper bound on ``E[S 1{S > top}]`` (lattice units, top ≥ 0) for S the sum of n
    copies of the law (points, mass): the least over a grid of λ of
    ``(top + 1/λ) e^{−λ top} E[e^{λ W}]^n``."""
    spread = float(np.max(np.abs(points))) + 1.0
    best = math.inf
    for lam in np.geomspace(1e-3 / (spread * math.sqrt(n) + 1.0), 50.0 / spread, 64):
        mgf = float(np.dot(mass, np.exp(lam * points)))
        # the mgf to (size + 8) u relative, its logarithm to u more
        slack = n * ((points.size + 10) * U + abs(math.log(mgf)) * 1e-12)
        log = n * math.log(mgf) + slack + 1e-12 - lam * top + math.log(top + 1.0 / lam)
        best = min(best, log)
    return math.exp(min(best, 700.0)) * (1.0 + _SLACK)


def _pair_bound(
    n: int, z: FloatArray, weight: FloatArray, gamma: float, error: float, resolution: float
) -> tuple[float, int]:
    """``E[(Σ_{i ≤ n} W_i)_+] / (nγ)`` for one pair at one ε, an upper bound (module
    docstring), and the lattice's length; 1 when it would exceed ``_MAX_LENGTH``."""
    mean_z = float(np.dot(weight, z))
    var_z = max(float(np.dot(weight, (z - mean_z) ** 2)), 0.0)
    if var_z <= 0.0:
        return (1.0 if mean_z > 0.0 else 0.0), 0
    h = math.sqrt(var_z) / resolution
    points, mass = _lattice_law(z, weight, gamma, h)
    mean = n * float(np.dot(mass, points))
    sd = math.sqrt(n * max(float(np.dot(mass, points**2)) - (mean / n) ** 2, 0.0)) + 1.0
    spread = float(np.max(points) - np.min(points))
    # the range of W times the masses' total variation (ω's, and the spread's rounding)
    moved = (error + 4.0 * U * float(np.sum(mass))) * spread * h / gamma
    top = math.ceil(max(mean, 0.0) + _SPREAD * sd)
    if mean + _SPREAD * sd <= 0.0:  # the sum is positive only far in its tail
        tail = _chernoff_tail(points, mass, n, 0.0)
        return min(1.0, tail * h / (n * gamma) + moved), 0
    low = math.floor(min(mean - _SPREAD * sd, 0.0))
    length = 1 << max(4, int(top - low).bit_length())
    if length > _MAX_LENGTH:
        return 1.0, 0
    top = low + length - 1
    law = np.zeros(length)
    np.add.at(law, np.mod(points.astype(np.int64), length), mass)
    spectrum = np.fft.rfft(law)
    # every frequency within the transform's 2-norm error (Higham §24.1), so pointwise
    e_fft = 16.0 * U * (math.log2(length) + 2.0) * math.sqrt(length) * float(np.linalg.norm(law))
    with np.errstate(divide="ignore"):
        log_size = np.log(np.abs(spectrum) + e_fft)
    # frequencies whose n-th power is below e^−700 are left out, and charged as errors
    live = np.flatnonzero(n * log_size > -700.0)
    factor = np.full(spectrum.size, 2.0)
    factor[0] = 1.0
    factor[-1] = 1.0
    dead = float(np.sum(factor[log_size * n <= -700.0])) * math.exp(-700.0)
    # the live frequencies summed directly (points reduced mod N), each to γ_{k+4} relative
    # beyond the angles' rounding: more accurate than the transform's bound
    centred = np.mod(points + length // 2, length) - length // 2
    theta = 2.0 * math.pi * live / length
    phi: npt.NDArray[np.complex128]
    if live.size * points.size <= _DIRECT:
        phi = np.exp(-1j * np.outer(theta, centred)) @ mass.astype(np.complex128)
        e1 = U * (float(np.max(np.abs(centred))) * theta * 4.0 + 2.0 * points.size + 16.0)
    else:  # the transform's own values
        phi, e1 = spectrum[live], np.full(live.size, e_fft)
    log_size = np.log(np.abs(phi) + e1)
    power = np.exp(n * np.log(phi))
    log_phi = np.abs(np.log(phi))
    bound = n * e1 * np.exp((n - 1) * log_size) + 8.0 * U * (n * (log_phi + 1.0) + 4.0) * np.exp(
        n * log_size
    )
    full = np.zeros(spectrum.size, dtype=complex)
    full[live] = power
    pmf = np.fft.irfft(full, length)
    # |Σ_{k ≤ top} k e^{iθk}| ≤ min(top (top + 1)/2, 2/|1 − e^{iθ}|² + top/|1 − e^{iθ}|)
    chord = 2.0 * np.abs(np.sin(math.pi * live / length)) * (1.0 - 4.0 * U)
    with np.errstate(divide="ignore"):
        weight = np.minimum(top * (top + 1.0) / 2.0, 2.0 / chord**2 + top / chord)
    total = float(np.dot(factor[live] * bound, weight)) + dead * top * (top + 1.0) / 2.0
    # the inverse transform's error in the 2-norm (Higham §24.1; the spectrum's 2-norm over
    # √N is the result's), against the 2-norm of the weights k = 0 … top
    norm = math.sqrt(float(np.dot(factor[live], np.abs(power) ** 2)) / length)
    inverse = 16.0 * U * (math.log2(length) + 2.0) * (norm + float(np.sum(np.abs(bound))) / length)
    values = np.arange(0, top + 1)  # the positive lattice points of the window
    body = float(np.dot(np.maximum(pmf[values], 0.0), values))
    body += total / length + inverse * math.sqrt(top * (top + 1.0) * (2.0 * top + 1.0) / 6.0)
    body *= 1.0 + _SLACK
    tail = _chernoff_tail(points, mass, n, float(top))
    return min(1.0, (body + tail) * h / (n * gamma) * (1.0 + _SLACK) + moved), length


class LatticeCurve:
    """δ(ε) of the privacy blanket on the lattice, the largest over the distinct pairs, an
    upper bound (module docstring)."""

    def __init__(self, n: int, pairs: LatticePairs, eps0: float) -> None:
        self.n, self.pairs, self.eps0 = n, pairs, eps0
        self.resolution = _RESOLUTION
        while self.resolution < _FINEST and lattice_length(n, pairs, 2 * self.resolution) <= (
            _CHEAP_LENGTH
        ):
            self.resolution *= 2.0
        #: Pairs whose lattice was computed, over all calls.
        self.evaluated = 0

    def __call__(self, eps: float) -> float:
        """The largest over the pairs of the least of the Chernoff and the lattice bounds: the
        pairs in decreasing order of their Chernoff bound, the lattice computed until a
        pair's Chernoff bound is at most the largest so far; 1 beyond ``_MAX_CELLS``."""
        if eps >= self.eps0:
            return 0.0
        p, e = self.pairs, math.exp(eps)
        z = p.a - e * p.b
        z = z + 4.0 * U * (np.abs(p.a) + e * np.abs(p.b))
        cheap = _chernoff_pairs(self.n, z, p.weight, p.gamma, p.error)
        worst, cells = 0.0, 0
        for row in np.argsort(-cheap, kind="stable"):
            if cheap[row] <= worst:
                break
            value, length = _pair_bound(self.n, z[row], p.weight, p.gamma, p.error, self.resolution)
            worst = max(worst, min(value, float(cheap[row])))
            cells += length
            self.evaluated += 1
            if worst >= 1.0 or cells > _MAX_CELLS:
                return 1.0
        return min(1.0, worst)


def _chernoff_pairs(
    n: int, z: FloatArray, weight: FloatArray, gamma: float, error: float
) -> FloatArray:
    """Per pair (row of z), Chernoff's bound on ``E[(Σ_{i ≤ n} W_i)_+] / (nγ)``:
    the least over a grid of λ of ``E[e^{λW}]^n / λ`` (as s ≤ e^{λs}/λ for s > 0), with the
    masses' error times the range of W over γ (module docstring)."""
    spread = np.max(np.abs(z), axis=1) + 1e-300
    grid = np.geomspace(1e-4 / math.sqrt(n), 50.0, 48)[None, :] / spread[:, None]
    terms = np.exp(np.minimum(grid[:, :, None] * z[:, None, :], 700.0))
    mgf = (1.0 - gamma) + gamma * (terms @ weight)
    log = np.log(mgf)
    slack = n * ((z.shape[1] + 12) * U + np.abs(log) * 1e-12) + 1e-12
    best = np.min(n * log + slack - np.log(grid), axis=1)
    bound = np.exp(np.minimum(best, 700.0)) / (n * gamma) * (1.0 + _SLACK)
    span = np.max(z, axis=1) - np.minimum(np.min(z, axis=1), 0.0)
    return np.minimum(bound + (error + 8.0 * U) * span / gamma, 1.0)


def lattice_length(n: int, pairs: LatticePairs, resolution: float = _RESOLUTION) -> int:
    """An estimate of one pair's lattice length: the sum spans about ``2 _SPREAD`` standard
    deviations plus its mean's distance to zero, in units of the spacing (the standard
    deviation of Z over ``resolution``)."""
    return int(resolution * (2.0 * _SPREAD * math.sqrt(n * pairs.gamma) + 16.0))


def lattice_search(
    n: int, pairs: LatticePairs, delta: float, eps0: float, reference: float
) -> tuple[Callable[[float], float] | None, float]:
    """The lattice curve and the least ε found below ``reference`` (an ε certified by
    another bound) with curve(ε) ≤ δ; ``reference`` when the curve is above δ there; no curve
    when a pair's lattice would exceed ``_MAX_LENGTH``."""
    from optmech.certify.shuffle_blanket import _descend

    if lattice_length(n, pairs) > _MAX_LENGTH:
        return None, min(reference, eps0)
    curve = LatticeCurve(n, pairs, eps0)
    if not 0.0 < reference < eps0:
        return curve, min(reference, eps0)
    f_hi = curve(reference)
    if f_hi > delta or f_hi <= 0.0:
        return curve, reference
    hi = reference
    for _ in range(_HALVINGS):  # halve ε while the curve stays at most δ
        f_lo = curve(0.5 * hi)
        if f_lo > delta:
            break
        hi, f_hi = 0.5 * hi, f_lo
        if f_hi <= 0.0:
            return curve, hi
    else:
        return curve, hi
    slope = (math.log(f_lo) - math.log(f_hi)) / (-0.5 * hi)
    if not slope < 0.0:
        return curve, hi
    return curve, _descend(curve, delta, hi, f_hi, slope, _STEPS)
