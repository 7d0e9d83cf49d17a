const { exec } = require("child_process");
const crypto = require("crypto");
const express = require("express");

const app = express();

app.get("/run", (req, res) => {
  // revu-eval: defect javascript.lang.security.detect-child-process
  exec(`convert ${req.query.file} out.png`);
  res.send("ok");
});

app.get("/hello", (req, res) => {
  // revu-eval: defect javascript.express.security.audit.xss.direct-response-write
  res.send("<h1>Hello " + req.query.name + "</h1>");
});

app.get("/go", (req, res) => {
  // revu-eval: defect javascript.express.security.audit.express-open-redirect
  res.redirect(req.query.next);
});

app.get("/file", (req, res) => {
  // revu-eval: defect javascript.express.security.audit.express-path-join-resolve-traversal
  res.sendFile(req.params.name, { root: "/srv" });
});

function digest(data) {
  // revu-eval: defect javascript.lang.security.audit.md5-used-as-password
  return crypto.createHash("md5").update(data).digest("hex");
}

function safeDigest(data) {
  // revu-eval: trap javascript.lang.security.audit.md5-used-as-password
  return crypto.createHash("sha256").update(data).digest("hex");
}

function sessionId() {
  // revu-eval: defect javascript.lang.security.audit.insecure-random
  const sessionToken = Math.random().toString(36).slice(2);
  return sessionToken;
}

function compute(expr) {
  // revu-eval: defect javascript.lang.security.audit.code-string-concat
  return eval("(" + expr + ")");
}

function findUser(db, name) {
  // revu-eval: defect javascript.lang.security.audit.sqli.node-mysql-sqli
  return db.query("SELECT * FROM users WHERE name = '" + name + "'");
}

function findUserSafe(db, name) {
  // revu-eval: trap javascript.lang.security.audit.sqli.node-mysql-sqli
  return db.query("SELECT id, name FROM users WHERE name = ?", [name]);
}

const agent = new (require("https").Agent)({
  // revu-eval: defect problem-based-packs.insecure-transport.js-node.bypass-tls-verification
  rejectUnauthorized: false,
});

module.exports = { app, digest, safeDigest, sessionId, compute, findUser, findUserSafe, agent };
