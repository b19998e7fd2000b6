"""The theorem catalogue behind ``optmech verify``.

Each module of this package registers checks with
[`optmech.theorems.catalogue.check`][optmech.theorems.catalogue.check];
[`run_checks`][optmech.theorems.catalogue.run_checks] imports them all and runs them. Rows backed by
an LP are decided by its certified interval
([`certificate_row`][optmech.theorems.catalogue.certificate_row]), not by a tolerance; ``optmech
verify --exact`` reproduces the small rows in exact arithmetic
([`optmech.theorems.exact_catalogue`][optmech.theorems.exact_catalogue]).
[`grs_certificate`][optmech.theorems.certificates.grs_certificate] proves the GRS optimum by a
dual certificate, without an LP solve, and
[`minimax_certificate`][optmech.theorems.certificates.minimax_certificate] the minimax one
(``optmech verify --certificates``).
"""

# The package's API is the catalogue's (its ``__all__`` included), and the dual certificates.
from optmech.theorems.catalogue import *  # noqa: F403
from optmech.theorems.catalogue import __all__ as _catalogue_all
from optmech.theorems.certificates import DualCertificate, grs_certificate, minimax_certificate

__all__ = [*_catalogue_all, "DualCertificate", "grs_certificate", "minimax_certificate"]
