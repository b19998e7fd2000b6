"""The theorem catalogue behind ``optmech verify``.

Each module of this package registers checks with
`optmech.theorems.catalogue.check`;
`run_checks` imports them all and runs them. Rows backed by
an LP are decided by its certified interval
(`certificate_row`), not by a tolerance; ``optmech
verify --exact`` reproduces the small rows in exact arithmetic
(`optmech.theorems.exact_catalogue`).
`grs_certificate` proves the GRS optimum by a
dual certificate, without an LP solve, and
`minimax_certificate` the minimax one, and
`staircase_certificate` the staircase optimal on the additive designer's grid
(``optmech verify --certificates``).
"""

# The package's API is the catalogue's (its ``__all__`` included), and the dual certificates.
from importlib import import_module
from typing import TYPE_CHECKING, Any

from optmech.theorems.catalogue import *  # noqa: F403
from optmech.theorems.catalogue import __all__ as _catalogue_all

if TYPE_CHECKING:
    from optmech.theorems.certificates import grs_certificate, minimax_certificate
    from optmech.theorems.dual_certificate import DualCertificate
    from optmech.theorems.staircase_dual import StaircaseCertificate, staircase_certificate

#: The dual certificates, imported on first use (PEP 562): the command line's help and the
#: catalogue's closed-form rows load neither the certificates' LP pieces nor SciPy's signal
#: filters.
_ON_FIRST_USE = {
    "DualCertificate": "optmech.theorems.dual_certificate",
    "grs_certificate": "optmech.theorems.certificates",
    "minimax_certificate": "optmech.theorems.certificates",
    "StaircaseCertificate": "optmech.theorems.staircase_dual",
    "staircase_certificate": "optmech.theorems.staircase_dual",
}

__all__ = [
    *_catalogue_all,
    "DualCertificate",
    "StaircaseCertificate",
    "grs_certificate",
    "minimax_certificate",
    "staircase_certificate",
]


def __getattr__(name: str) -> Any:
    """The dual certificates' names, from their modules on first use."""
    home = _ON_FIRST_USE.get(name)
    if home is None:
        raise AttributeError(f"module 'optmech.theorems' has no attribute {name!r}")
    return getattr(import_module(home), name)
