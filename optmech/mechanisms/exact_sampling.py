"""Exact samplers for lattice noise: integer and rational arithmetic only, no floating point.

A floating-point sampler releases the rounding pattern of its floats as well as the noise;
Mironov (2012), *On significance of the least significant bits for differential privacy*,
shows how that breaks the Laplace mechanism. The samplers here follow Canonne, Kamath & Steinke
(2020), *The discrete Gaussian for differential privacy*, §5: every random bit comes from
``rng.getrandbits``, and every probability is a rational number or ``exp(−x)`` of a rational
``x``, decided exactly with integer arithmetic alone:

* `bernoulli` — ``P(1) = p`` for a rational ``p`` (a uniform in [0, 1) compared with
  ``p`` 64 bits at a time, from the top);
* `bernoulli_exp` — ``P(1) = exp(−x)`` for a rational ``x ≥ 0`` (their Algorithm 1:
  for ``x ≤ 1`` draw Bernoulli(``x/k``) for ``k = 1, 2, …`` until one fails and answer whether
  the failure came at an odd ``k``; ``x > 1`` splits into ``⌊x⌋`` factors ``exp(−1)``);
* `geometric_exp` — ``P(k) = (1 − e^(−r)) e^(−r k)``, ``k ≥ 0``, for a rational
  rate ``r = s/t`` (their Algorithm 2: ``X = U + tV`` with ``U`` uniform on ``0..t−1`` kept with
  probability ``exp(−U/t)`` and ``V`` geometric of ratio ``e^(−1)``, so ``P(X = x) ∝ e^(−x/t)``, and
  ``⌊X/s⌋`` is geometric of ratio ``e^(−s/t)``);
* `geometric_ratio` — ``P(k) = (1 − ρ) ρ^k`` for a rational ``ρ``, by blocks
  of ``2^J`` (the law of ``k`` factorises over its binary digits);
* `RationalTable` — a finite law with rational weights; floats are taken as the
  dyadic rationals they are (every float is ``m·2^e``), so a stored pmf is sampled exactly as
  stored;
* `two_sided` and `lattice_draw` — symmetric laws from their magnitude,
  and the tabulated lattice noise (a table and geometric tails) of the LP designs.

A float parameter (``ε`` of `Geometric`) is taken as the
exact rational number the float is, so what is sampled is exactly the law with that parameter:
its privacy is exactly the ε of the family, with no rounding at all.

Timing: the number of random bits and loop iterations depends on the value drawn (the loops of
Algorithms 1 and 2 run longer for larger noise), so the *time* a sample takes leaks about it.
Sample in a process whose timing an adversary cannot observe, or pad to a constant time.
"""

from __future__ import annotations

import bisect
import functools
import math
import secrets
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from optmech._validation import check_size, describe

__all__ = [
    "RationalTable",
    "bernoulli",
    "bernoulli_exp",
    "check_bit_source",
    "draw_many",
    "geometric_exp",
    "geometric_ratio",
    "lattice_draw",
    "two_sided",
    "uniform_below",
]

RationalLike = Fraction | int | float
#: ``rng.getrandbits``: the one source of randomness of every sampler here.
Bits = Callable[[int], int]
#: Bits of the exact powers ``ρ^(2^j)`` kept by the block geometric sampler.
_POWER_BITS = 4096


def check_bit_source(rng: Any) -> Any:
    """``rng`` if it has ``getrandbits`` (``random.Random``, ``secrets.SystemRandom``); ``None``
    gives a new ``secrets.SystemRandom()`` (the operating system's entropy)."""
    if rng is None:
        return secrets.SystemRandom()
    if not callable(getattr(rng, "getrandbits", None)):
        raise TypeError(
            "`rng` must be None or have a getrandbits method (random.Random(seed) for "
            f"reproducible draws, secrets.SystemRandom() for production); got {describe(rng)}."
        )
    return rng


def uniform_below(n: int, rng: Any) -> int:
    """A uniform integer in ``0 … n − 1`` (``n ≥ 1``), by rejection from ``getrandbits``."""
    return _uniform(n, rng.getrandbits)


def _uniform(n: int, bits: Bits) -> int:
    if n == 1:
        return 0
    k = (n - 1).bit_length()
    while True:
        u = bits(k)
        if u < n:
            return int(u)


