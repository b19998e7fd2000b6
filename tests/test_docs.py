"""The documentation builds strictly, its code runs, and it covers every command."""

import fcntl
import html
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from optmech.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), flags=re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per test session with ``mkdocs build --strict`` (any warning fails
    the build). The build writes the gallery's pages into ``docs/generated``, so pytest-xdist's
    workers take turns under a lock in their shared temporary folder, and a worker that comes
    second reads the site the first one built."""
    shared = tmp_path_factory.getbasetemp().parent
    out, done = shared / "site", shared / "site.built"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not done.exists():
                shutil.rmtree(out, ignore_errors=True)
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
                done.write_text("ok", encoding="utf-8")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
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
    api = [text for name, text in _html(site).items() if name.startswith("api/")]
    assert sum(text.count("autorefs-internal") for text in api) > 300


def test_no_remote_assets(site: Path) -> None:
    """Scripts, stylesheets and fonts come from the site itself: it renders offline."""
    remote = re.compile(r"<(script|link)\b[^>]*\b(src|href)=[\"'](https?:)?//", re.I)
    for name, text in _html(site).items():
        assert not remote.search(text), name
    css = (site / "assets" / "katex" / "katex.min.css").read_text(encoding="utf-8")
    assert "http" not in re.sub(r"/\*.*?\*/", "", css, flags=re.S)


def test_every_example_of_the_gallery_ran_and_drew(site: Path) -> None:
    """Each script of docs/examples was executed by the build (a failing one fails it) and
    its page shows the figure it drew."""
    scripts = sorted((ROOT / "docs" / "examples").glob("plot_*.py"))
    assert len(scripts) >= 10
    for script in scripts:
        page = (site / "generated" / "gallery" / script.stem / "index.html").read_text("utf-8")
        assert f"mkd_glr_{script.stem}_001.png" in page, script.name


def test_home_and_theory_pages_show_a_figure(site: Path) -> None:
    """The home page and every theory page show at least one figure, and each figure they
    show is in the site."""
    for page in ["index.html", *(f"{p}/index.html" for p in THEORY_PAGES)]:
        text = (site / page).read_text(encoding="utf-8")
        sources = re.findall(r'<img[^>]*\bsrc="([^"]+)"', text)
        assert sources, page
        for source in sources:
            assert ((site / page).parent / source).resolve().is_file(), (page, source)


#: Every page of the theory section, found on disk: a page added there is checked without a
#: change here.
THEORY_PAGES = sorted(f"theory/{page.stem}" for page in (ROOT / "docs" / "theory").glob("*.md"))


def test_theory_pages_carry_typeset_maths(site: Path) -> None:
    """Maths is written in LaTeX and handed to the vendored KaTeX (arithmatex spans), not as
    code spans, on every theory page."""
    assert len(THEORY_PAGES) >= 7 and "theory/staircase" in THEORY_PAGES, THEORY_PAGES
    pages = _html(site)
    for page in THEORY_PAGES:
        text = pages[f"{page}/index.html"]
        assert text.count('class="arithmatex"') >= 5, page
        assert "assets/katex/katex.min.js" in text and "javascripts/katex-init.js" in text


#: Characters of mathematics that Python code and command lines do not use: relations, set
#: and norm signs, operators, Greek letters, blackboard letters, ℓ, arrows, ceilings and
#: floors, super- and subscript digits, and ``^`` (a power in maths, a rare xor in code).
_MATHS_CHARACTERS = re.compile(
    r"[\^\u00b1\u00b2\u00b3\u00b7\u00b9\u00d7\u0370-\u03ff\u2016\u2070-\u209f"
    r"\u2102\u2113\u2115\u211a\u211d\u2124\u2190-\u21ff\u2200-\u22ff\u2308-\u230b]"
)
#: A span shaped like code, which may hold a Greek letter as a placeholder value: it starts
#: with a dotted, snake_case or CamelCase name or with ``optmech``, or it passes a keyword
#: argument, as ``design_noise(guarantee, sensitivity=Δ, cost=c)``. Maths names such as
#: ``T_s`` or ``X_{ε/2}`` have a one-letter part and do not count.
_CODE_SHAPES = re.compile(
    r"^(optmech\b|[A-Za-z_]\w*\.[A-Za-z_]|[A-Za-z]\w*_[A-Za-z]\w|[A-Z][a-z]+[A-Z])"
    r"|\b[a-z_]\w*=(?!=)"
)


def _maths_in_code(text: str) -> bool:
    """Whether a code span's text is mathematics: it holds a maths character and is not
    shaped like code."""
    return bool(_MATHS_CHARACTERS.search(text)) and not _CODE_SHAPES.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "‖x‖ ≤ Δ",
        "e^ε",
        "r^d",
        "T_s(γ) = Σ_k b^k (k + γ)^s",
        "A² + B² < m²",
        "X₁ ± X₂",
        "max(|d₁| − 1, 0)",
        "2·E|X_{ε/2}| ≥ 2V*(ε/2)",
        "(Δ, Δ)",
        "q(D) ∈ ℝ²",
        "c = 1, √2, 2",
        "m → ∞",
        "b^⌈G(c) − γ⌉",
    ],
)
def test_maths_in_code_flags_formulas(text: str) -> None:
    assert _maths_in_code(text)


@pytest.mark.parametrize(
    "text",
    [
        "design_noise(guarantee, sensitivity=Δ, cost=c, integer=…)",
        "optmech.StaircaseND",
        "StaircaseND.optimal",
        "PureDP(ε)",
        "Staircase(epsilon=ε, sensitivity=Δ)",
        "optmech design --privacy eps=1,delta=1e-6",
        "noise.rvs(10_000, rng=0)",
        "x ** 2",
        "lower_bound",
    ],
)
def test_maths_in_code_passes_code(text: str) -> None:
    assert not _maths_in_code(text)


def test_theory_pages_carry_no_maths_in_code(site: Path) -> None:
    """No theory page writes a formula as a code span, nor as an indented code block (which
    is not highlighted, unlike a fenced one); fenced blocks are code and may hold ε in a
    comment."""
    pages = _html(site)
    found: list[str] = []
    for page in THEORY_PAGES:
        text = pages[f"{page}/index.html"]
        article = text[text.index("<article") : text.index("</article>")]
        article = re.sub(r'<div class="highlight">.*?</div>', "", article, flags=re.S)
        blocks = re.findall(r"<pre><code>(.*?)</code></pre>", article, flags=re.S)
        article = re.sub(r"<pre><code>.*?</code></pre>", "", article, flags=re.S)
        spans = re.findall(r"<code>(.*?)</code>", article, flags=re.S)
        # A block of maths is flagged by its characters alone; a span only if not code-shaped.
        checks = (
            ("code block", blocks, _MATHS_CHARACTERS.search),
            ("code span", spans, _maths_in_code),
        )
        for kind, texts, is_maths in checks:
            for raw in texts:
                code = html.unescape(re.sub(r"<[^>]+>", "", raw))
                if is_maths(code):
                    found.append(f"{page}: maths in a {kind}, write it as $...$: {code!r}")
    assert found == []


_MATH = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', flags=re.S)
#: The delimiters arithmatex (generic mode) writes, inline and display; katex-init.js must
#: hand exactly these to KaTeX's auto-render.
_DELIMITERS = {"span": ("\\(", "\\)", False), "div": ("\\[", "\\]", True)}


def test_every_formula_typesets_in_katex(site: Path) -> None:
    """Each formula of each page goes through the vendored KaTeX (run in V8, no browser)
    with ``throwOnError``: a LaTeX error anywhere fails, naming the page and the formula.
    The page's own wiring is checked as text: the init script's delimiters are arithmatex's."""
    from py_mini_racer import MiniRacer

    init = (site / "javascripts" / "katex-init.js").read_text(encoding="utf-8")
    for left, right, display in _DELIMITERS.values():
        js_left, js_right = (json.dumps(d) for d in (left, right))
        assert f"left: {js_left}, right: {js_right}, display: {str(display).lower()}" in init
    katex = MiniRacer()
    katex.eval((site / "assets" / "katex" / "katex.min.js").read_text(encoding="utf-8"))
    formulas, failures = 0, []
    for name, text in _html(site).items():
        for tag, body in _MATH.findall(text):
            left, right, display = _DELIMITERS[tag]
            tex = html.unescape(body).strip()
            assert tex.startswith(left) and tex.endswith(right), (name, tex)
            source = json.dumps(tex[len(left) : -len(right)])
            options = json.dumps({"displayMode": display, "throwOnError": True})
            try:
                rendered = katex.eval(f"katex.renderToString({source}, {options})")
            except Exception as exc:  # the ParseError, with KaTeX's position
                failures.append(f"{name}: {tex!r}: {str(exc).splitlines()[0]}")
                continue
            assert 'class="katex' in rendered
            formulas += 1
    assert failures == []
    # The site holds 380 formulas (377 on the theory pages, 3 on the home page); a lost page
    # or a formula that no longer reaches KaTeX shows here.
    assert formulas >= 370


