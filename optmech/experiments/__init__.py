"""Experiments that reproduce the papers' figures with optmech's public API.

Each experiment is a module of this package with a function
``run(out_dir=None, *, seed=0, quick=False) -> ExperimentResult`` writing ``results.csv``,
``figure.png`` and ``summary.md`` into ``out_dir`` (default ``./results/NAME``); ``quick``
runs a small version. The registry maps the command-line names to the modules:

- ``staircase-gain``: staircase vs Laplace gain vs ε, closed form and LP (Geng & Viswanath 2016,
  Fig. 2)
- ``gamma-star``: γ* vs ε for several costs and the heuristic γ̃ (Geng & Viswanath 2016, Fig. 4, §V)
- ``lp-convergence``: LP-vs-closed-form gap as the resolution m grows (see the docs' theory page on
  exact discretisation)
- ``zero-delta``: (0, δ): optimal cost vs δ, the atom from δ = p/(p+1) (Geng, Ding, Guo & Kumar
  2019)
- ``grs-users``: random Bayesian users: LP vs G + Bayes remap (Ghosh, Roughgarden & Sundararajan
  2012)
- ``minimax-remaps``: minimax users: LP vs G + best randomized remap (Gupte & Sundararajan)
- ``custom-loss-gallery``: asymmetric, threshold and (ε, δ) designs vs baselines
- ``zcdp-lattice``: optimal noise on ℤ under ρ-zCDP vs the discrete Gaussian (Canonne, Kamath &
  Steinke 2020)
- ``gdp-lattice``: optimal noise on ℤ under μ-GDP vs the rounded Gaussian (Dong, Roth & Su 2022)
- ``composition``: δ(ε) after k = 1, 10, 100 compositions: Laplace, staircase, Gaussian, designed
  noise (dp_accounting PLDs)
- ``noise-2d``: noise in ℝ² for ℓ1/ℓ2/ℓ∞ balls: LP vs the d-dimensional staircase, two 1-D
  staircases at ε/2 and product Laplace (Geng, Kairouz, Oh & Viswanath 2015; Kulesza, Suresh & Wang
  2025)
- ``label-dp``: label DP for regression: RR-on-Bins, the LP optimum, the unbiased optimum, Laplace
  and staircase vs ε (Ghazi et al. 2023; Badanidiyuru et al. 2023)
- ``ldp-extremal``: local DP: the mutual-information / KL optimum vs the binary mechanism and
  randomized response across ε (Kairouz, Oh & Viswanath 2016)

Examples
--------
>>> sorted(EXPERIMENTS)[:2]
['composition', 'custom-loss-gallery']
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from optmech.experiments._common import ExperimentResult

__all__ = ["ABOUT", "EXPERIMENTS", "ExperimentResult", "get_experiment", "run_experiment"]

#: Command-line name → module of this package.
EXPERIMENTS: dict[str, str] = {
    "staircase-gain": "staircase_gain",
    "gamma-star": "gamma_star",
    "lp-convergence": "lp_convergence",
    "zero-delta": "zero_delta",
    "grs-users": "grs_users",
    "minimax-remaps": "minimax_remaps",
    "custom-loss-gallery": "custom_loss_gallery",
    "zcdp-lattice": "zcdp_lattice",
    "gdp-lattice": "gdp_lattice",
    "composition": "composition",
    "noise-2d": "noise_2d",
    "label-dp": "label_dp",
    "ldp-extremal": "ldp_extremal",
    "shuffle-frontier": "shuffle_frontier",
}

#: Command-line name → (one-line description, typical wall time of ``--quick`` and of the full
#: run). Times measured with ``optmech experiment NAME [--quick]`` on a quiet 2-core machine,
#: interpreter start-up (about 1.3 s) included.
ABOUT: dict[str, tuple[str, str, str]] = {
    "staircase-gain": ("staircase vs Laplace gain vs ε, closed form and LP", "2 s", "2 s"),
    "gamma-star": ("γ* vs ε for several costs, and the heuristic γ̃", "2 s", "2 s"),
    "lp-convergence": ("LP-vs-closed-form gap as the resolution grows", "2 s", "3 s"),
    "zero-delta": ("(0, δ): optimal cost vs δ, the atom from δ = p/(p+1)", "3 s", "10 s"),
    "grs-users": ("random Bayesian users: LP vs G + Bayes remap", "2 s", "3 s"),
    "minimax-remaps": ("minimax users: LP vs G + best randomized remap", "2 s", "3 s"),
    "custom-loss-gallery": ("asymmetric, threshold and (ε, δ) designs vs baselines", "2 s", "3 s"),
    "zcdp-lattice": ("optimal noise on ℤ under ρ-zCDP vs the discrete Gaussian", "3 s", "11 s"),
    "gdp-lattice": ("optimal noise on ℤ under μ-GDP vs the rounded Gaussian", "6 s", "14 s"),
    "composition": ("δ(ε) after k = 1, 10, 100 compositions, five noises", "3 s", "31 s"),
    "noise-2d": ("noise in ℝ² for ℓ1/ℓ2/ℓ∞ balls: LP vs the d-dim staircase", "3 s", "100 s"),
    "label-dp": ("label DP: RR-on-Bins, LP, unbiased, Laplace, staircase vs ε", "14 s", "28 s"),
    "ldp-extremal": ("LDP mutual information / KL: optimum vs binary and RR", "8 s", "10 s"),
    "shuffle-frontier": ("shuffle: designed randomizer vs calibrated GRR, OUE, HR", "6 s", "500 s"),
}


def get_experiment(name: str) -> Callable[..., ExperimentResult]:
    """The ``run`` function of experiment ``name``; ValueError listing the names if unknown.

    Examples
    --------
    >>> from optmech.experiments import get_experiment
    >>> get_experiment("gamma-star").__module__
    'optmech.experiments.gamma_star'
    >>> get_experiment("gamma_star")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: `name` must be one of staircase-gain, gamma-star, lp-convergence, zero-delta, ...
    """
    if not isinstance(name, str) or name not in EXPERIMENTS:
        raise ValueError(f"`name` must be one of {', '.join(EXPERIMENTS)}; got {name!r}.")
    module = importlib.import_module(f"optmech.experiments.{EXPERIMENTS[name]}")
    return module.run  # type: ignore[no-any-return]


def run_experiment(
    name: str,
    out_dir: str | os.PathLike[str] | None = None,
    *,
    seed: int = 0,
    quick: bool = False,
    **kwargs: Any,
) -> ExperimentResult:
    """Run experiment ``name`` (see the module docstring) and return its result.

    Examples
    --------
    >>> from optmech.experiments import run_experiment
    >>> result = run_experiment("gamma-star", "results/gamma-star", quick=True)  # doctest: +SKIP
    >>> result.csv.name, sorted(result.headline)[:2]  # doctest: +SKIP
    ('results.csv', ['gamma_abs_eps_min', 'max_direct_gap'])
    >>> run_experiment("no-such-experiment")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    ValueError: `name` must be one of staircase-gain, gamma-star, lp-convergence, zero-delta, ...
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"`seed` must be an integer in [0, inf); got {seed!r}.")
    if not isinstance(quick, bool):
        raise TypeError(f"`quick` must be a bool; got {quick!r}.")
    return get_experiment(name)(out_dir, seed=seed, quick=quick, **kwargs)
