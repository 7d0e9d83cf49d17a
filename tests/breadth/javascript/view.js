export function render(el, comment) {
  // revu-breadth: defect javascript.browser.security.insecure-document-method
  el.innerHTML = comment.body;
}

export function renderSafe(el, comment) {
  // revu-breadth: trap javascript.browser.security.insecure-document-method
  el.textContent = comment.body;
}

export function banner(html) {
  // revu-breadth: defect javascript.browser.security.insecure-document-method
  document.write(html);
}

export function Comment({ body }) {
  // revu-breadth: defect typescript.react.security.audit.react-dangerouslysetinnerhtml
  return <div dangerouslySetInnerHTML={{ __html: body }} />;
}
