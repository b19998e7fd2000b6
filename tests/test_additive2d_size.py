"""The size a 2-D design is predicted to take before anything is built
(``AdditiveSpec2D.size``) against the LP actually built: the variables exactly, the rows and
nonzeros from above and within 10%; and a design far too large is refused before it is built."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

import optmech
from optmech.exceptions import ProblemTooLargeError
from optmech.lp.additive2d import AdditiveSpec2D, build_additive_lp_2d

CASES = [
    pytest.param(3, 2, {}, id="m3-K2"),
    pytest.param(5, 3, {}, id="m5-K3"),
    pytest.param(8, 2, {}, id="m8-K2"),
    pytest.param(4, 2, {"window": "pairs"}, id="pairs"),
    pytest.param(4, 2, {"reduce_symmetric": False}, id="no-symmetry"),
    pytest.param(4, 3, {"gamma": 0.5, "tails": "gauge"}, id="one-gauge-step"),
]


@pytest.mark.parametrize("ball", ["l1", "l2", "linf"])
@pytest.mark.parametrize(("m", "periods", "options"), CASES)
def test_predicted_counts_bound_the_built_lp_tightly(
    ball: str, m: int, periods: int, options: dict[str, Any]
) -> None:
    """The counts of the LP as built (its own record of its variables, rows and stored
    coefficients) against the prediction from the spec's numbers alone."""
    spec = AdditiveSpec2D(
        optmech.PureDP(1.0), 1.0, "l1", ball, resolution=m, periods=periods, **options
    )
    predicted = spec.size()
    built = build_additive_lp_2d(spec).counts()
    assert predicted["variables"] == built["variables"]
    for key in ("rows", "nonzeros"):
        assert built[key] <= predicted[key] <= 1.1 * built[key], key


@pytest.mark.parametrize("ball", ["l1", "l2", "linf"])
def test_a_huge_grid_is_refused_before_it_is_built(ball: str) -> None:
    """64 cells per Δ and 64 periods (a box of 8192² cells): refused by ``check_size`` with a
    message naming ``max_memory_gb``, while little was allocated (nothing of the LP built)."""
    spec = AdditiveSpec2D(
        optmech.PureDP(1.0), 1.0, "l1", ball, resolution=64, periods=64, max_memory_gb=4.0
    )
    tracemalloc.start()
    try:
        with pytest.raises(ProblemTooLargeError, match=r"max_memory_gb=4\b") as info:
            spec.check_size()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100e6
    assert "resolution=64" in str(info.value) and "periods=64" in str(info.value)
