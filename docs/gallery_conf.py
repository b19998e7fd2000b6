"""Settings of the examples gallery (mkdocs-gallery's ``conf_script``), run when mkdocs reads
its configuration, before any example.

- A warning of optmech's in an example fails the build, as it fails the test suite: an example
  shows a design that needs no warning (a grid too coarse, an interval left wide).
- absl's logging handler (imported by dp_accounting, which ``optmech.accounting`` uses) keeps
  the standard error stream it finds when it is first imported. Imported here, that stream is
  the real one; imported by an example, it would be the gallery's output capture, which cannot
  be closed at exit.
"""

import warnings

import absl.logging  # noqa: F401

from optmech import CoarseGridWarning, InaccurateSolutionWarning

for category in (CoarseGridWarning, InaccurateSolutionWarning):
    warnings.simplefilter("error", category)

conf: dict[str, object] = {}
