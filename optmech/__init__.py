"""optmech: design and verify optimal differential-privacy mechanisms by linear programming."""

from optmech import costs
from optmech.exceptions import (
    InaccurateSolutionWarning,
    OptmechError,
    PrivacyViolationError,
    ProblemTooLargeError,
    SolverError,
)
from optmech.privacy import ApproxDP, PureDP

__version__ = "0.1.0"

__all__ = [
    "ApproxDP",
    "InaccurateSolutionWarning",
    "OptmechError",
    "PrivacyViolationError",
    "ProblemTooLargeError",
    "PureDP",
    "SolverError",
    "__version__",
    "costs",
]
