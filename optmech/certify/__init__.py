"""Independent certification: the privacy a mechanism actually achieves, from its numbers alone.

Nothing here trusts the LP that produced a mechanism. Achieved ε and δ are recomputed with
numpy from the densities, pmfs or matrices, rounded towards more privacy loss (an entry of
1e-20 beside an exact zero is an infinite ε). Nothing here asks which class a noise is either:
each noise describes itself (``privacy_source()``,
`optmech.mechanisms.description`) and the certifier reads the
description.

- `optmech.certify.api`: the one entry point,
  `certify` (any mechanism or noise → its certificate) and
  `check` (any claim → a bool).
- `optmech.certify.noise`: noise on the line (piecewise-constant
  densities or pmfs on ℤ with geometric tails, and the closed forms): achieved ε over all shifts
  $|d| ≤ Δ$, achieved δ (hockey-stick), and the number of the noise's own guarantee.
- `optmech.certify.noise2d`: additive noise in ℝ² on square cells with
  tail shapes: achieved ε over all shifts in an ℓ1, ℓ2 or ℓ∞ ball.
- `optmech.certify.matrix`: mechanism matrices over a neighbour graph.
- `optmech.certify.profiles`: noise under the guarantees beyond
  (ε, δ): privacy profiles δ(ε), Rényi divergences, and ρ (zCDP) and μ (GDP) certified over the
  whole continuum of orders / ε.
- `optmech.certify.shuffle`: the central guarantee of n shuffled
  reports of one local randomizer (`shuffle_epsilon`).
- `optmech.certify.exact_arithmetic`: the same certificates
  in exact rational arithmetic with interval enclosures of ``log`` and ``exp`` (``exact=True``
  of every certifier; needs python-flint and is imported only on first use).
- `optmech.certify.report`: the base class of every certificate
  (guarantee, certified value, exact or float, reason, ``to_dict``, ``_repr_html_``).

**One API.** Every ``check_*`` returns a bool; with ``debug=True`` it returns True when the
guarantee holds and raises `PrivacyViolationError`
otherwise, the explanation as its message and the certificate as its ``report`` (OpenDP's
``check(d_in, d_out, debug)``). Every ``certify_*`` returns a report; the functions that return
a number (``noise_epsilon``, ``certified_rho``, ...) always return the number (their old
``debug=True`` is deprecated in favour of the ``certify_*`` counterpart).

**One tolerance.** A check passes when $certified ≤ claim·(1 + rtol)$; the certified number is
already rounded up, so ``rtol`` covers the distance the certifier may leave between it and the
exact value. For numbers computed directly from the floats (pure ε, δ, a profile's δ(ε_j), Rényi
divergences at given orders) that is rounding of a few ulps, and a stored mechanism's own
rounding: ``FLOAT_RTOL = 1e-9``. For numbers found by a search over a continuum (ρ over every
order, μ by bisection) it is the search's stopping accuracy: ``SEARCH_RTOL = 1e-6``. The default
``rtol`` of every check is the one of the number it compares
(`default_rtol`).
"""

from __future__ import annotations

import lazy_loader as _lazy

#: The public names are the imports of the type stub beside this file (``__init__.pyi``); at
#: run time each is imported on first use (PEP 562), so that one certifier does not load the
#: others (nor networkx behind the matrix certifier).
__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
