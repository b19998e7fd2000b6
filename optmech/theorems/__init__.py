"""The theorem catalogue behind ``optmech verify``.

Each module of this package registers checks with
[`optmech.theorems.catalogue.check`][optmech.theorems.catalogue.check];
[`run_checks`][optmech.theorems.catalogue.run_checks] imports them all and runs them. Rows backed by
an LP are decided by its certified interval
([`certificate_row`][optmech.theorems.catalogue.certificate_row]), not by a tolerance; ``optmech
verify --exact`` reproduces the small rows in exact arithmetic
([`optmech.theorems.exact_catalogue`][optmech.theorems.exact_catalogue]).
"""

# The package's API is the catalogue's (its ``__all__`` included).
from optmech.theorems.catalogue import *  # noqa: F403
from optmech.theorems.catalogue import __all__ as __all__
