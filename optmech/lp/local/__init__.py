"""The local model: ε-local-DP (label-DP) randomizers, RR-on-Bins and extremal mechanisms.

In the local model each input is randomized before anyone sees it, so every two inputs are
neighbours: ``Q(y | x) ≤ e^ε Q(y | x')`` for all inputs ``x, x'`` and outputs ``y``. With one
label per record, label DP is the same condition (Ghazi et al. (2023)).

* `local_mechanism` — the optimal randomizer for a
  loss, Bayesian or minimax, with the caller's constraints
  (`optmech.constraints`), by the per-column envelope LP.
* `rr_on_bins` — RR-on-Bins, optimal over all real outputs
  for the squared and the absolute error (Ghazi et al. (2023)), by its dynamic programme.
* `extremal_mechanism` — the randomizer that
  maximises mutual information or a KL divergence (`optmech.utilities`),
  by the staircase-pattern LP of Kairouz, Oh & Viswanath (2016).

The package: `result` (with the grid vs the continuum), `api`; `bins` (RR-on-Bins as a result);
`extremal` (the staircase-pattern LP). The envelope LP they solve (setting, rows, build, bound,
repair, diagnosis, engine) is shared with the user LPs with
constraints and lives in `optmech.lp.matrix`, below both designers.
"""

from optmech.lp.local.api import local_mechanism
from optmech.lp.local.bins import RROnBins, rr_on_bins
from optmech.lp.local.extremal import ExtremalMechanism, extremal_mechanism
from optmech.lp.local.result import LocalMechanism

__all__ = [
    "ExtremalMechanism",
    "LocalMechanism",
    "RROnBins",
    "extremal_mechanism",
    "local_mechanism",
    "rr_on_bins",
]