def _bernoulli(num: int, den: int, bits: Bits) -> bool:
    """``P(True) = num/den``: a uniform ``U ∈ [0, 1)`` compared with ``num/den`` 64 bits at a
    time, from the top (base-``2^64`` digits of both); the first digit where they differ decides
    ``U < p``, and if ``p``'s expansion ends while they agree, ``U ≥ p``. About one 64-bit
    draw per decision."""
    if num <= 0:
        return False
    if num >= den:
        return True
    rem = num
    while True:
        digit, rem = divmod(rem << 64, den)
        u = bits(64)
        if u != digit:
            return u < digit
        if not rem:
            return False


def bernoulli(p: Fraction, rng: Any) -> bool:
    """True with probability ``p ∈ [0, 1]`` (a rational), exactly."""
    return _bernoulli(p.numerator, p.denominator, rng.getrandbits)


def _bernoulli_exp_unit(num: int, den: int, bits: Bits) -> bool:
    """``P(True) = exp(−num/den)`` for ``0 ≤ num ≤ den`` (Canonne et al. 2020, Alg. 1)."""
    k = 1
    while _bernoulli(num, den * k, bits):
        k += 1
    return k & 1 == 1


def _bernoulli_exp(num: int, den: int, bits: Bits) -> bool:
    whole, rest = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, bits):
            return False
    return _bernoulli_exp_unit(rest, den, bits)


def bernoulli_exp(x: Fraction, rng: Any) -> bool:
    """True with probability ``exp(−x)`` for a rational ``x ≥ 0``, exactly."""
    return _bernoulli_exp(x.numerator, x.denominator, rng.getrandbits)


def geometric_exp(rate: Fraction, rng: Any) -> int:
    """``k ≥ 0`` with ``P(k) = (1 − e^(−rate)) e^(−rate·k)``, for a rational ``rate > 0``
    (Canonne et al. 2020, Alg. 2, one-sided)."""
    s, t, bits = rate.numerator, rate.denominator, rng.getrandbits
    u = 0
    if t > 1:
        while True:
            u = _uniform(t, bits)
            if _bernoulli_exp_unit(u, t, bits):
                break
    v = 0
    while _bernoulli_exp_unit(1, 1, bits):
        v += 1
    return (u + t * v) // s


class _RatioGeometric:
    """``P(k) = (1 − ρ)ρ^k`` by blocks: with ``k = 2^J q + Σ_(j<J) 2^j c_j`` the law factorises,
    ``ρ^k = (ρ^(2^J))^q Π_j (ρ^(2^j))^(c_j)``, so ``q`` is geometric of ratio ``ρ^(2^J)`` and
    the bits ``c_j`` are independent with ``P(c_j = 1) = ρ^(2^j)/(1 + ρ^(2^j))``. ``J`` is the
    least with ``ρ^(2^J) ≤ 1/2`` (capped so that the exact powers stay below 4096 bits): about
    ``J + 2`` coins instead of ``1/(1 − ρ)``."""

    def __init__(self, ratio: Fraction) -> None:
        self._levels: list[tuple[int, int]] = []
        power = ratio
        while 2 * power > 1 and power.denominator.bit_length() <= _POWER_BITS // 2:
            a, b = power.numerator, power.denominator
            self._levels.append((a, a + b))  # ρ^(2^j)/(1 + ρ^(2^j)) = a/(a + b)
            power = power * power
        self._block = (power.numerator, power.denominator)

    def sample(self, bits: Bits) -> int:
        num, den = self._block
        q = 0
        while _bernoulli(num, den, bits):
            q += 1
        k = q << len(self._levels)
        for j, (a, ab) in enumerate(self._levels):
            if _bernoulli(a, ab, bits):
                k += 1 << j
        return k


@functools.lru_cache(maxsize=64)
def _ratio_geometric(ratio: Fraction) -> _RatioGeometric:
    return _RatioGeometric(ratio)


def geometric_ratio(ratio: Fraction, rng: Any) -> int:
    """``k ≥ 0`` with ``P(k) = (1 − ρ) ρ^k`` for a rational ``ρ ∈ [0, 1)`` (by blocks of
    ``2^J``, the law factorising over the binary digits of ``k``)."""
    return _ratio_geometric(ratio).sample(rng.getrandbits)


