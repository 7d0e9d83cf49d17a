//! Blast radius across the packages of a monorepo: in a pnpm workspace
//! whose app imports a package by its name, a finding in the package
//! counts the app's importing file among its importers. Needs git on
//! PATH.

use crate::scratch;

use scratch::{Scratch, findings, report, revu_command};
use serde_json::{Value, json};

const MONEY: &str =
    "export function convert(amount: number): number {\n  return amount * 100;\n}\n";
const APP: &str = "import { convert } from \"@acme/money\";\n\nexport function price(n: number): number {\n  return convert(n);\n}\n";
const MAIN: &str = "import { price } from \"./app\";\n\nconsole.log(price(3));\n";

fn workspace(name: &str) -> Scratch {
    let s = Scratch::new(name);
    s.write(
        "package.json",
        "{ \"name\": \"acme\", \"private\": true }\n",
    );
    s.write(
        "pnpm-workspace.yaml",
        "packages:\n  - \"apps/*\"\n  - \"packages/*\"\n",
    );
    // The built entry is not in the repository: the source is found.
    s.write(
        "packages/money/package.json",
        "{\n  \"name\": \"@acme/money\",\n  \"version\": \"1.0.0\",\n  \"exports\": {\n    \".\": { \"import\": \"./dist/index.js\", \"types\": \"./dist/index.d.ts\" }\n  }\n}\n",
    );
    s.write("packages/money/src/index.ts", MONEY);
    s.write(
        "apps/web/package.json",
        "{ \"name\": \"@acme/web\", \"dependencies\": { \"@acme/money\": \"workspace:*\" } }\n",
    );
    s.write("apps/web/src/app.ts", APP);
    s.write("apps/web/src/main.ts", MAIN);
    s.commit("first");
    s
}

#[test]
fn a_finding_in_a_workspace_package_counts_the_app_that_imports_it_by_name() {
    let s = workspace("ws-pnpm");
    s.write(
        "packages/money/src/index.ts",
        &MONEY.replace(
            "  return amount * 100;\n",
            "  const password = \"hunter2-not-a-real-one\";\n  return amount * 100;\n",
        ),
    );
    let r = report(&s.review(&[]));
    let secret = findings(&r)
        .into_iter()
        .find(|f| f["file"] == "packages/money/src/index.ts" && f["rule"] == "RV-SEC-001")
        .unwrap_or_else(|| panic!("no secret finding: {:#}", r["findings"]));
    // app.ts imports the package by name and calls `convert`; main.ts
    // imports app.ts.
    assert_eq!(
        secret["blast_radius"], "1 direct callers, 2 transitive importers",
        "{secret:#}"
    );
    // The index names the importing file.
    let out = revu_command(&s.dir, Some(&s.hostile))
        .arg("index")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let index: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not an index ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let money = &index["files"]["packages/money/src/index.ts"];
    assert_eq!(
        money["importers"],
        json!(["apps/web/src/app.ts"]),
        "{money:#}"
    );
    assert_eq!(money["transitive_importers"], 2, "{money:#}");
}
