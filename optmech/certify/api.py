"""One entry point: `certify` any mechanism or noise, `check` any claim.

Both dispatch on what the object says about itself (``privacy_source()``,
`optmech.mechanisms.description`), never on its class:

* a mechanism matrix (an array, or a user LP result, which describes itself as one) —
  `certify_mechanism` over its neighbour graph, a
  `MatrixCertificate`;
* noise on the line — `certify_noise` under the
  guarantee asked for (default its own), a
  `NoiseCertificate`: grids are read from their numbers,
  closed forms from their exact profiles, and the number of any guarantee (ε, δ, ρ, μ, a profile,
  a Rényi curve) is certified;
* noise in ℝ² on square cells —
  `certify_noise2d_epsilon`, a
  `Noise2DReport`;
* a family known by its theorem alone (the staircase in ℝ^d) — a
  `TheoremReport` stating the proof.

`check` compares the report with the claim by the tolerance convention of
`optmech.certify.report` and, with ``debug=True``, raises
`PrivacyViolationError` when it fails (as OpenDP's
``check(d_in, d_out, debug)`` does).

Examples
--------
>>> import numpy as np
>>> from optmech.mechanisms import Geometric
>>> from optmech.privacy import PureDP, ZCDP
>>> G = np.array([[4, 1, 1], [2, 2, 2], [1, 1, 4]]) / 6
>>> round(certify(G).value, 9), check(G, PureDP(0.7))
(0.693147181, True)
>>> g = Geometric(epsilon=1.0)
>>> check(g, PureDP(1.0)), check(g, ZCDP(0.5))
(True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optmech._validation import check_flag, check_real, describe
from optmech.certify.matrix import certify_mechanism, certify_mechanism_delta
from optmech.certify.noise2d import certify_noise2d_epsilon
from optmech.certify.noise_certificate import certify_noise
from optmech.certify.report import PrivacyReport, TheoremReport, default_rtol, verdict
from optmech.mechanisms.description import PrivacySource, SourceKind, grid_of, source_of
from optmech.privacy import ApproxDP, PureDP, check_privacy

__all__ = ["certify", "check"]


def _pure_only(guarantee: Any, what: str) -> None:
    if guarantee is not None and not isinstance(guarantee, PureDP):
        raise TypeError(
            f"{what} is certified for pure ε-DP; `guarantee` must be None or "
            f"optmech.PureDP(epsilon); got {describe(guarantee)}."
        )


def _matrix(
    matrix: Any, graph: Any, guarantee: Any, exact: bool, rtol: float | None
) -> PrivacyReport:
    if isinstance(guarantee, ApproxDP) and not exact:  # δ at the claim's ε
        tol = default_rtol(guarantee) if rtol is None else rtol
        return certify_mechanism_delta(matrix, guarantee.epsilon, graph, claim=guarantee, rtol=tol)
    _pure_only(guarantee, "a mechanism matrix (ApproxDP: in floating point)")
    return certify_mechanism(matrix, graph, exact=exact)


def _noise2d(src: PrivacySource, sensitivity: Any, guarantee: Any) -> PrivacyReport:
    _pure_only(guarantee, f"{src.family} (noise in ℝ²)")
    assert src.grid2d is not None
    keywords = dict(src.grid2d)
    if sensitivity is not None:
        keywords["sensitivity"] = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    return certify_noise2d_epsilon(keywords)


def _theorem(src: PrivacySource, guarantee: Any) -> PrivacyReport:
    _pure_only(guarantee, src.family)
    if src.proof is None or not isinstance(src.guarantee, PureDP):
        raise TypeError(
            f"{src.family} has no independent certifier: its guarantee is its theorem's "
            f"({src.guarantee}); optmech.certify reads grids, closed-form profiles and matrices."
        )
    return TheoremReport(src.guarantee, src.guarantee.epsilon, f"by theorem: {src.proof}")


def _certify(
    obj: Any, guarantee: Any, sensitivity: Any, graph: Any, exact: bool, rtol: float | None
) -> PrivacyReport:
    exact = check_flag("exact", exact)
    if guarantee is not None:
        check_privacy(guarantee, beyond=True)
    src = source_of(obj)
    if src is None:
        if grid_of(obj) is not None:  # a bare grid description
            return certify_noise(
                obj, guarantee=guarantee, sensitivity=sensitivity, exact=exact, rtol=rtol
            )
        if np.ndim(obj) == 2:
            return _matrix(obj, graph, guarantee, exact, rtol)
        raise TypeError(
            "`obj` must be a mechanism matrix, a user LP result or an optmech noise (an object "
            f"whose privacy_source() describes it); got {describe(obj)}."
        )
    if src.kind == SourceKind.MATRIX:
        assert src.matrix is not None
        chosen = src.matrix.graph if graph is None else graph
        return _matrix(src.matrix.mechanism, chosen, guarantee, exact, rtol)
    if src.kind == SourceKind.GRID_2D:
        return _noise2d(src, sensitivity, guarantee)
    if src.kind == SourceKind.THEOREM and src.proof is not None:
        return _theorem(src, guarantee)
    return certify_noise(obj, guarantee=guarantee, sensitivity=sensitivity, exact=exact, rtol=rtol)


def certify(
    obj: Any,
    guarantee: Any = None,
    *,
    sensitivity: float | None = None,
    graph: Any = None,
    exact: bool = False,
) -> PrivacyReport:
    """The certificate of ``obj``: what it achieves, from its numbers alone (module docstring).

    Parameters
    ----------
    obj : array_like, mechanism result or noise
        A mechanism matrix ``M[i, r] = P(output r | input i)``, a user LP result, or any optmech
        noise (1-D closed form or design, 2-D design, the staircase in ℝ^d), or a
        `GridDescription`.
    guarantee : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile, optional
        The guarantee whose number to certify (noise on the line); default the object's own.
        Matrices are certified for pure ε, or for ApproxDP (δ at its ε, in floating point);
        noise in ℝ^d for pure ε only.
    sensitivity : float, optional
        Δ, in (0, inf) (an integer on ℤ); default the noise's own.
    graph : networkx.Graph, (E, 2) int array, or None
        Neighbour graph of a mechanism matrix (default: a result's own graph, else the path).
    exact : bool, default False
        Exact rational arithmetic where the certifier has it (matrices, grids' ε and δ).

    Returns
    -------
    PrivacyReport
        A `MatrixCertificate`,
        `NoiseCertificate`,
        `Noise2DReport` or
        `TheoremReport`.

    Examples
    --------
    >>> import numpy as np
    >>> from optmech import Laplace, PureDP
    >>> from optmech.certify import certify
    >>> round(certify(Laplace(epsilon=1.0)).value, 9)  # the achieved ε
    1.0
    >>> certify(Laplace(epsilon=1.0), PureDP(0.5)).holds  # a claim it does not meet
    False
    >>> G = np.array([[2, 1], [1, 2]]) / 3  # a mechanism matrix: ε = log 2
    >>> round(certify(G).value, 9) == round(float(np.log(2)), 9)
    True
    """
    return _certify(obj, guarantee, sensitivity, graph, exact, None)


def check(
    obj: Any,
    guarantee: Any,
    *,
    sensitivity: float | None = None,
    graph: Any = None,
    rtol: float | None = None,
    exact: bool = False,
    debug: bool = False,
) -> bool:
    """Whether ``obj`` satisfies ``guarantee``, from its certificate (`certify`).

    Parameters
    ----------
    obj, sensitivity, graph, exact
        As in `certify`.
    guarantee : PureDP, ApproxDP, ZCDP, RenyiDP, GaussianDP or PrivacyProfile
        The claim.
    rtol : float, optional
        Relative slack, in [0, 1); default by the convention of
        `optmech.certify.report` (1e-6 for ZCDP and GaussianDP, 1e-9
        otherwise).
    debug : bool, default False
        Return True when the claim holds, otherwise raise
        `PrivacyViolationError` with the explanation
        and the certificate as its ``report``.

    Returns
    -------
    bool

    Examples
    --------
    >>> from optmech.mechanisms.laplace import Laplace
    >>> from optmech.privacy import PureDP
    >>> check(Laplace(epsilon=1.0), PureDP(1.0)), check(Laplace(epsilon=1.0), PureDP(0.5))
    (True, False)
    """
    claim = check_privacy(guarantee, beyond=True)
    debug = check_flag("debug", debug)
    tol = default_rtol(claim) if rtol is None else check_real("rtol", rtol, low=0.0, high=1.0)
    report = _certify(obj, claim, sensitivity, graph, exact, tol)
    holds = getattr(report, "holds", None)
    if holds is None:  # a pure-ε certificate: compare here
        holds = bool(report.value <= claim.epsilon * (1.0 + tol))
    return verdict(bool(holds), report, claim, debug)
