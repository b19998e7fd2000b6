"""2-D designs too large for the default memory are refused before anything is built, with a
message naming ``resolution``."""

from __future__ import annotations

import re
import tracemalloc

import pytest

import optmech
from optmech.exceptions import ProblemTooLargeError


@pytest.mark.parametrize("ball", ["l1", "l2", "linf"])
def test_resolution_64_is_refused_up_front(ball: str) -> None:
    """64 cells per Δ, 4 periods: (2·64·4)² = 262,144 cells, and the window rows of a ball 64
    cells wide for each: refused at the default ``max_memory_gb``, with the size estimate, while
    less than 20 MB was allocated (nothing of the LP was built)."""
    tracemalloc.start()
    try:
        with pytest.raises(ProblemTooLargeError, match=r"resolution=64") as info:
            optmech.design_noise(
                optmech.PureDP(1.0), sensitivity=1.0, cost="l1", dimension=2,
                sensitivity_norm=ball, resolution=64, periods=4,
            )  # fmt: skip
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6
    message = str(info.value)
    variables = int(re.search(r"\(([0-9,]+) variables", message).group(1).replace(",", ""))
    # At least one variable per orbit of the dihedral group (8 cells) of the 512 × 512 box.
    assert variables >= (2 * 64 * 4) ** 2 // 8
    assert "max_memory_gb" in message
