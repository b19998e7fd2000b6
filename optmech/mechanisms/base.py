"""Base classes of the additive-noise families: one public API, private formulas.

A family implements the private formulas (``_pdf``/``_pmf``, ``_cdf``, ``_ppf``, ``_rvs``,
``_expected_cost``) on validated float arrays; the public methods here broadcast, validate and
turn 0-d results into Python floats, following ``scipy.stats`` (but raising on bad input
instead of returning NaN). Randomness comes only through ``rng=`` (SPEC 7).

Tails follow the same pattern. The hooks ``_sf``, ``_logcdf``, ``_logsf`` and ``_logpdf`` /
``_logpmf`` have generic defaults here (``1 − _cdf`` and the logarithms of the plain
formulas), which lose the far tails to cancellation and underflow; every family overrides them
with exact tail formulas, in log space where the tail underflows, so that ``sf`` keeps full
relative precision down to the smallest doubles and ``logsf`` stays finite beyond them (the
families symmetric about 0 take their upper tails from their lower ones by reflection).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from fractions import Fraction
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from optmech._bridges import bridge
from optmech._floats import FloatArray
from optmech._validation import check_rng, check_size
from optmech.costs import Cost, as_cost
from optmech.mechanisms._points import _as_points, _log, _out, pointwise
from optmech.mechanisms.description import GridDescription, PrivacySource, SourceKind
from optmech.mechanisms.statistics import NoiseStatistics
from optmech.privacy import ApproxDP, Privacy, PureDP

__all__ = ["ContinuousNoise", "DiscreteNoise", "NoiseDistribution"]


#: Largest number of samples one call of ``rvs`` draws (refused above, before allocating).
MAX_SAMPLES = 500_000_000


def _keyword_repr(obj: object, **fields: Any) -> str:
    """``ClassName(name=value, ...)``, each value by its ``repr``: a family's constructor call.

    Parameters
    ----------
    obj : object
        The noise; its class name heads the text.
    **fields : Any
        The constructor's keywords and values, in the order to print.

    Returns
    -------
    str
        E.g. ``'Laplace(epsilon=1.0, sensitivity=1.0)'``.
    """
    args = ", ".join(f"{name}={value!r}" for name, value in fields.items())
    return f"{type(obj).__name__}({args})"


class NoiseDistribution(NoiseStatistics, ABC):
    """An additive noise law ``X`` for the mechanism ``K(D) = q(D) + X``.

    Attributes
    ----------
    sensitivity : float
        The query sensitivity Δ the noise is calibrated for.
    privacy : PureDP or ApproxDP
        The guarantee the noise gives for queries of that sensitivity.

    Examples
    --------
    >>> from optmech import Laplace
    >>> from optmech.mechanisms import NoiseDistribution
    >>> noise = Laplace(epsilon=1.0)
    >>> isinstance(noise, NoiseDistribution), round(noise.expected_cost("abs"), 9)
    (True, 1.0)
    >>> noise.rvs(3, rng=0).shape, noise.privacy
    ((3,), PureDP(epsilon=1.0))
    """

    #: ``True`` for noise on the integers (``pmf``), ``False`` for a density (``pdf``).
    discrete: bool = False
    sensitivity: float

    # -- to implement -----------------------------------------------------------------
    @property
    @abstractmethod
    def privacy(self) -> Privacy:
        """The privacy guarantee for queries of sensitivity `sensitivity`."""

    @abstractmethod
    def _cdf(self, x: FloatArray) -> FloatArray: ...

    @abstractmethod
    def _rvs(self, size: tuple[int, ...] | None, rng: np.random.Generator) -> FloatArray: ...

    @abstractmethod
    def _expected_cost(self, cost: Cost) -> float: ...

    def _ppf(self, q: FloatArray) -> FloatArray:
        raise NotImplementedError(f"{type(self).__name__} has no closed-form ppf.")

    # -- tail hooks (generic; families override them with exact tail formulas) -----------
    def _sf(self, x: FloatArray) -> FloatArray:
        """``P(X > x)``; this default ``1 − _cdf(x)`` loses the upper tail below 1e-16."""
        return 1.0 - self._cdf(x)

    def _logcdf(self, x: FloatArray) -> FloatArray:
        """``log P(X ≤ x)``; this default is ``−inf`` wherever ``_cdf`` underflows."""
        return _log(self._cdf(x))

    def _logsf(self, x: FloatArray) -> FloatArray:
        """``log P(X > x)``; this default is ``−inf`` wherever ``_sf`` underflows."""
        return _log(self._sf(x))

    # -- public API ---------------------------------------------------------------------
    def _points(self, x: npt.ArrayLike) -> FloatArray:
        """``x`` as validated real points; floored on ℤ, where the distribution functions are
        step functions."""
        arr = _as_points("x", x)
        return np.floor(arr) if self.discrete else arr

    @pointwise
    def cdf(self, x: npt.ArrayLike) -> FloatArray | float:
        """$P(X ≤ x)$, broadcast over ``x`` (a step function of ``x`` for noise on ℤ)."""
        return _out(self._cdf(self._points(x)))

    @pointwise
    def sf(self, x: npt.ArrayLike) -> FloatArray | float:
        """$P(X > x) = 1 − cdf(x)$, computed directly: full relative precision in the tail.

        On ℤ this is $P(X ≥ floor(x) + 1)$.

        Parameters
        ----------
        x : array_like
            Real points (±inf allowed, NaN refused).

        Returns
        -------
        float or ndarray
            A float for a scalar ``x``.
        """
        return _out(self._sf(self._points(x)))

    @pointwise
    def logcdf(self, x: npt.ArrayLike) -> FloatArray | float:
        """$log P(X ≤ x)$, finite far beyond the point where `cdf` underflows to 0 (a
        step function of ``x`` for noise on ℤ)."""
        return _out(self._logcdf(self._points(x)))

    @pointwise
    def logsf(self, x: npt.ArrayLike) -> FloatArray | float:
        """``log P(X > x)``, finite far beyond the point where `sf` underflows to 0 (a
        step function of ``x`` for noise on ℤ)."""
        return _out(self._logsf(self._points(x)))

    @pointwise
    def ppf(self, q: npt.ArrayLike) -> FloatArray | float:
        """Quantile function: the smallest ``x`` with $cdf(x) ≥ q$, for ``q`` in [0, 1]."""
        arr = _as_points("q", q)
        if np.any((arr < 0) | (arr > 1)):
            raise ValueError("`q` must be in [0, 1]; got values outside it.")
        return _out(self._ppf(arr))

    @overload
    def rvs(self, size: None = None, *, rng: Any = None) -> float: ...
    @overload
    def rvs(self, size: int | tuple[int, ...], *, rng: Any = None) -> FloatArray: ...
    @overload
    def rvs(self, size: Any = None, *, rng: Any = None) -> FloatArray | float: ...
    def rvs(self, size: Any = None, *, rng: Any = None) -> FloatArray | float:
        """Draw samples.

        Parameters
        ----------
        size : int or tuple of ints, optional
            Output shape; ``None`` draws a single float.
        rng : None, int, SeedSequence, BitGenerator or Generator
            Source of randomness, normalised by `numpy.random.default_rng`.
        """
        shape = check_size(size)
        if shape is not None and math.prod(shape) > MAX_SAMPLES:
            raise ValueError(
                f"`size` must have at most {MAX_SAMPLES:.0e} elements in all (about 4 GB of "
                f"float64 samples, plus temporaries); got {size!r}. Draw in batches."
            )
        gen = check_rng(rng)
        out = self._rvs(shape, gen)
        return float(out) if shape is None else out

    def expected_cost(self, cost: Cost | str) -> float:
        """``E c(X)``, computed exactly (closed form, series or stated-accuracy quadrature)."""
        c = as_cost(cost)
        value = float(self._expected_cost(c))
        if not np.isfinite(value):
            raise ValueError(f"the expected cost of {self!r} under {c!r} is not finite.")
        return value

    def plot(
        self,
        ax: Any = None,
        *,
        references: Any = (),
        span: float | None = None,
        label: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw the density (or pmf) with optional named ``references``, titled with the family,
        its ε (and δ) and Δ unless ``title`` is given; returns the Axes
        (`optmech.plotting.plot_noise`)."""
        from optmech.plotting import plot_noise

        return plot_noise(self, ax, references=references, span=span, label=label, title=title)

    def _repr_html_(self) -> str:
        """Notebook summary: the family, its guarantee and Δ (numbers at the display's six
        significant digits; ``repr`` keeps full precision)."""
        from optmech._display import html_summary

        rows = [("guarantee", self.privacy), ("sensitivity Δ", float(self.sensitivity))]
        return html_summary(type(self).__name__, rows)

    def to_opendp(self, *, float_sampling: bool = False, **options: Any) -> Any:
        """This noise as an OpenDP measurement releasing ``x + noise``, its privacy map the
        certified guarantee: `optmech.interop.to_opendp`
        ``(self, ...)`` (lattice noise is drawn by its exact sampler).

        The families do not import `optmech.interop` (it imports them): this method asks the
        registry ``optmech._bridges`` for the function, which
        `optmech.interop.opendp` registers when it is imported (the registry imports it on first
        use). The method and the function return the same measurement.

        Parameters
        ----------
        float_sampling : bool, default False
            Allow continuous noise, sampled in floating point.
        **options
            Further keywords of the function (``delta=``).
        """
        return bridge("to_opendp")(self, float_sampling=float_sampling, **options)

    # -- self-description (certification, accounting, interop read it) ---------------------
    def privacy_source(self) -> PrivacySource:
        """What the privacy of this noise rests on
        (`optmech.mechanisms.description.PrivacySource`).

        This default describes a family known by its theorem alone (no certifier reads it);
        the families with a closed-form law, known edges or a table override it.
        """
        return self._source(SourceKind.THEOREM)

    def _source(self, kind: SourceKind, **details: Any) -> PrivacySource:
        """A `PrivacySource` of this noise with
        its guarantee, sensitivity and samplers, and ``details`` (parameters, grid, ...)."""
        exact = getattr(type(self), "sample_exact", None)
        own_exact = exact is not None and exact is not DiscreteNoise.sample_exact
        return PrivacySource(
            kind=kind,
            family=type(self).__name__,
            guarantee=self.privacy,
            sensitivity=float(self.sensitivity),
            discrete=self.discrete,
            sample_exact=self.sample_exact if own_exact else None,  # type: ignore[attr-defined]
            sample_float=self.rvs,
            **details,
        )

    @property
    def epsilon(self) -> float:
        """ε of `privacy` (an ``AttributeError`` for a guarantee beyond (ε, δ))."""
        return self._approx().epsilon

    @property
    def delta(self) -> float:
        """δ of `privacy` (0 for pure DP; an ``AttributeError`` beyond (ε, δ))."""
        return self._approx().delta

    def _approx(self) -> PureDP | ApproxDP:
        privacy = self.privacy
        if not isinstance(privacy, PureDP | ApproxDP):
            raise AttributeError(
                f"the guarantee {privacy} has no single (ε, δ); read `.privacy`, or a design's "
                "certified numbers (certified_epsilon, certified_rho, certified_mu, ...)"
            )
        return privacy


