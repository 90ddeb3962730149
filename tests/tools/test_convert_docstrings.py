"""tools/convert_docstrings.py: reST roles and math in docstrings become mkdocstrings Markdown.

Checked on small sources with a resolver that knows a fixed set of anchors, and with the
real resolver against objects of bayesgen: only docstring text changes, doctest lines keep
their text, and a second run changes nothing.
"""

import doctest
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "convert_docstrings", ROOT / "tools" / "convert_docstrings.py"
)
convert_docstrings = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = convert_docstrings
spec.loader.exec_module(convert_docstrings)

ANCHORS = {"bayesgen.load", "bayesgen.GaussianDA", "bayesgen.GaussianDA.predict_proba"}


def resolve(target, module, owner):
    """Anchors by the name as written: enough to test the text, not the lookup."""
    candidates = [f"bayesgen.{target}", target]
    return next((c for c in candidates if c in ANCHORS), None)


SOURCE = '''\
r"""Module :math:`p(x \\mid k)` and :mod:`bayesgen.registry`."""

import numpy as np

NOT_A_DOCSTRING = ":math:`x` stays"


def f(x):
    """See :func:`bayesgen.load`, :func:`~bayesgen.load` and :meth:`GaussianDA.predict_proba`.

    The density

    .. math::

        p(x) = \\\\frac{1}{Z}
        e^{-x}

        q(x) = 1

    with :math:`Z` the
    normaliser, :math:`a +
    b`, and :class:`title <bayesgen.GaussianDA>`.

    >>> print(":math:`x`")  # a doctest keeps its text
    :math:`x`
    """
    return ":func:`x`"


class A:
    __doc__ = "Built: " + ":class:`GaussianDA`"

    x = 1
    """An attribute with :math:`\\\\alpha`."""
'''


def test_roles_and_math_become_markdown_only_in_docstrings():
    converted, count = convert_docstrings.convert_source(SOURCE, resolve, "bayesgen.example")
    assert r'r"""Module $p(x \mid k)$ and `bayesgen.registry`."""' in converted
    assert 'NOT_A_DOCSTRING = ":math:`x` stays"' in converted
    assert 'return ":func:`x`"' in converted
    assert "See [`bayesgen.load`][bayesgen.load], [`load`][bayesgen.load] and " in converted
    assert "[`GaussianDA.predict_proba`][bayesgen.GaussianDA.predict_proba]." in converted
    block = "    $$\n    p(x) = \\\\frac{1}{Z}\n    e^{-x}\n    $$\n"
    block += "\n    $$\n    q(x) = 1\n    $$\n"
    assert "    The density\n\n" + block + "\n    with $Z$ the\n" in converted
    assert "normaliser, $a +\n    b$, and [`title`][bayesgen.GaussianDA]." in converted
    assert '    >>> print(":math:`x`")  # a doctest keeps its text\n    :math:`x`\n' in converted
    assert '__doc__ = "Built: " + "[`GaussianDA`][bayesgen.GaussianDA]"' in converted
    assert '"""An attribute with $\\\\alpha$."""' in converted
    # Inline math 4, cross-references 6, one directive; none in the doctest.
    assert count == 11
    compile(converted, "converted", "exec")


def test_a_second_run_changes_nothing():
    once, _ = convert_docstrings.convert_source(SOURCE, resolve, "bayesgen.example")
    twice, count = convert_docstrings.convert_source(once, resolve, "bayesgen.example")
    assert (twice, count) == (once, 0)


def test_a_file_without_roles_is_left_as_it_is():
    source = '"""Plain $x$ and [`a`][b]."""\nX = 1\n'
    assert convert_docstrings.convert_source(source, resolve, "m") == (source, 0)


def test_the_converted_docstring_still_runs_as_a_doctest():
    converted, _ = convert_docstrings.convert_source(SOURCE, resolve, "bayesgen.example")
    namespace = {}
    exec(compile(converted, "converted", "exec"), namespace)
    test = doctest.DocTestParser().get_doctest(namespace["f"].__doc__, {}, "f", None, 0)
    result = doctest.DocTestRunner().run(test)
    assert (result.failed, result.attempted) == (0, 1)


@pytest.fixture(scope="module")
def site_resolver():
    anchors = {
        "bayesgen.GaussianDA",
        "bayesgen.GaussianDA.predict_proba",
        "bayesgen.LDA",
        "bayesgen.LDA.predict_proba",
        "bayesgen.load",
        "bayesgen.stories.gaussian_story",
    }
    return convert_docstrings.SiteResolver(anchors)


def test_names_resolve_as_seen_from_the_docstring(site_resolver):
    module = "bayesgen.estimators.gaussian"
    assert site_resolver("GaussianDA", module, None) == "bayesgen.GaussianDA"
    assert site_resolver("bayesgen.stories.gaussian.gaussian_story", module, None) == (
        "bayesgen.stories.gaussian_story"
    )
    assert site_resolver("predict_proba", module, "GaussianDA") == (
        "bayesgen.GaussianDA.predict_proba"
    )
    assert site_resolver("bayesgen.load", module, None) == "bayesgen.load"


def test_what_the_site_does_not_document_stays_plain_code(site_resolver):
    module = "bayesgen.estimators.base"
    # Not on the site.
    assert site_resolver("bayesgen.registry", module, None) is None
    assert site_resolver("no_such_name", module, None) is None
    # Inherited by GaussianDA and LDA alike: no one anchor is right.
    assert site_resolver("predict_proba", module, "GenerativeClassifier") is None


def test_relative_module_names_resolve_from_the_package():
    candidates = convert_docstrings._candidates(".registry", "bayesgen.estimators.base", None)
    assert candidates == ["bayesgen.estimators.registry"]
    candidates = convert_docstrings._candidates("..registry", "bayesgen.estimators", None)
    assert candidates == ["bayesgen.registry"]
