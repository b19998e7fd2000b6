"""The documentation builds strictly, its code runs, and it covers every command."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from optmech.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once with ``mkdocs build --strict`` (any warning fails the build)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _html(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}


def test_mkdocs_build_strict(site: Path) -> None:
    assert (site / "api" / "index.html").exists()
    assert (site / "bibliography" / "index.html").exists()


def test_no_raw_sphinx_roles_and_cross_references_render(site: Path) -> None:
    """Docstrings use mkdocstrings' cross-references, which render as links, never as a raw
    ``:class:`X``` in the page."""
    raw = re.compile(r":(class|func|mod|meth|attr|data|exc|obj):`")
    for name, text in _html(site).items():
        assert not raw.search(text), name
    assert _html(site)["api/index.html"].count("autorefs-internal") > 100


def test_no_remote_assets(site: Path) -> None:
    """Scripts, stylesheets and fonts come from the site itself: it renders offline."""
    remote = re.compile(r"<(script|link)\b[^>]*\b(src|href)=[\"'](https?:)?//", re.I)
    for name, text in _html(site).items():
        assert not remote.search(text), name
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    assert "http" not in re.sub(r"/\*.*?\*/", "", css, flags=re.S)


def test_theory_pages_carry_typeset_maths(site: Path) -> None:
    """Maths is written in LaTeX and handed to the vendored KaTeX (arithmatex spans), not as
    code spans."""
    pages = _html(site)
    for page in ("theory/staircase", "theory/count-queries", "theory/approximate-dp"):
        text = pages[f"{page}/index.html"]
        assert text.count('class="arithmatex"') >= 5, page
        assert "assets/katex/katex.min.js" in text and "javascripts/katex-init.js" in text


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine to render a page")
def test_a_theory_page_renders_its_maths_in_a_browser(site: Path, tmp_path: Path) -> None:
    """Headless Chromium loads the page from disk (no network) and KaTeX typesets it."""
    dom = subprocess.run(
        [
            str(_chromium()),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            (site / "theory" / "staircase" / "index.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert dom.count('class="katex"') >= 20
    assert "katex-error" not in dom


def test_no_working_notes_are_cited() -> None:
    """The package, the docs and the README cite papers and the docs' own pages."""
    notes = re.compile(r"THEORY\.md|\b[Ss]eeds? 00\d|\bissue \d+\b|seeds/")
    paths = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "optmech").rglob("*.py")]
    for path in paths:
        assert not notes.search(path.read_text(encoding="utf-8")), path


@pytest.mark.parametrize(
    "page", ["docs/howto/custom-loss.md", "docs/howto/exact-sampling.md", "README.md"]
)
def test_code_blocks_run(page: str) -> None:
    blocks = _python_blocks(ROOT / page)
    assert blocks, f"{page} has no python blocks"
    namespace: dict[str, object] = {}
    for block in blocks:  # blocks of a page share one namespace, as a reader's session would
        exec(compile(block, page, "exec"), namespace)


def test_every_command_is_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"## optmech {command}" in text, command