class _SymmetricNoise(NoiseDistribution):
    """Noise symmetric about 0, whose upper tails are its lower tails reflected.

    ``P(X > x) = P(X < −x)``: ``_sf`` and ``_logsf`` evaluate ``_cdf`` and ``_logcdf`` at
    the reflected point. A family's lower tail at a negative point is its exact formula (no
    ``1 − ...`` cancellation), so the upper tail keeps full relative precision, and its
    logarithm stays finite, as far out as the lower one. Listed before
    ``ContinuousNoise`` or ``DiscreteNoise`` in a family's bases.
    """

    def _reflected(self, x: FloatArray) -> FloatArray:
        """The point ``m`` with ``P(X ≤ m) = P(X < −x)``.

        Parameters
        ----------
        x : FloatArray
            Points (integral or ±inf for discrete noise).

        Returns
        -------
        FloatArray
            ``−x`` for a density; ``−x − 1`` on the integers.
        """
        return -x - 1.0 if self.discrete else -x

    def _sf(self, x: FloatArray) -> FloatArray:
        return self._cdf(self._reflected(x))

    def _logsf(self, x: FloatArray) -> FloatArray:
        return self._logcdf(self._reflected(x))

    # -- scipy.stats parity: symmetry gives the mean, the odd moments and the upper quantiles --
    def _mean(self) -> float:
        return 0.0

    def _moment(self, n: int) -> float:
        return 0.0 if n % 2 else self._even_moment(n)

    def _even_moment(self, n: int) -> float:
        """``E X^n`` for even ``n`` (default: the generic route of ``NoiseStatistics``)."""
        return NoiseStatistics._moment(self, n)

    def _central_moment(self, n: int) -> float:
        return self._moment(n)

    def _isf(self, q: FloatArray) -> FloatArray:
        """``isf`` from the exact lower quantiles: ``−ppf(q)`` for a density; on ℤ
        ``−j − 1`` with ``j`` the largest integer with ``cdf(j) ≤ q``."""
        j = self._ppf(q)
        if not self.discrete:
            return -j
        j = np.where(self._cdf(j) <= q, j, j - 1.0)
        return -j - 1.0


