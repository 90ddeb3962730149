// Appended to a copy of a built page by tests/test_docs_site.py: once MathJax has typeset
// the page (its startup promise, which the page hook's typesetPromise chains onto) and the
// fonts are in, write what was drawn into <pre id="glyph-probe"> for `chromium --dump-dom`.
window.addEventListener("load", () => {
  MathJax.startup.promise
    .then(() => document.fonts.ready)
    .then(() => {
      const containers = Array.from(document.querySelectorAll("mjx-container"));
      const glyphs = Array.from(document.querySelectorAll("mjx-container mjx-c"));
      const drawn = (glyph) => glyph.getBoundingClientRect().width > 0;
      const report = {
        formulas: containers.length,
        glyphs: glyphs.length,
        blankFormulas: containers.filter((c) => !Array.from(c.querySelectorAll("mjx-c")).some(drawn)).length,
        zeroWidthClasses: [...new Set(glyphs.filter((g) => !drawn(g)).map((g) => g.classList[0]))],
      };
      const out = document.createElement("pre");
      out.id = "glyph-probe";
      out.textContent = JSON.stringify(report);
      document.body.appendChild(out);
    });
});
