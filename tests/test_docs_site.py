"""The documentation site: `mkdocs build --strict` succeeds offline, and its examples run.

The build turns every warning into an error: a broken link or anchor, a page missing from
the navigation, a docstring that griffe cannot parse (numpydoc sections that do not match
the signature). The built pages load nothing from another host (MathJax is vendored), and
show no raw reStructuredText. The worked examples of the seed texts are run here and must
print exactly the output the page shows; the relative links of the README and of the pages
point at files that exist.
"""

import contextlib
import functools
import html
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKED_EXAMPLES = ROOT / "docs" / "worked-examples.md"
# A python block, the word "prints", and the text block of what it prints.
EXAMPLE = re.compile(r"```python\n(?P<code>.*?)```\n\nprints\n\n```text\n(?P<output>.*?)```", re.S)
# What reStructuredText leaves in a page when mkdocstrings does not translate it.
RAW_REST = (":func:", ":class:", ":meth:", ":attr:", ":mod:", ":math:", ".. math::")
# A Markdown link or image: [text](target); the target up to a space or the closing bracket.
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\((?P<target><[^>]*>|[^)\s]+)[^)]*\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("docs") / "site"
    # Not NO_MKDOCS_2_WARNING: with click 8.5.1 it makes `mkdocs build` "No such command".
    environment = dict(
        os.environ, XLA_FLAGS="--xla_cpu_enable_concurrency_optimized_scheduler=false"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return site_dir


def test_strict_build_writes_every_page(site):
    expected = [
        "index.html",
        "classify/index.html",
        "label-shift-and-costs/index.html",
        "discriminant-extras/index.html",
        "worked-examples/index.html",
        "models/index.html",
        "api/index.html",
        "api/gaussian/index.html",
        "api/naive-bayes/index.html",
        "api/mixture-and-kernel/index.html",
        "api/stories/index.html",
        "api/dask/index.html",
    ]
    missing = [page for page in expected if not (site / page).is_file()]
    assert not missing, missing


def test_api_pages_carry_the_docstrings_of_inherited_methods(site):
    """GaussianDA's page documents predict_proba, which it inherits from the base class."""
    page = (site / "api" / "gaussian" / "index.html").read_text(encoding="utf-8")
    assert 'id="bayesgen.GaussianDA.predict_proba"' in page
    assert 'id="bayesgen.LDA.transform"' in page
    # A sentence of the class docstring, assembled at import time, and of a method's.
    assert "a Gaussian density per class" in page
    assert "normalised in log space" in page


def test_math_is_left_for_mathjax(site):
    page = (site / "models" / "index.html").read_text(encoding="utf-8")
    assert 'class="arithmatex"' in page


class _Resources(HTMLParser):
    """The addresses a page loads: `<script src>` and `<link href>`."""

    def __init__(self):
        super().__init__()
        self.addresses = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        address = {"script": attributes.get("src"), "link": attributes.get("href")}.get(tag)
        if address:
            self.addresses.append(address)


def _html_pages(site):
    return sorted(site.rglob("*.html"))


def test_no_page_loads_a_script_or_stylesheet_from_another_host(site):
    """The site reads offline: MathJax and its fonts are served from the site itself."""
    foreign = {}
    for page in _html_pages(site):
        parser = _Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        # A scheme ("https:") or a host ("//cdn...") names another host; relative paths do not.
        outside = [a for a in parser.addresses if urlsplit(a).scheme or urlsplit(a).netloc]
        if outside:
            foreign[str(page.relative_to(site))] = outside
    assert not foreign, foreign


def test_mathjax_is_served_by_the_site(site):
    page = (site / "models" / "index.html").read_text(encoding="utf-8")
    assert 'src="../assets/mathjax/tex-chtml-full.js"' in page
    # MathJax's CommonHTML output loads its fonts relative to its own script.
    fonts = site / "assets" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2"
    assert (fonts / "MathJax_Main-Regular.woff").is_file()
    assert (fonts / "MathJax_Math-Italic.woff").is_file()


def test_the_page_hook_keeps_mathjax_s_glyphs(site):
    """Issue 33: every formula of the site drew nothing. The hook that re-typesets each
    page called ``MathJax.startup.output.clearCache()``, which dropped the CSS of the glyphs
    typeset at startup (headless Chromium showed the formulas' space, blank; without the
    call they draw). The hook must re-typeset without clearing that cache."""
    hook = (site / "javascripts" / "mathjax.js").read_text(encoding="utf-8")
    code = "\n".join(line for line in hook.splitlines() if not line.lstrip().startswith("//"))
    assert "document$.subscribe" in code and "typesetPromise" in code
    assert "clearCache" not in code


# Characters MathJax draws with no width: function application and invisible times,
# separator and plus (U+2061-2064), and the zero-width space.
INVISIBLE_GLYPHS = {"mjx-c2061", "mjx-c2062", "mjx-c2063", "mjx-c2064", "mjx-c200B"}
GLYPH_PROBE = Path(__file__).with_name("glyph_probe.js")
PROBE_OUTPUT = re.compile(r'<pre id="glyph-probe">(?P<report>[^<]*)</pre>')


@pytest.fixture(scope="module")
def served_site(site, tmp_path_factory):
    """A copy of the site, each page with `glyph_probe.js` appended, served over http
    (MathJax loads its fonts relative to its script, which a file:// page may not)."""
    copy = tmp_path_factory.mktemp("served") / "site"
    shutil.copytree(site, copy)
    shutil.copy(GLYPH_PROBE, copy / GLYPH_PROBE.name)
    for page in copy.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        probe = f'<script src="/{GLYPH_PROBE.name}"></script></body>'
        page.write_text(text.replace("</body>", probe), encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(copy))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError(
        "The documentation's formulas are checked in a real browser: install Debian's "
        "chromium (apt-get install chromium), as .ci/run does when it is missing."
    )


@pytest.mark.parametrize("page", ["models", "missing-features", "uncertainty"])
def test_a_browser_draws_every_formula(served_site, page, tmp_path):
    """Issue 33: every formula rendered blank in Chromium while the DOM held MathJax's
    nodes. Headless Chromium loads the page, MathJax typesets it, and every glyph but the
    invisible operators must take up width (a glyph whose font CSS is missing has none)."""
    command = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=30000",
        "--dump-dom",
        f"{served_site}/{page}/",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    match = PROBE_OUTPUT.search(result.stdout)
    assert match, f"no glyph report (MathJax never finished):\n{result.stderr[-2000:]}"
    report = json.loads(html.unescape(match.group("report")))
    assert report["formulas"] >= 10, report
    assert report["blankFormulas"] == 0, report
    assert set(report["zeroWidthClasses"]) <= INVISIBLE_GLYPHS, report


def test_namedtuple_fields_are_not_shown_as_descriptors(site):
    """A NamedTuple's fields are documented by its Attributes section, not as `_tuplegetter`."""
    shown = [
        str(page.relative_to(site))
        for page in _html_pages(site)
        if "_tuplegetter" in page.read_text(encoding="utf-8")
    ]
    assert not shown, shown
    stories = (site / "api" / "stories" / "index.html").read_text(encoding="utf-8")
    assert 'id="bayesgen.stories.StoryPart"' in stories
    assert "Samples or observes the feature site(s)" in stories


def _text_of(markup: str) -> str:
    """What a page's markup reads as: its text, entities resolved."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_attributes_show_their_own_documentation(site):
    """A fitted attribute is a property with its description, not a class attribute whose
    value is a descriptor's address; a constant shows its ``#:`` comment, not the
    docstring of ``int``, ``str`` or ``bool``."""
    borrowed = ("object at 0x", "int([x]) -> integer", "str(object='') -> str", "bool(x) -> bool")
    shown = {
        str(page.relative_to(site)): [
            text for text in borrowed if text in _text_of(page.read_text(encoding="utf-8"))
        ]
        for page in _html_pages(site)
    }
    assert not {page: texts for page, texts in shown.items() if texts}
    naive_bayes = (site / "api" / "naive-bayes" / "index.html").read_text(encoding="utf-8")
    heading = naive_bayes.index('id="bayesgen.BernoulliNB.class_count_"')
    entry = _text_of(naive_bayes[heading : heading + 3000])
    assert "property" in entry and "Weighted number of training rows per class." in entry
    assert "The fewest classes a fit takes" in _text_of(naive_bayes)  # base.py's #: comment
    # An override without a comment of its own keeps the meaning of what it overrides; a
    # family's constants are described by the protocol's Attributes section; a package's
    # constant by the comment where it is assigned.
    heading = naive_bayes.index('id="bayesgen.BernoulliNB.min_classes"')
    assert "The fewest classes a fit takes" in _text_of(naive_bayes[heading : heading + 3000])
    mixtures = (site / "api" / "mixture-and-kernel" / "index.html").read_text(encoding="utf-8")
    for anchor, description in [
        ("bayesgen.joint.RESPONSIBILITY_ENTRIES", "A fit adds rows in chunks"),
        ("bayesgen.families.component_mixture.MixtureFamily.merges_exactly", "Whether statistics"),
    ]:
        heading = mixtures.index(f'id="{anchor}"')
        assert description in _text_of(mixtures[heading : heading + 3000]), anchor


def test_no_page_shows_raw_restructuredtext(site):
    """Roles and math directives are translated: `$x$`, `$$ $$` and `[a.b][]` render."""
    raw = {}
    for page in _html_pages(site):
        text = page.read_text(encoding="utf-8")
        counts = {role: text.count(role) for role in RAW_REST if role in text}
        if counts:
            raw[str(page.relative_to(site))] = counts
    assert not raw, raw


def _relative_link_targets(markdown):
    """The relative link targets of a Markdown text, outside code, without their anchors."""
    targets = []
    for match in MARKDOWN_LINK.finditer(CODE.sub("", markdown)):
        target = match.group("target").strip("<>")
        parts = urlsplit(target)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        targets.append(unquote(parts.path))
    return targets


@pytest.mark.parametrize(
    "document",
    [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_relative_links_point_at_files_that_exist(document):
    targets = _relative_link_targets(document.read_text(encoding="utf-8"))
    broken = [t for t in targets if not (document.parent / t).exists()]
    assert not broken, broken


def test_link_checker_sees_links_and_skips_code():
    text = "[a](docs/cli.md#x) `[b](nowhere.md)` [c](https://example.org) ![d](<img one.png>)"
    assert _relative_link_targets(text) == ["docs/cli.md", "img one.png"]


def test_worked_examples_print_what_the_page_shows():
    examples = EXAMPLE.findall(WORKED_EXAMPLES.read_text(encoding="utf-8"))
    assert len(examples) == 7
    for code, output in examples:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(WORKED_EXAMPLES), "exec"), {"__name__": "worked_example"})
        assert printed.getvalue() == output, code
