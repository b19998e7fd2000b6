"""Binomial pmf, cdf and survival function without importing ``scipy.stats``.

``scipy.stats`` takes about a second to import; its binomial distribution evaluates Boost's
binomial functions, which ``scipy.special`` exposes as ufuncs. These wrappers call them
directly (the same numbers as ``scipy.stats.binom``) and give the distribution's values off the
support (0 or 1) where the ufuncs give NaN; if the ufuncs are not found, ``scipy.stats.binom``
is used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["binom"]


class _Binom:
    """``pmf``, ``cdf`` and ``sf`` of Bin(n, p), elementwise, like ``scipy.stats.binom``."""

    def __init__(self) -> None:
        try:
            from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_sf
        except ImportError:  # pragma: no cover - depends on the SciPy build
            from scipy.stats import binom

            self._stats: Any = binom
        else:
            self._stats = None
            self._pmf, self._cdf, self._sf = _binom_pmf, _binom_cdf, _binom_sf

    def _args(self, k: npt.ArrayLike, n: npt.ArrayLike) -> tuple[Any, Any, Any]:
        kk, nn = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(n))
        inside = (kk >= 0) & (kk <= nn)
        return np.clip(kk, 0, nn).astype(np.float64), nn.astype(np.float64), inside

    def pmf(self, k: npt.ArrayLike, n: npt.ArrayLike, p: float) -> Any:
        if self._stats is not None:  # pragma: no cover
            return self._stats.pmf(k, n, p)
        kk, nn, inside = self._args(k, n)
        return np.where(inside, self._pmf(kk, nn, p), 0.0)

    def cdf(self, k: npt.ArrayLike, n: npt.ArrayLike, p: float) -> Any:
        if self._stats is not None:  # pragma: no cover
            return self._stats.cdf(k, n, p)
        kk, nn, inside = self._args(k, n)
        raw = np.asarray(k, dtype=np.float64)
        return np.where(inside, self._cdf(kk, nn, p), np.where(raw < 0, 0.0, 1.0))

    def sf(self, k: npt.ArrayLike, n: npt.ArrayLike, p: float) -> Any:
        if self._stats is not None:  # pragma: no cover
            return self._stats.sf(k, n, p)
        kk, nn, inside = self._args(k, n)
        raw = np.asarray(k, dtype=np.float64)
        return np.where(inside, self._sf(kk, nn, p), np.where(raw < 0, 1.0, 0.0))


binom = _Binom()
