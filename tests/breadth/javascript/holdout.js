const child_process = require("child_process");
const crypto = require("crypto");
const jwt = require("jsonwebtoken");

function show(element, userHtml) {
  // revu-breadth: defect javascript.browser.security.insecure-document-method
  element.outerHTML = userHtml;
  // revu-breadth: trap javascript.browser.security.insecure-document-method
  element.innerText = userHtml;
}

function log(branch) {
  // revu-breadth: defect javascript.lang.security.detect-child-process
  return child_process.execSync("git log " + branch);
}

function seal(key, data) {
  // revu-breadth: defect javascript.node-crypto.security.aes-ecb
  const c = crypto.createCipheriv("aes-128-ecb", key, null);
  return c.update(data);
}

function check(token, key) {
  // revu-breadth: defect javascript.jsonwebtoken.security.jwt-none-alg
  return jwt.verify(token, key, { algorithms: ["none"] });
}

function compile(body) {
  // revu-breadth: defect javascript.lang.security.audit.detect-eval-with-expression
  return new Function("return " + body);
}

module.exports = { show, log, seal, check, compile };
