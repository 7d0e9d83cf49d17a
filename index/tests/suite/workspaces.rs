//! Imports across the packages of a monorepo: an npm workspace package by
//! name (its `exports`), `tsconfig.json` aliases, Go modules of a `go.mod`
//! and a `go.work`, a Cargo workspace crate by name, a Python package from
//! a `src/` layout. Each consumer counts as an importer, and its use of a
//! changed symbol as stale.

use crate::common;

use common::index;
use revu_domain::code_index::{CodeIndex, SymbolChange};

/// The stale uses: (file, line, symbol).
fn stale(index: &CodeIndex) -> Vec<(String, u32, String)> {
    index
        .omissions
        .iter()
        .map(|o| (o.site.file.clone(), o.site.line, o.symbol.clone()))
        .collect()
}

fn importers(index: &CodeIndex, file: &str) -> (Vec<String>, usize) {
    let f = &index.files[file];
    (f.importers.clone(), f.transitive_importers)
}

const MONEY_BEFORE: &str =
    "export function convert(amount: number): number {\n  return amount;\n}\n";
const MONEY_AFTER: &str =
    "export function exchange(amount: number): number {\n  return amount;\n}\n";

#[test]
fn an_npm_workspace_package_by_name_through_its_exports() {
    let package = r#"{
  "name": "@acme/money",
  "version": "1.0.0",
  "exports": {
    ".": { "types": "./dist/index.d.ts", "import": "./dist/index.mjs" },
    "./fx/*": "./src/fx/*.ts"
  }
}"#;
    let rates = "export const EUR = 1;\n";
    let app = "import { convert } from \"@acme/money\";\nimport { EUR } from \"@acme/money/fx/rates\";\n\nexport const total = convert(EUR);\n";
    let main = "import { total } from \"./app\";\n\nconsole.log(total);\n";
    // Another package of that name in a fixture, deeper: not the one.
    let fixture = r#"{ "name": "@acme/money", "main": "index.js" }"#;
    let index = index(&[
        (
            "package.json",
            Some(r#"{"private": true}"#),
            Some(r#"{"private": true}"#),
        ),
        (
            "pnpm-workspace.yaml",
            Some("packages:\n  - apps/*\n  - packages/*\n"),
            Some("packages:\n  - apps/*\n  - packages/*\n"),
        ),
        ("packages/money/package.json", Some(package), Some(package)),
        (
            "packages/money/src/index.ts",
            Some(MONEY_BEFORE),
            Some(MONEY_AFTER),
        ),
        ("packages/money/src/fx/rates.ts", Some(rates), Some(rates)),
        (
            "packages/money/tests/fixtures/package.json",
            Some(fixture),
            Some(fixture),
        ),
        (
            "apps/web/package.json",
            Some(r#"{"name": "web"}"#),
            Some(r#"{"name": "web"}"#),
        ),
        ("apps/web/src/app.ts", Some(app), Some(app)),
        ("apps/web/src/main.ts", Some(main), Some(main)),
    ]);
    assert_eq!(
        importers(&index, "packages/money/src/index.ts"),
        (vec!["apps/web/src/app.ts".to_owned()], 2),
        "{index:#?}"
    );
    assert_eq!(
        stale(&index),
        vec![
            ("apps/web/src/app.ts".to_owned(), 1, "convert".to_owned()),
            ("apps/web/src/app.ts".to_owned(), 4, "convert".to_owned()),
        ]
    );
    assert_eq!(
        index.omissions[0].change,
        SymbolChange::Renamed {
            to: "exchange".into()
        }
    );
}

#[test]
fn a_package_without_exports_by_its_main_field_or_its_index() {
    let index_ = index(&[
        (
            "libs/fmt/package.json",
            Some(r#"{ "name": "fmt", "main": "./lib/fmt.js" }"#),
            Some(r#"{ "name": "fmt", "main": "./lib/fmt.js" }"#),
        ),
        ("libs/fmt/src/fmt.ts", Some(MONEY_BEFORE), Some(MONEY_AFTER)),
        (
            "libs/tiny/package.json",
            Some(r#"{ "name": "tiny" }"#),
            Some(r#"{ "name": "tiny" }"#),
        ),
        (
            "libs/tiny/index.js",
            Some("export const one = 1;\n"),
            Some("export const one = 2;\n"),
        ),
        (
            "app/a.js",
            Some(
                "const { convert } = require(\"fmt\");\nimport { one } from \"tiny\";\nconvert(one);\n",
            ),
            Some(
                "const { convert } = require(\"fmt\");\nimport { one } from \"tiny\";\nconvert(one);\n",
            ),
        ),
    ]);
    // `lib/fmt.js` is built from `src/fmt.ts`.
    assert_eq!(
        importers(&index_, "libs/fmt/src/fmt.ts").0,
        vec!["app/a.js".to_owned()]
    );
    assert_eq!(
        importers(&index_, "libs/tiny/index.js").0,
        vec!["app/a.js".to_owned()]
    );
}

#[test]
fn tsconfig_path_aliases_of_the_nearest_config_with_comments_and_extends() {
    let base = "{\n  // shared\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@money/*\": [\"libs/money/src/*\"], /* the lib */\n      \"@config\": [\"libs/config/index.ts\"],\n    },\n  },\n}\n";
    let app_config = "{ \"extends\": \"../../tsconfig.base.json\", \"include\": [\"src\"], }";
    let app = "import { convert } from \"@money/convert\";\nimport { flags } from \"@config\";\n\nexport const x = convert(flags);\n";
    let index = index(&[
        ("tsconfig.base.json", Some(base), Some(base)),
        (
            "apps/site/tsconfig.json",
            Some(app_config),
            Some(app_config),
        ),
        ("apps/site/src/page.ts", Some(app), Some(app)),
        (
            "libs/money/src/convert.ts",
            Some(MONEY_BEFORE),
            Some(MONEY_AFTER),
        ),
        (
            "libs/config/index.ts",
            Some("export const flags = 0;\n"),
            Some("export const flags = 1;\n"),
        ),
    ]);
    assert_eq!(
        importers(&index, "libs/money/src/convert.ts").0,
        vec!["apps/site/src/page.ts".to_owned()],
        "{index:#?}"
    );
    assert_eq!(
        importers(&index, "libs/config/index.ts").0,
        vec!["apps/site/src/page.ts".to_owned()]
    );
    assert_eq!(
        stale(&index),
        vec![
            ("apps/site/src/page.ts".to_owned(), 1, "convert".to_owned()),
            ("apps/site/src/page.ts".to_owned(), 4, "convert".to_owned()),
        ]
    );
}

const CHARGE_BEFORE: &str = "package pay\n\nfunc Charge(amount int) error {\n\treturn nil\n}\n";
const CHARGE_AFTER: &str = "package pay\n\nfunc Debit(amount int) error {\n\treturn nil\n}\n";
const BUY: &str = "package api\n\nimport \"example.com/acme/money/pay\"\n\nfunc Buy() error {\n\treturn pay.Charge(3)\n}\n";

#[test]
fn go_modules_of_a_go_work_import_each_other() {
    let work = "go 1.22\n\nuse (\n\t./money\n\t./services/api\n)\n";
    let money = "module example.com/acme/money\n\ngo 1.22\n";
    let api = "module example.com/acme/api\n\ngo 1.22\n\nrequire example.com/acme/money v0.0.0\n";
    let index = index(&[
        ("go.work", Some(work), Some(work)),
        ("money/go.mod", Some(money), Some(money)),
        (
            "money/pay/charge.go",
            Some(CHARGE_BEFORE),
            Some(CHARGE_AFTER),
        ),
        ("services/api/go.mod", Some(api), Some(api)),
        ("services/api/buy.go", Some(BUY), Some(BUY)),
    ]);
    assert_eq!(
        importers(&index, "money/pay/charge.go").0,
        vec!["services/api/buy.go".to_owned()]
    );
    assert_eq!(
        stale(&index),
        vec![("services/api/buy.go".to_owned(), 6, "Charge".to_owned())]
    );
}

#[test]
fn a_go_mod_replace_names_a_local_directory() {
    // The module at `lib/` declares another path; the consumer's
    // `replace` is what ties the import to it.
    let lib = "module example.com/old/money\n";
    let api = "module example.com/acme/api\n\nreplace example.com/acme/money => ../lib\n";
    let index = index(&[
        ("lib/go.mod", Some(lib), Some(lib)),
        ("lib/pay/charge.go", Some(CHARGE_BEFORE), Some(CHARGE_AFTER)),
        ("api/go.mod", Some(api), Some(api)),
        ("api/buy.go", Some(BUY), Some(BUY)),
    ]);
    assert_eq!(
        importers(&index, "lib/pay/charge.go").0,
        vec!["api/buy.go".to_owned()]
    );
}

#[test]
fn a_cargo_workspace_crate_by_name_with_and_without_a_use() {
    let workspace = "[workspace]\nmembers = [\"crates/*\"]\n";
    let money = "[package]\nname = \"acme-money\" # the money crate\nversion = \"0.1.0\"\n";
    let lib_before = "pub mod fx;\n\npub fn convert(a: u32) -> u32 {\n    a\n}\n";
    let lib_after = "pub mod fx;\n\npub fn exchange(a: u32) -> u32 {\n    a\n}\n";
    let fx_before = "pub fn rate() -> u32 {\n    1\n}\n";
    let fx_after = "pub fn rate(at: u32) -> u32 {\n    at\n}\n";
    let shop =
        "[package]\nname = \"shop\"\n\n[dependencies]\nacme-money = { path = \"../money\" }\n";
    let cart = "use acme_money::convert;\n\npub fn total() -> u32 {\n    convert(2)\n}\n";
    let bill = "pub fn bill() -> u32 {\n    acme_money::fx::rate()\n}\n";
    let index = index(&[
        ("Cargo.toml", Some(workspace), Some(workspace)),
        ("crates/money/Cargo.toml", Some(money), Some(money)),
        ("crates/money/src/lib.rs", Some(lib_before), Some(lib_after)),
        ("crates/money/src/fx.rs", Some(fx_before), Some(fx_after)),
        ("crates/shop/Cargo.toml", Some(shop), Some(shop)),
        (
            "crates/shop/src/lib.rs",
            Some("pub mod cart;\npub mod bill;\n"),
            Some("pub mod cart;\npub mod bill;\n"),
        ),
        ("crates/shop/src/cart.rs", Some(cart), Some(cart)),
        ("crates/shop/src/bill.rs", Some(bill), Some(bill)),
    ]);
    assert_eq!(
        importers(&index, "crates/money/src/lib.rs").0,
        vec!["crates/shop/src/cart.rs".to_owned()]
    );
    // The full path without a `use` resolves through the crate's name.
    assert_eq!(
        stale(&index),
        vec![
            ("crates/shop/src/bill.rs".to_owned(), 2, "rate".to_owned()),
            (
                "crates/shop/src/cart.rs".to_owned(),
                1,
                "convert".to_owned()
            ),
            (
                "crates/shop/src/cart.rs".to_owned(),
                4,
                "convert".to_owned()
            ),
        ],
        "{:#?}",
        index.omissions
    );
}

#[test]
fn a_python_package_from_a_src_layout_and_a_pyproject() {
    let pyproject = "[project]\nname = \"acme-money\"\nversion = \"0.1.0\"\n";
    let before = "def convert(amount):\n    return amount\n";
    let after = "def exchange(amount):\n    return amount\n";
    let api = "from money.core import convert\n\n\ndef total():\n    return convert(2)\n";
    let flat = "import acme_fx.rates\n\n\ndef fx():\n    return acme_fx.rates.rate()\n";
    let index = index(&[
        (
            "packages/money/pyproject.toml",
            Some(pyproject),
            Some(pyproject),
        ),
        ("packages/money/src/money/__init__.py", Some(""), Some("")),
        (
            "packages/money/src/money/core.py",
            Some(before),
            Some(after),
        ),
        (
            "libs/fx/pyproject.toml",
            Some("[project]\nname = \"Acme-FX\"\n"),
            Some("[project]\nname = \"Acme-FX\"\n"),
        ),
        (
            "libs/fx/acme_fx/rates.py",
            Some("def rate():\n    return 1\n"),
            Some("def rate(at):\n    return at\n"),
        ),
        ("services/api/app/views.py", Some(api), Some(api)),
        ("services/api/app/fx.py", Some(flat), Some(flat)),
    ]);
    assert_eq!(
        importers(&index, "packages/money/src/money/core.py").0,
        vec!["services/api/app/views.py".to_owned()],
        "{index:#?}"
    );
    assert_eq!(
        importers(&index, "libs/fx/acme_fx/rates.py").0,
        vec!["services/api/app/fx.py".to_owned()]
    );
    assert_eq!(
        stale(&index),
        vec![
            ("services/api/app/fx.py".to_owned(), 5, "rate".to_owned()),
            (
                "services/api/app/views.py".to_owned(),
                1,
                "convert".to_owned()
            ),
            (
                "services/api/app/views.py".to_owned(),
                5,
                "convert".to_owned()
            ),
        ],
        "{:#?}",
        index.omissions
    );
}

#[test]
fn bad_manifests_are_ignored() {
    let app = "import { convert } from \"@acme/money\";\n\nconvert(1);\n";
    let index = index(&[
        (
            "packages/money/package.json",
            Some("{ \"name\": "),
            Some("{ \"name\": "),
        ),
        (
            "tsconfig.json",
            Some("{ \"compilerOptions\": { \"paths\": 7 } "),
            Some("{ \"compilerOptions\": { \"paths\": 7 } "),
        ),
        (
            "Cargo.toml",
            Some("[package\nname = "),
            Some("[package\nname = "),
        ),
        ("pyproject.toml", Some("[[["), Some("[[[")),
        ("go.mod", Some("module\n"), Some("module\n")),
        (
            "packages/money/index.ts",
            Some(MONEY_BEFORE),
            Some(MONEY_AFTER),
        ),
        ("apps/web/app.ts", Some(app), Some(app)),
    ]);
    assert!(index.files["packages/money/index.ts"].importers.is_empty());
    assert!(stale(&index).is_empty());
}
