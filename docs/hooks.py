"""MkDocs hooks of the site: every table sits in a box of its own that scrolls sideways.

Material wraps tables in such a box with JavaScript once the page loads; doing it when the page
is built keeps a wide table inside the column without scripts too (and lets the test suite check
it on the built HTML). The box is ``div.md-typeset__scrollwrap`` with Material's inner
``div.md-typeset__table``; the table gets no class, so Material still styles it.
"""

from __future__ import annotations

import re
from typing import Any

_TABLE = re.compile(r"<table\b.*?</table>", flags=re.S)
_WRAP = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">{}</div></div>'


def on_page_content(html: str, **kwargs: Any) -> str:
    """Wrap each table of the page in a sideways-scrolling box."""
    return _TABLE.sub(lambda m: _WRAP.format(m[0]), html)
