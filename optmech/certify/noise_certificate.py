"""The certificate of a 1-D noise: pure ε, δ at an ε, and the number of its own guarantee.

Any 1-D noise that describes itself (``privacy_source()``,
`optmech.mechanisms.description`) is certified from that
description alone: grids by
`certify_noise_epsilon` and
`certify_noise_delta` (``optmech.certify.noise``, which
derives the bounds), closed forms through their exact profiles
(`optmech.certify.profiles`), and the guarantee the noise claims —
pure ε, (ε, δ), or beyond (ρ, μ, a profile, a Rényi curve) — through
`certify_guarantee`.
`check_noise` answers with a bool.

Examples
--------
>>> from optmech.mechanisms.laplace import Laplace
>>> check_noise(Laplace(epsilon=1.0), epsilon=1.0)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from optmech._validation import check_flag, check_int, check_real, describe
from optmech.certify.noise import (
    DeltaReport,
    EpsilonReport,
    certify_noise_delta,
    certify_noise_epsilon,
)
from optmech.certify.profiles import certify_guarantee, privacy_profile, pure_epsilon
from optmech.certify.report import (
    FLOAT_RTOL,
    PrivacyReport,
    default_rtol,
    verdict,
)
from optmech.mechanisms.description import (
    GridDescription,
    SourceKind,
    exact_reach,
    grid_of,
    source_of,
)
from optmech.privacy import ApproxDP, PureDP, check_privacy

__all__ = ["NoiseCertificate", "certify_noise", "check_noise"]


@dataclass(frozen=True)
class NoiseCertificate(PrivacyReport):
    """What is certified about a 1-D noise, as `certify_noise` returns it.

    Attributes
    ----------
    epsilon : float
        Achieved pure ε (``inf`` when the noise is not pure-DP, e.g. finite support or an atom).
    delta : float or None
        Achieved δ at `delta_epsilon` (None when no ε was given and the guarantee has none).
    delta_epsilon : float or None
        The ε at which δ was computed.
    epsilon_report, delta_report : EpsilonReport, DeltaReport or None
        Where each is attained (grid noise; None for a closed form, whose numbers come from its
        exact profile, and for δ when none was computed).
    guarantee : object
        The guarantee certified: the one asked for, else the noise's own claim.
    value : float or tuple of float
        Its certified number: ε (PureDP), δ at its ε (ApproxDP), ρ (ZCDP), μ (GaussianDP), the
        divergences at its orders (RenyiDP) or δ at its ε_j (PrivacyProfile).
    holds : bool
        Whether `value` meets `guarantee` within the tolerance of
        `optmech.certify.report`.
    reason : str
        One line: where the number is attained, or how it was found.
    exact : bool
        Certified in exact rational arithmetic (ε and δ of grid noise with ``exact=True``).

    Examples
    --------
    >>> from optmech import Laplace
    >>> from optmech.certify import certify_noise
    >>> cert = certify_noise(Laplace(epsilon=1.0))
    >>> round(cert.epsilon, 9), cert.delta, cert.guarantee
    (1.0, 0.0, PureDP(epsilon=1.0))
    """

    epsilon: float
    delta: float | None
    delta_epsilon: float | None
    epsilon_report: EpsilonReport | None = field(default=None, repr=False)
    delta_report: DeltaReport | None = field(default=None, repr=False)
    guarantee: Any = None
    value: Any = None
    holds: bool | None = None
    reason: str = ""
    exact: bool = False


# -- objects --------------------------------------------------------------------------------------
def _with_sensitivity(desc: GridDescription, sensitivity: Any) -> GridDescription:
    """The grid with the reach of another sensitivity: ``Δ`` points on ℤ, ``Δ/h`` cells."""
    if sensitivity is None:
        return desc
    if desc.discrete:  # whole shifts on ℤ
        delta = check_int("sensitivity", sensitivity, low=1, hint="noise on ℤ")
        return replace(desc, reach=Fraction(delta), sensitivity=float(delta))
    if not desc.equal_cells or desc.width is None:
        raise ValueError(
            "`sensitivity` of a grid without a uniform cell width (a graded grid reaches m cells "
            f"per period Δ) is its own; got {describe(sensitivity)}."
        )
    cells = exact_reach(None, sensitivity, desc.width)
    return replace(desc, reach=cells, sensitivity=float(sensitivity))


def _claim(src: Any, guarantee: Any) -> Any:
    if guarantee is not None:
        return check_privacy(guarantee, beyond=True)
    if src is None:
        return None
    return src.guarantee


def _pure_and_delta(
    noise: Any, src: Any, grid: GridDescription | None, at: float | None, sens: Any, exact: bool
) -> tuple[float, EpsilonReport | None, float | None, DeltaReport | None]:
    """Pure ε and δ at ``at``: from the grid, or from a closed form's exact profile."""
    if grid is not None:
        eps_rep = certify_noise_epsilon(grid, exact=exact)
        delta_rep = None if at is None else certify_noise_delta(grid, epsilon=at, exact=exact)
        return eps_rep.epsilon, eps_rep, None if delta_rep is None else delta_rep.delta, delta_rep
    if src.kind in (SourceKind.LAPLACE, SourceKind.GAUSSIAN, SourceKind.PIECEWISE):
        if exact:
            raise ValueError(
                f"`exact=True` certifies grid noise; {src.family} is certified from its exact "
                "closed-form profile (pass exact=False)."
            )
        delta = None if at is None else float(privacy_profile(noise, at, sensitivity=sens))
        return pure_epsilon(noise, sensitivity=sens), None, delta, None
    raise TypeError(
        f"{src.family} has no independent certifier: its guarantee is its theorem's "
        f"({src.guarantee}); optmech.certify reads grids, closed-form profiles and matrices."
    )


