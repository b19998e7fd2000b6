"""optmech: design and verify optimal differential-privacy mechanisms by linear programming.

Closed-form optimal noise (`Staircase`, `DiscreteStaircase`,
`Geometric` + remap, `UniformAtom`) and baselines (`Laplace`,
`TruncatedLaplace`, `Gaussian`); the additive-noise LP designer
`design_noise`; the user-specific count-query LPs
`bayesian_mechanism` and `minimax_mechanism` with remaps;
the local model (`local_mechanism` with constraints of one's own from
`optmech.constraints`, `rr_on_bins`,
`extremal_mechanism` for the utilities of
`optmech.utilities`); the shuffle model (`shuffle_mechanism`, the randomizer designed for a
central target after shuffling, certified by `shuffle_epsilon`);
and independent certification of what any mechanism achieves (`optmech.certify`:
``optmech.certify.certify(obj)`` for a certificate, `check` for a claim).
Every LP-backed result carries a `Provenance` with a certified interval
``[lower_bound, value]`` for the optimum. Guarantees beyond (ε, δ) (`ZCDP`,
`RenyiDP`, `GaussianDP`, `PrivacyProfile`) are certified
by `optmech.certify.profiles` and composed by
`optmech.accounting`; `StaircaseND` is the staircase in ℝ^d,
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
