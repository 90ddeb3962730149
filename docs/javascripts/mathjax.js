// MathJax settings for pymdownx.arithmatex (generic mode): \( \) inline, \[ \] display.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

// No output.clearCache() here (the snippet MkDocs Material suggests has one): with this
// vendored MathJax it dropped the CSS of every glyph already typeset at startup, so each
// formula kept its space but drew nothing (seen in Chromium; tests/test_docs_site.py).
document$.subscribe(() => {
  MathJax.typesetClear();
  MathJax.texReset();
  MathJax.typesetPromise();
});
