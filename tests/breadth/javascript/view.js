export function render(el, comment) {
  // revu-eval: defect javascript.browser.security.insecure-document-method
  el.innerHTML = comment.body;
}

export function renderSafe(el, comment) {
  // revu-eval: trap javascript.browser.security.insecure-document-method
  el.textContent = comment.body;
}

export function banner(html) {
  // revu-eval: defect javascript.browser.security.insecure-document-method
  document.write(html);
}

export function Comment({ body }) {
  // revu-eval: defect typescript.react.security.audit.react-dangerouslysetinnerhtml
  return <div dangerouslySetInnerHTML={{ __html: body }} />;
}
