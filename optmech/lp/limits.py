"""The LPs' default memory budgets, and the measured memory per variable they rest on.

One light module (it imports nothing), so that the command line states each default in its
``--help`` without loading an LP, and the library and the command line cannot disagree. Each
LP refuses a problem whose estimated memory exceeds its budget before building it, naming the
budget (``max_memory_gb``) and the estimate.
"""

from __future__ import annotations

import math

__all__ = [
    "ADDITIVE_MEMORY_GB",
    "DEPENDENT_MEMORY_GB",
    "LOCAL_BYTES_PER_VARIABLE",
    "LOCAL_MEMORY_GB",
    "USER_BYTES_PER_VARIABLE",
    "USER_MEMORY_GB",
    "budget_to_run",
]

#: Peak resident memory per LP variable, measured on the path-graph user LP with Clarabel
#: (1.5 GB at n = 800, 641,601 variables; docs/performance.md): the basis of the estimate
#: quoted when a problem is refused.
USER_BYTES_PER_VARIABLE = 2_400
#: Default memory budget of a user LP: one million variables (the n = 400 count LP has
#: 160,801; n = 800 needs about 1.5 GB).
USER_MEMORY_GB = 1_000_000 * USER_BYTES_PER_VARIABLE / 1e9
#: Default memory budget of the query-dependent noise LP: 200,000 variables (phases × grid
#: points) at the user LPs' measured `USER_BYTES_PER_VARIABLE`.
DEPENDENT_MEMORY_GB = 200_000 * USER_BYTES_PER_VARIABLE / 1e9
#: Peak resident memory per variable of the whole local solve (LP with Clarabel, repair and
#: certification), measured on 2 shared cores: 140 inputs x 1400 outputs (197,400 mechanism
#: entries) peaked at 0.97 GB with the interpreter and its libraries (about 0.2 GB) included;
#: the LP alone at 0.65 GB.
LOCAL_BYTES_PER_VARIABLE = 4_000
#: Default budget of a local randomizer's LP: 250,000 variables (1 GB; 140 x 1400 solved in
#: 32 s, 100 x 1000 in 10 s).
LOCAL_MEMORY_GB = 250_000 * LOCAL_BYTES_PER_VARIABLE / 1e9
#: Default memory budget of an additive-noise design (1-D and in ℝ²), in GB.
ADDITIVE_MEMORY_GB = 4.0


def budget_to_run(need_gb: float) -> str:
    """The ``max_memory_gb`` a refusal suggests: the estimate ``need_gb`` rounded up to two
    significant digits, as typed.

    Examples
    --------
    >>> budget_to_run(1.1184), budget_to_run(36.8), budget_to_run(0.01402)
    ('1.2', '37', '0.015')
    """
    if not need_gb > 0:
        return "0"
    digits = max(0, 1 - math.floor(math.log10(need_gb)))
    step = 10.0**-digits
    return f"{math.ceil(need_gb / step - 1e-9) * step:.{digits}f}"
