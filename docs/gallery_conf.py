"""Settings of the examples gallery (mkdocs-gallery's ``conf_script``), run when mkdocs reads
its configuration, before any example.

absl's logging handler (imported by dp_accounting, which ``optmech.accounting`` uses) keeps
the standard error stream it finds when it is first imported. Imported here, that stream is the
real one; imported by an example, it would be the gallery's output capture, which cannot be
closed at exit.
"""

import absl.logging  # noqa: F401

conf: dict[str, object] = {}