class ContinuousNoise(NoiseDistribution):
    """Noise with a density on ℝ.

    Examples
    --------
    >>> from optmech import Laplace, Staircase
    >>> from optmech.mechanisms import ContinuousNoise
    >>> isinstance(Laplace(epsilon=1.0), ContinuousNoise), Laplace(epsilon=1.0).discrete
    (True, False)
    >>> round(float(Staircase.optimal(epsilon=1.0, cost="abs").cdf(0.0)), 9)
    0.5
    """

    discrete = False

    @abstractmethod
    def _pdf(self, x: FloatArray) -> FloatArray: ...

    def _logpdf(self, x: FloatArray) -> FloatArray:
        """``log f(x)``; this default is ``−inf`` wherever ``_pdf`` underflows."""
        return _log(self._pdf(x))

    @pointwise
    def pdf(self, x: npt.ArrayLike) -> FloatArray | float:
        """Density at ``x``, broadcast over ``x``. Atoms (if any) are not part of the density."""
        return _out(self._pdf(_as_points("x", x)))

    @pointwise
    def logpdf(self, x: npt.ArrayLike) -> FloatArray | float:
        """``log`` of the density at ``x`` ($−inf$ off the support), exact in the tails."""
        return _out(self._logpdf(_as_points("x", x)))