def certify_noise(
    noise: Any,
    *,
    epsilon: float | None = None,
    exact: bool = False,
    guarantee: Any = None,
    sensitivity: float | None = None,
    rtol: float | None = None,
) -> NoiseCertificate:
    """Certify 1-D noise: pure ε, δ at ``epsilon``, and the number of its guarantee.

    Parameters
    ----------
    noise : noise object or GridDescription
        Any 1-D noise that describes itself (``privacy_source()``): the tabulated families
        (`PiecewiseConstantNoise`, `LatticeNoise`, graded noise, every design) are read from
        their ``grid_description()`` — nothing else about them is trusted; `Geometric` and
        `DiscreteStaircase` from their exact periodic pmf; `Laplace`, `Gaussian`, `Staircase`
        and `UniformAtom` from their exact profiles
        (`optmech.certify.profiles`). A bare
        `GridDescription` (or pmf mapping) is
        certified without a claim. The reach is exact ($Δ/h$, see
        `cells_within_reach`).
    epsilon : float, optional
        The ε at which δ is certified, in [0, inf); default the ε of the guarantee (none for
        ZCDP, GaussianDP, RenyiDP and PrivacyProfile: then `delta` is None).
    exact : bool, default False
        ε and δ of grid noise in rational arithmetic with interval enclosures
        (`certify_noise_epsilon`); the number of a
        guarantee beyond (ε, δ) is always certified in pessimistic floating point.
    guarantee : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile, optional
        The guarantee whose number to certify; default the noise's own (``noise.privacy``).
    sensitivity : float, optional
        Δ, in (0, inf) (an integer on ℤ); default the noise's own.
    rtol : float, optional
        Slack of `holds` (default by the convention of
        `optmech.certify.report`).

    Returns
    -------
    NoiseCertificate

    Examples
    --------
    Laplace noise of scale Δ/ε is exactly ε-DP (Dwork, McSherry, Nissim & Smith (2006)):

    >>> from optmech.mechanisms.laplace import Laplace
    >>> cert = certify_noise(Laplace(epsilon=1.0))
    >>> bool(1.0 <= cert.epsilon <= 1.0 + 1e-12), cert.delta
    (True, 0.0)
    """
    exact = check_flag("exact", exact)
    src = source_of(noise)
    grid = grid_of(noise)
    if src is None and grid is None:
        raise TypeError(
            "`noise` must be an optmech noise that describes itself (privacy_source(); grid "
            "noise also grid_description()) or a GridDescription; got "
            f"{describe(noise)} of type {type(noise).__name__}."
        )
    claim = _claim(src, guarantee)
    if grid is not None:
        grid = _with_sensitivity(grid, sensitivity)
    if epsilon is not None:
        at: float | None = check_real("epsilon", epsilon, low=0.0)
    else:
        at = claim.epsilon if isinstance(claim, PureDP | ApproxDP) else None
    eps, eps_rep, delta, delta_rep = _pure_and_delta(noise, src, grid, at, sensitivity, exact)
    tol = default_rtol(claim) if rtol is None else check_real("rtol", rtol, low=0.0, high=1.0)
    if claim is None or isinstance(claim, PureDP):
        value, reason = eps, (eps_rep.reason if eps_rep else "the exact closed-form profile")
        holds = None if claim is None else bool(eps <= claim.epsilon * (1.0 + tol))
    elif isinstance(claim, ApproxDP) and at == claim.epsilon and delta is not None:
        value, reason = delta, (delta_rep.reason if delta_rep else "the exact profile")
        holds = bool(delta <= claim.delta * (1.0 + tol))
    else:
        target, sens = (grid, None) if grid is not None else (noise, sensitivity)
        rep = certify_guarantee(target, claim, sensitivity=sens, rtol=tol)
        value, holds, reason = rep.achieved, rep.holds, rep.reason
    exact_value = exact and isinstance(claim, PureDP | ApproxDP | None) and grid is not None
    return NoiseCertificate(
        eps, delta, at, eps_rep, delta_rep, claim, value, holds, reason, exact_value
    )


