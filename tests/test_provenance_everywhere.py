"""Every LP-backed result holds one :class:`optmech.Provenance` (``.provenance``).

Each result is built small (milliseconds to a second). The interval check is the one every
result promises: ``lower_bound ≤ value``, both finite. (The rest of the result interface is
checked on every result class by ``tests/test_lp_results.py``.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import optmech
from optmech.costs import Absolute, Squared

PRIOR = np.full(6, 1 / 6)
LP_BACKED: dict[str, Callable[[], Any]] = {
    "design_noise (uniform grid)": lambda: optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=1.0, cost="abs", resolution=6, periods=3
    ),
    "design_noise (graded grid)": lambda: optmech.design_noise(
        optmech.PureDP(15.0), sensitivity=1.0, cost="abs"
    ),
    "design_noise (lattice)": lambda: optmech.design_noise(
        optmech.PureDP(1.0), sensitivity=2, cost="squared", integer=True, periods=4
    ),
    "design_noise ((ε, δ))": lambda: optmech.design_noise(
        optmech.ApproxDP(1.0, 1e-3), sensitivity=1.0, cost="abs", resolution=6, periods=8
    ),
    "bayesian_mechanism": lambda: optmech.bayesian_mechanism(PRIOR, Absolute(), 0.5),
    "minimax_mechanism": lambda: optmech.minimax_mechanism(Squared(), 0.5, n=5),
    "common_mechanism": lambda: optmech.common_mechanism(
        [PRIOR, np.r_[0.5, np.full(5, 0.1)]], [Absolute(), Squared()], 0.5
    ),
    "geometric_minimax": lambda: optmech.geometric_minimax(Absolute(), 0.5, n=5),
    "minimax_remap": lambda: optmech.minimax_remap(
        optmech.truncated_geometric(5, 0.5), Absolute(), [0, 5]
    ),
    "dependent_noise_lp": lambda: optmech.dependent_noise_lp(1.0, sensitivity=2, period=2),
}


@pytest.fixture(scope="module", params=sorted(LP_BACKED))
def result(request: pytest.FixtureRequest) -> Any:
    return LP_BACKED[request.param]()


def test_result_holds_one_provenance(result: Any) -> None:
    prov = result.provenance
    assert isinstance(prov, optmech.Provenance)
    assert math.isfinite(prov.value) and math.isfinite(prov.lower_bound)
    assert prov.lower_bound <= prov.value