class DiscreteNoise(NoiseDistribution):
    """Noise on the integers ℤ.

    Examples
    --------
    >>> from optmech import Geometric
    >>> from optmech.mechanisms import DiscreteNoise
    >>> g = Geometric(epsilon=1.0)
    >>> isinstance(g, DiscreteNoise), g.discrete, round(float(g.pmf(0)), 6)
    (True, True, 0.462117)
    """

    discrete = True

    @abstractmethod
    def _pmf(self, k: FloatArray) -> FloatArray: ...

    def _logpmf(self, k: FloatArray) -> FloatArray:
        """``log P(X = k)`` (``k`` integral); this default is ``−inf`` where ``_pmf`` underflows."""
        return _log(self._pmf(k))

    def _on_integers(
        self, k: npt.ArrayLike, law: Callable[[FloatArray], FloatArray], off: float
    ) -> FloatArray | float:
        """``law`` (``_pmf`` or ``_logpmf``) at the integral points of ``k``, ``off`` elsewhere."""
        arr = _as_points("k", k)
        integral = np.isfinite(arr) & (arr == np.round(arr))
        safe = np.where(integral, arr, 0.0)
        return _out(np.where(integral, law(safe), off))

    @pointwise
    def pmf(self, k: npt.ArrayLike) -> FloatArray | float:
        """``P(X = k)``; zero at non-integers."""
        return self._on_integers(k, self._pmf, 0.0)

    @pointwise
    def logpmf(self, k: npt.ArrayLike) -> FloatArray | float:
        """``log P(X = k)``: $−inf$ at non-integers, finite where ``pmf`` underflows."""
        return self._on_integers(k, self._logpmf, -np.inf)

    def _periodic_grid(self, period: int, ratio: float) -> GridDescription:
        """The exact description of a pmf whose tails repeat one period of ``period`` points
        times ``ratio`` outwards from ``[0, period)``: the table ``P(0..period−1)``, the periods
        on each side as tails, and the reach Δ."""
        p = np.asarray(self.pmf(np.arange(-period, 2 * period)), dtype=np.float64)
        d = float(self.sensitivity)
        left, right = (p[:period], ratio), (p[2 * period :], ratio)
        return GridDescription(p[period : 2 * period], left, right, 0.0, Fraction(d), d, 1.0, True)

    def sample_exact(self, size: Any = None, rng: Any = None) -> Any:
        """Draws by integer and rational arithmetic alone
        (`optmech.mechanisms.exact_sampling`); each family
        states the law it samples.

        Parameters
        ----------
        size : int or tuple of int, optional
            Number (shape) of draws; None for one.
        rng : object with ``getrandbits``, optional
            ``random.Random(seed)`` for reproducible draws; default
            ``secrets.SystemRandom()``.

        Returns
        -------
        int or numpy.ndarray of int64
            A Python int for ``size=None``.
        """
        raise TypeError(f"{type(self).__name__} has no exact sampler; use rvs().")