class RationalTable:
    """A finite law with non-negative rational weights (floats: as stored), sampled exactly.

    The weights are put over one common denominator (a power of two for floats), so each is
    an integer count; a uniform integer below the total picks the outcome by bisection. The
    law sampled is ``weights / Σ weights``, computed exactly.

    Examples
    --------
    >>> import random
    >>> table = RationalTable([0.25, 0.5, 0.25])
    >>> table.probability(1)
    Fraction(1, 2)
    >>> table.draw(random.Random(0)) in (0, 1, 2)
    True
    """

    def __init__(self, weights: Sequence[RationalLike] | np.ndarray) -> None:
        fractions = [Fraction(w) for w in np.asarray(weights, dtype=object).ravel()]
        if not fractions or any(w < 0 for w in fractions) or sum(fractions) == 0:
            raise ValueError("the weights must be non-negative with a positive sum.")
        scale = math.lcm(*(w.denominator for w in fractions))
        counts = [int(w * scale) for w in fractions]
        self._cumulative = list(np.cumsum(np.asarray(counts, dtype=object)))
        self._total = int(self._cumulative[-1])
        self._scale = scale

    @property
    def total(self) -> Fraction:
        """``Σ weights``, exactly."""
        return Fraction(self._total, self._scale)

    def probability(self, i: int) -> Fraction:
        """The exact probability of outcome ``i`` under the sampled law."""
        low = self._cumulative[i - 1] if i > 0 else 0
        return Fraction(int(self._cumulative[i]) - int(low), self._total)

    def draw(self, rng: Any) -> int:
        """One outcome index, with probability `probability`."""
        return bisect.bisect_right(self._cumulative, _uniform(self._total, rng.getrandbits))


def two_sided(magnitude: Callable[[Any], int]) -> Callable[[Any], int]:
    """A draw of ``P(x) ∝ q(|x|)`` on ℤ from a draw of ``Y ≥ 0`` with ``P(Y = y) ∝ q(y)``.

    A fair sign is attached and ``(−, 0)`` rejected, so 0 is counted once (Canonne et al.
    2020, Alg. 2, last step).
    """

    def draw(rng: Any) -> int:
        while True:
            y = magnitude(rng)
            negative = rng.getrandbits(1)
            if not (negative and y == 0):
                return -y if negative else y

    return draw


def lattice_draw(
    start: int,
    values: Sequence[float] | np.ndarray,
    period: int,
    left: tuple[Sequence[float] | np.ndarray, float],
    right: tuple[Sequence[float] | np.ndarray, float],
) -> tuple[Callable[[Any], int], Fraction]:
    """A draw of tabulated lattice noise exactly as stored, and the exact total of the stored
    probabilities.

    The law: ``values[i]`` at ``start + i``; right of the table, period ``j ≥ 0`` holds
    ``base·ratio^j`` on the ``period`` integers from ``start + len(values) + j·period``; left
    of it the same leftwards (``base`` ordered left to right). Every float is the dyadic
    rational it is; the sampled law is the stored one divided by the returned total (1 up to
    the rounding of the stored floats), so a ratio of probabilities — what a pure ε measures
    — is exactly the stored one.
    """
    table = [Fraction(float(v)) for v in values]
    parts: list[Fraction] = list(table)
    tails = []
    for side, (base, ratio) in (("right", right), ("left", left)):
        rho = Fraction(float(ratio))
        weights = [Fraction(float(b)) for b in base]
        mass = sum(weights, Fraction(0)) / (1 - rho)
        parts.append(mass)
        tails.append((side, RationalTable(weights) if mass > 0 else None, rho))
    chooser = RationalTable(parts)
    n, end = len(table), start + len(table)

    def draw(rng: Any) -> int:
        i = chooser.draw(rng)
        if i < n:
            return start + i
        side, within, rho = tails[i - n]
        assert within is not None  # a tail of zero mass is never chosen
        j = geometric_ratio(rho, rng)
        pos = within.draw(rng)
        return end + j * period + pos if side == "right" else start - (j + 1) * period + pos

    return draw, chooser.total


def draw_many(draw: Callable[[Any], int], size: Any, rng: Any) -> Any:
    """``size`` draws of ``draw(rng)``: a Python int for ``size=None``, else an int64 array."""
    bits = check_bit_source(rng)
    shape = check_size(size)
    if shape is None:
        return int(draw(bits))
    count = math.prod(shape)
    return np.fromiter((draw(bits) for _ in range(count)), dtype=np.int64, count=count).reshape(
        shape
    )
