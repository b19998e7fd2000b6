"""A user's own cost (`Custom`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from optmech._validation import check_callable, check_real, describe
from optmech.costs.base import _PROBE, ArrayLike, Cost, FloatArray

__all__ = ["Custom"]


class Custom(Cost):
    """A user cost from a vectorised callable, possibly asymmetric.

    The shape flags are inferred by probing ``fn`` at ±10⁻⁶ … ±10⁶ unless given; a flag given as
    ``True`` that the probe contradicts raises `ValueError`.

    Parameters
    ----------
    fn : callable
        ``fn(e)`` for a float array ``e`` returns an array of the same shape of finite, real
        costs. Called with arrays, so it must be vectorised (use numpy functions).
    symmetric, nondecreasing : bool, optional
        The cost's shape; inferred when omitted.
    antiderivative : callable, optional
        ``F`` with ``F' = fn``; makes `integral` exact instead of quadrature.
    growth : float, optional
        Polynomial degree of growth, for documentation of tail convergence.
    name : str, optional
        Label used in tables.

    Examples
    --------
    >>> import numpy as np
    >>> c = Custom(lambda e: np.where(e > 0, 3 * e, -e))
    >>> c.symmetric, c.nondecreasing
    (False, True)
    """

    def __init__(
        self,
        fn: Callable[[FloatArray], ArrayLike],
        *,
        symmetric: bool | None = None,
        nondecreasing: bool | None = None,
        antiderivative: Callable[[FloatArray], ArrayLike] | None = None,
        growth: float | None = None,
        name: str | None = None,
    ) -> None:
        self._fn = check_callable("fn", fn)
        self._anti = (
            None if antiderivative is None else check_callable("antiderivative", antiderivative)
        )
        self._label = "custom" if name is None else str(name)
        self.growth = None if growth is None else check_real("growth", growth, low=0.0)
        probe = np.concatenate([-_PROBE[::-1], _PROBE])
        values = self._checked(probe, "fn")
        pos = values[len(_PROBE) :]
        neg = values[: len(_PROBE)][::-1]  # neg[k] = c(−_PROBE[k])
        # Pointwise relative comparisons, so a large cost far out cannot hide a small asymmetry.
        sym_scale = 1e-12 * (1.0 + np.maximum(np.abs(pos), np.abs(neg)))
        is_sym = bool(np.all(np.abs(pos - neg) <= sym_scale))
        is_mono = bool(
            np.all(np.diff(pos) >= -1e-12 * (1.0 + np.abs(pos[1:])))
            and np.all(np.diff(neg) >= -1e-12 * (1.0 + np.abs(neg[1:])))
        )
        self.symmetric = self._flag("symmetric", symmetric, is_sym)
        self.nondecreasing = self._flag("nondecreasing", nondecreasing, is_mono)

    def _flag(self, name: str, given: bool | None, probed: bool) -> bool:
        if given is None:
            return probed
        if not isinstance(given, bool | np.bool_):
            raise TypeError(f"`{name}` must be True, False or None; got {describe(given)}.")
        if given and not probed:
            raise ValueError(
                f"`{name}=True` was declared but the cost is not {name} on the probe "
                "points ±1e-6 … ±1e6."
            )
        return bool(given)

    def _checked(self, e: FloatArray, what: str) -> FloatArray:
        try:
            # The result is checked for NaN/inf below, so numpy's warnings add nothing.
            with np.errstate(all="ignore"):
                raw = np.asarray(self._fn(e) if what == "fn" else self._anti(e))  # type: ignore[misc]
            if raw.dtype.kind not in "biuf":
                raise TypeError(f"it returned dtype {raw.dtype}")
            out = raw.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"`{what}` must accept a float array and return real numbers; calling it "
                f"raised {type(exc).__name__}: {exc}"
            ) from exc
        if out.shape != e.shape:
            try:
                out = np.broadcast_to(out, e.shape).astype(np.float64)
            except ValueError as exc:
                raise ValueError(
                    f"`{what}` must be vectorised: for an input of shape {e.shape} it returned "
                    f"shape {out.shape}."
                ) from exc
        if not np.all(np.isfinite(out)):
            raise ValueError(
                f"`{what}` returned NaN or inf for a finite error; costs must be finite."
            )
        return out

    @property
    def name(self) -> str:
        return self._label

    def _value(self, e: FloatArray) -> FloatArray:
        flat = e.reshape(-1)
        return self._checked(flat, "fn").reshape(e.shape)

    def _antiderivative(self, x: FloatArray) -> FloatArray | None:
        if self._anti is None:
            return None
        flat = x.reshape(-1)
        return self._checked(flat, "antiderivative").reshape(x.shape) - float(
            self._checked(np.zeros(1), "antiderivative")[0]
        )

    def __repr__(self) -> str:
        return (
            f"Custom(name={self._label!r}, symmetric={self.symmetric}, "
            f"nondecreasing={self.nondecreasing})"
        )
