"""Float64 facts behind the outward rounding of every certificate, and the array aliases.

A computed sum of ``k`` products carries a relative error of at most ``γ_k = k u/(1 − k u)`` of
the sum of absolute values, ``u`` the unit roundoff (Higham, *Accuracy and Stability of
Numerical Algorithms*, 2002, §3.1); below `TINY` (subnormal numbers) relative bounds no
longer hold and absolute ones are used.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["TINY", "BoolArray", "FloatArray", "IntArray", "U"]

#: Unit roundoff of float64, ``2^-53``.
U = 2.0**-53
#: Smallest positive normal float64.
TINY = float(np.finfo(np.float64).tiny)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
