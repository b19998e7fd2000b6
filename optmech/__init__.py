"""optmech: design and verify optimal differential-privacy mechanisms by linear programming.

Closed-form optimal noise ([`Staircase`][Staircase], [`DiscreteStaircase`][DiscreteStaircase],
[`Geometric`][Geometric] + remap, [`UniformAtom`][UniformAtom]) and baselines ([`Laplace`][Laplace],
[`TruncatedLaplace`][TruncatedLaplace], [`Gaussian`][Gaussian]); the additive-noise LP designer
[`design_noise`][design_noise]; the user-specific count-query LPs
[`bayesian_mechanism`][bayesian_mechanism] and [`minimax_mechanism`][minimax_mechanism] with remaps;
the local model ([`local_mechanism`][local_mechanism] with constraints of one's own from
[`optmech.constraints`][optmech.constraints], [`rr_on_bins`][rr_on_bins],
[`extremal_mechanism`][extremal_mechanism] for the utilities of
[`optmech.utilities`][optmech.utilities]);
and independent certification of what any mechanism achieves ([`optmech.certify`][optmech.certify]:
``optmech.certify.certify(obj)`` for a certificate, [`check`][check] for a claim).
Every LP-backed result carries a [`Provenance`][Provenance] with a certified interval
``[lower_bound, value]`` for the optimum. Guarantees beyond (ε, δ) ([`ZCDP`][ZCDP],
[`RenyiDP`][RenyiDP], [`GaussianDP`][GaussianDP], [`PrivacyProfile`][PrivacyProfile]) are certified
by [`optmech.certify.profiles`][optmech.certify.profiles] and composed by
[`optmech.accounting`][optmech.accounting]; [`StaircaseND`][StaircaseND] is the staircase in ℝ^d,
and ``design_noise(..., dimension=2)`` designs noise in ℝ² for a ball of shifts by LP.
"""

from __future__ import annotations

import lazy_loader as _lazy

__version__ = "0.1.0"

#: The public names are the imports of the type stub beside this file (``__init__.pyi``), read
#: by type checkers and IDEs; at run time each is imported on first use (PEP 562), so
#: ``import optmech`` loads none of them and the closed-form path (``optmech.Staircase``,
#: costs, privacy) never pays for cvxpy, networkx or matplotlib.
__getattr__, _stub_dir, __all__ = _lazy.attach_stub(__name__, __file__)
__all__ = [*__all__, "__version__"]


def __dir__() -> list[str]:
    """The public names only (those of ``__all__``), not the helpers this module imports."""
    return list(__all__)