def check_noise(
    noise: Any,
    epsilon: float,
    delta: float = 0.0,
    *,
    rtol: float = FLOAT_RTOL,
    debug: bool = False,
    exact: bool = False,
) -> bool:
    """Whether 1-D noise is (ε, δ)-DP for its sensitivity, up to relative tolerance ``rtol``.

    Parameters
    ----------
    noise : noise object
        As for `certify_noise`.
    epsilon : float
        Claimed ε, in [0, inf).
    delta : float, default 0
        Claimed δ, in [0, 1]. With ``0`` the pure ε is checked; otherwise δ at ``epsilon``.
    rtol : float, default 1e-9
        Relative slack for rounding, in [0, inf) (``FLOAT_RTOL``,
        `optmech.certify.report`).
    debug : bool, default False
        Return True when the claim holds, otherwise raise
        `PrivacyViolationError` naming the worst
        pair or shift, the `NoiseCertificate` as its ``report``. (Earlier
        versions returned the certificate; use `certify_noise` for it.)
    exact : bool, default False
        Certify in rational arithmetic (`certify_noise`).

    Returns
    -------
    bool

    Examples
    --------
    >>> from optmech import Laplace, Staircase
    >>> from optmech.certify import check_noise
    >>> check_noise(Laplace(epsilon=1.0), 1.0), check_noise(Laplace(epsilon=1.0), 0.9)
    (True, False)
    >>> check_noise(Staircase.optimal(epsilon=1.0, cost="abs"), 1.0)
    True
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    dlt = check_real("delta", delta, low=0.0, high=1.0)
    tol = check_real("rtol", rtol, low=0.0)
    debug = check_flag("debug", debug)
    cert = certify_noise(noise, epsilon=eps, exact=exact)
    why: PrivacyReport | None
    if dlt == 0.0:
        holds = bool(cert.epsilon <= eps * (1.0 + tol))
        claim, why = f"{eps:g}-DP", cert.epsilon_report
    else:
        assert cert.delta is not None
        holds = bool(cert.delta <= dlt * (1.0 + tol))
        claim, why = f"({eps:g}, {dlt:g})-DP", cert.delta_report
    return verdict(holds, cert, claim, debug, why)
