const child_process = require("child_process");
const crypto = require("crypto");
const jwt = require("jsonwebtoken");

function show(element, userHtml) {
  // revu-eval: defect javascript.browser.security.insecure-document-method
  element.outerHTML = userHtml;
  // revu-eval: trap javascript.browser.security.insecure-document-method
  element.innerText = userHtml;
}

function log(branch) {
  // revu-eval: defect javascript.lang.security.detect-child-process
  return child_process.execSync("git log " + branch);
}

function seal(key, data) {
  // revu-eval: defect javascript.node-crypto.security.aes-ecb
  const c = crypto.createCipheriv("aes-128-ecb", key, null);
  return c.update(data);
}

function check(token, key) {
  // revu-eval: defect javascript.jsonwebtoken.security.jwt-none-alg
  return jwt.verify(token, key, { algorithms: ["none"] });
}

function compile(body) {
  // revu-eval: defect javascript.lang.security.audit.detect-eval-with-expression
  return new Function("return " + body);
}

module.exports = { show, log, seal, check, compile };
