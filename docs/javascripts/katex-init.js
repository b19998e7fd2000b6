// Typeset the maths of every page with the vendored KaTeX (no request leaves the site).
// pymdownx.arithmatex (generic mode) wraps $…$ and $$…$$ in .arithmatex spans and divs.
function renderMath(root) {
  renderMathInElement(root, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  });
}
if (typeof document$ !== "undefined") {
  document$.subscribe(({ body }) => renderMath(body));
} else {
  document.addEventListener("DOMContentLoaded", () => renderMath(document.body));
}