def _bibliography_entries() -> list[str]:
    """The bibliography's entries, each a list item (``- **Author (year).** ...``) joined
    with its continuation lines."""
    text = (ROOT / "docs" / "bibliography.md").read_text(encoding="utf-8")
    return [
        " ".join(item.split()) for item in re.findall(r"^- \*\*.*?(?=^- |^#|\Z)", text, re.M | re.S)
    ]


def test_every_bibliography_entry_links_a_doi_or_a_stable_page() -> None:
    """Each entry points the reader to the paper: a DOI (``https://doi.org/10.NNNN/...``) or
    a stable page (arXiv, a proceedings or journal page, OpenReview, IACR ePrint)."""
    stable = re.compile(
        r"\]\(https://(doi\.org/10\.\d{4,9}/\S+|arxiv\.org/abs/\d{4}\.\d{4,5}|proceedings\.mlr\.press/"
        r"|papers\.nips\.cc/|jmlr\.org/papers/|openreview\.net/forum\?id=|eprint\.iacr\.org/)"
    )
    entries = _bibliography_entries()
    assert len(entries) >= 20
    assert [entry[:60] for entry in entries if not stable.search(entry)] == []


def _project_files(suffixes: tuple[str, ...]) -> list[Path]:
    """The project's files with these endings: git's tracked ones, or, outside a checkout (an
    unpacked sdist, no git), every one below the root but the virtual environment."""
    git = shutil.which("git")
    if git is not None:
        listed = subprocess.run(
            [git, "ls-files", *(f"*{suffix}" for suffix in suffixes)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if listed.returncode == 0 and listed.stdout:
            return [ROOT / name for name in listed.stdout.splitlines()]
    found = [p for p in ROOT.rglob("*") if p.suffix in suffixes]
    return [p for p in found if ".venv" not in p.parts and "site-packages" not in p.parts]


def test_no_working_notes_are_cited() -> None:
    """The project's text (package, tests, experiments, benchmarks, docs, README) cites papers
    and the docs' own pages, never the working notes it was built from."""
    notes = re.compile(r"THEORY\.md|\b[Ss]eeds? 00\d|\bissue \d+\b|seed[s]/")
    paths = _project_files((".py", ".md", ".toml", ".yml"))
    assert len(paths) > 200
    cited = [str(p) for p in paths if notes.search(p.read_text(encoding="utf-8"))]
    assert cited == []


@pytest.mark.parametrize(
    "page", ["docs/howto/custom-loss.md", "docs/howto/exact-sampling.md", "README.md"]
)
def test_code_blocks_run(page: str) -> None:
    blocks = _python_blocks(ROOT / page)
    assert blocks, f"{page} has no python blocks"
    namespace: dict[str, object] = {}
    for block in blocks:  # blocks of a page share one namespace, as a reader's session would
        exec(compile(block, page, "exec"), namespace)


#: The pages whose code reproduces their claims: the home page and every theory page.
CLAIM_PAGES = ["docs/index.md", *(f"docs/{page}.md" for page in THEORY_PAGES)]


@pytest.mark.parametrize("page", CLAIM_PAGES)
def test_home_and_theory_code_blocks_run(page: str) -> None:
    """Each theory page and the home page has code that runs (its asserts are the page's
    claims, checked against closed forms)."""
    import matplotlib.pyplot as plt

    blocks = _python_blocks(ROOT / page)
    assert blocks, f"{page} has no python blocks"
    namespace: dict[str, object] = {}
    try:
        for block in blocks:
            exec(compile(block, page, "exec"), namespace)
    finally:
        plt.close("all")


def test_every_command_is_documented() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"## optmech {command}" in text, command


class _Page(HTMLParser):
    """The ids, links and images of one page, and the stack of elements around each table
    and display-maths block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.unwrapped: list[str] = []
        self.stack: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "a" and "href" in found:
            self.links.append(found["href"])
        if tag == "img" and "src" in found:
            self.links.append(found["src"])
        if tag == "table" and not any("md-typeset__scrollwrap" in c for _, c in self.stack):
            self.unwrapped.append("a table outside div.md-typeset__scrollwrap")
        if tag not in _VOID:
            self.stack.append((tag, found.get("class", "")))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break


_VOID = frozenset({"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"})


def _parse(site: Path) -> dict[str, _Page]:
    pages = {}
    for name, text in _html(site).items():
        page = _Page()
        page.feed(text)
        pages[name] = page
    return pages


def test_every_table_scrolls_in_its_own_box(site: Path) -> None:
    """Each table of the site sits in a box that scrolls sideways (the build wraps it), and the
    site's stylesheet makes that box, display maths and code scroll: nothing wider than the
    column is clipped or pushes the page wider."""
    pages = _parse(site)
    tables = sum(_html(site)[name].count("<table") for name in pages)
    assert tables >= 20
    assert {name: page.unwrapped for name, page in pages.items() if page.unwrapped} == {}
    css = re.sub(r"\s+", " ", (site / "stylesheets" / "extra.css").read_text(encoding="utf-8"))
    rules = dict(re.findall(r"([^{}]+)\{([^{}]*)\}", re.sub(r"/\*.*?\*/", "", css)))

    def scrolls(selector: str) -> bool:
        return any(
            selector in [s.strip() for s in sel.split(",")] and "overflow-x: auto" in body
            for sel, body in rules.items()
        )

    assert scrolls(".md-typeset__scrollwrap")
    assert scrolls(".md-typeset div.arithmatex") and scrolls(".md-typeset .katex-display")
    for name, text in _html(site).items():
        assert 'stylesheets/extra.css"' in text, name


def test_display_maths_is_only_in_arithmatex_blocks(site: Path) -> None:
    """No ``$$``, ``\\[`` or ``$…$`` is left as text outside the maths arithmatex hands to
    KaTeX (nor outside code): each display block is a ``div.arithmatex`` that scrolls."""
    strip = re.compile(
        r'<(span|div) class="arithmatex">.*?</\1>|<(pre|code|script|style)\b.*?</\2>', flags=re.S
    )
    raw = re.compile(r"\$\$|\\\[|\\\(|(?<![\w$])\$[^\s$<][^$<\n]*\$(?![\w$])")
    found = []
    for name, text in _html(site).items():
        article = text[text.find("<article") : text.find("</article>")]
        for hit in raw.finditer(strip.sub("", article)):
            found.append(f"{name}: {hit[0][:60]!r}")
    assert found == []


def test_no_broken_internal_links_or_images(site: Path) -> None:
    """Every relative link and image of the site reaches a file of the site, and a link's
    ``#anchor`` an id of the page it points to."""
    pages = _parse(site)
    broken = []
    for name, page in pages.items():
        if name == "404.html":  # served at any depth, so its links are absolute
            continue
        here = (site / name).parent
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue
            target = (here / parts.path).resolve() if parts.path else site / name
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{name}: {link}")
                continue
            key = str(target.relative_to(site.resolve())) if parts.path else name
            if parts.fragment and key in pages and unquote(parts.fragment) not in pages[key].ids:
                broken.append(f"{name}: {link} (no such anchor)")
    assert broken == []
