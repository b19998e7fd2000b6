"""``python -m optmech``: the same as the ``optmech`` command."""

import sys

from optmech.cli import main

sys.exit(main())
