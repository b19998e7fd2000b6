"""What the ε-DP noise families share: the repr that names their parameters, a float from a
draw without a size, and an array of the requested shape from a draw with one."""

from __future__ import annotations

import pytest

from optmech.mechanisms.base import NoiseDistribution
from optmech.mechanisms.discrete_staircase import DiscreteStaircase
from optmech.mechanisms.geometric import Geometric
from optmech.mechanisms.laplace import Laplace

CASES = [  # (noise, its repr, a sample shape)
    (Laplace(epsilon=0.5, sensitivity=2.0), "Laplace(epsilon=0.5, sensitivity=2.0)", (2, 3)),
    (Geometric(epsilon=0.5, sensitivity=2), "Geometric(epsilon=0.5, sensitivity=2)", (4, 2)),
    (
        DiscreteStaircase(epsilon=1.0, sensitivity=4, r=3),
        "DiscreteStaircase(epsilon=1.0, sensitivity=4, r=3)",
        (2, 5),
    ),
]


@pytest.mark.parametrize(("noise", "text", "shape"), CASES, ids=lambda v: type(v).__name__)
def test_repr_and_sample_shapes(
    noise: NoiseDistribution, text: str, shape: tuple[int, int]
) -> None:
    assert repr(noise) == text
    assert isinstance(noise.rvs(rng=0), float)
    assert noise.rvs(shape, rng=0).shape == shape
