//! The index on small repositories in each language: callers, importers
//! and the uses a change leaves stale.

use crate::common;

use common::index;
use revu_domain::code_index::{CodeIndex, SymbolChange};

fn stale(index: &CodeIndex) -> Vec<(String, u32, String, SymbolChange)> {
    index
        .omissions
        .iter()
        .map(|o| {
            (
                o.site.file.clone(),
                o.site.line,
                o.symbol.clone(),
                o.change.clone(),
            )
        })
        .collect()
}

const MODELS_BEFORE: &str = "class User:\n    def __init__(self, name):\n        self.user_name = name\n\n\ndef greet(user):\n    return 'hi ' + user.user_name\n";
const MODELS_AFTER: &str = "class User:\n    def __init__(self, name):\n        self.username = name\n\n\ndef greet(user):\n    return 'hi ' + user.username\n";

#[test]
fn python_rename_with_a_stale_caller_and_callers_in_other_modules() {
    let views_before = "from app.models import User, greet\n\n\ndef show(u):\n    return u.user_name\n\n\ndef hello(u):\n    return greet(u)\n";
    let views_after = "from app.models import User, greet\n\n\ndef show(u):\n    return u.username\n\n\ndef hello(u):\n    return greet(u)\n";
    let report = "import app.models\n\n\ndef line(user):\n    print(app.models.greet(user))\n    return user.user_name\n";
    let main = "from app import views\n\nviews.show(None)\n";
    let index = index(&[
        ("app/__init__.py", Some(""), Some("")),
        ("app/models.py", Some(MODELS_BEFORE), Some(MODELS_AFTER)),
        ("app/views.py", Some(views_before), Some(views_after)),
        ("app/report.py", Some(report), Some(report)),
        ("main.py", Some(main), Some(main)),
    ]);
    assert_eq!(
        stale(&index),
        vec![(
            "app/report.py".to_string(),
            6,
            "user_name".to_string(),
            SymbolChange::Renamed {
                to: "username".into()
            }
        )],
        "{index:#?}"
    );
    assert_eq!(index.omissions[0].text, "return user.user_name");
    let models = &index.files["app/models.py"];
    // views.py and report.py import it; main.py imports views.py.
    assert_eq!(models.direct_importers, 2, "{models:#?}");
    assert_eq!(models.transitive_importers, 3, "{models:#?}");
    let greet = index
        .symbol_at("app/models.py", 7)
        .map(|s| (&s.name, s.callers));
    assert_eq!(greet, Some((&"greet".to_string(), 2)));
    assert_eq!(index.blast_radius("app/models.py", 7), Some((2, 3)));
    assert_eq!(index.blast_radius("app/report.py", 6), Some((1, 3)));
    assert!(index.has_site("app/report.py", 6));
    assert_eq!(index.taken.len(), 1, "{:?}", index.taken);
}

#[test]
fn typescript_removed_export_still_imported() {
    let util_before = "export function slug(s: string): string {\n  return s.toLowerCase();\n}\n\nexport function trim(s: string) {\n  return s.trim();\n}\n";
    let util_after = "export function trim(s: string) {\n  return s.trim();\n}\n";
    let page = "import { slug, trim } from './util';\n\nexport const title = (t: string) => slug(trim(t));\n";
    let index = index(&[
        ("web/util.ts", Some(util_before), Some(util_after)),
        ("web/page.tsx", Some(page), Some(page)),
    ]);
    let found = stale(&index);
    assert!(
        found.contains(&(
            "web/page.tsx".into(),
            3,
            "slug".into(),
            SymbolChange::Removed
        )),
        "{found:?}"
    );
    assert_eq!(index.files["web/util.ts"].direct_importers, 1);
    let trim = index.symbol_at("web/util.ts", 2).map(|s| s.callers);
    assert_eq!(trim, Some(1));
}

#[test]
fn go_arity_change_with_an_unchanged_caller_in_another_package() {
    let gomod = "module example.com/shop\n\ngo 1.22\n";
    let before = "package pay\n\nfunc Charge(amount int) error {\n\treturn nil\n}\n";
    let after =
        "package pay\n\nfunc Charge(amount int, currency string) error {\n\treturn nil\n}\n";
    let caller = "package api\n\nimport \"example.com/shop/pay\"\n\nfunc Buy() error {\n\treturn pay.Charge(3)\n}\n";
    let updated = "package api\n\nimport \"example.com/shop/pay\"\n\nfunc Refund() error {\n\treturn pay.Charge(3, \"EUR\")\n}\n";
    let index = index(&[
        ("go.mod", Some(gomod), Some(gomod)),
        ("pay/charge.go", Some(before), Some(after)),
        ("api/buy.go", Some(caller), Some(caller)),
        ("api/refund.go", Some(updated), Some(updated)),
    ]);
    let found = stale(&index);
    assert_eq!(
        found,
        vec![(
            "api/buy.go".into(),
            6,
            "Charge".into(),
            SymbolChange::Arity {
                was: "1".into(),
                now: "2".into(),
                passed: 1
            }
        )]
    );
    assert_eq!(index.files["pay/charge.go"].direct_importers, 2);
}

#[test]
fn rust_use_paths_and_modules() {
    let lib = "pub mod store;\npub mod api;\n";
    let store_before = "pub struct Store;\n\nimpl Store {\n    pub fn get(&self, key: &str) -> u32 {\n        0\n    }\n}\n";
    let store_after = "pub struct Store;\n\nimpl Store {\n    pub fn fetch(&self, key: &str) -> u32 {\n        0\n    }\n}\n";
    let api = "use crate::store::Store;\n\npub fn read(s: &Store) -> u32 {\n    s.get(\"k\")\n}\n";
    let cargo = "[package]\nname = \"shop\"\n";
    let index = index(&[
        ("Cargo.toml", Some(cargo), Some(cargo)),
        ("src/lib.rs", Some(lib), Some(lib)),
        ("src/store.rs", Some(store_before), Some(store_after)),
        ("src/api.rs", Some(api), Some(api)),
    ]);
    let found = stale(&index);
    assert_eq!(
        found,
        vec![(
            "src/api.rs".into(),
            4,
            "get".into(),
            SymbolChange::Renamed { to: "fetch".into() }
        )]
    );
    let store = &index.files["src/store.rs"];
    assert_eq!(
        store.importers,
        vec!["src/api.rs".to_string(), "src/lib.rs".to_string()]
    );
}

#[test]
fn java_imports_and_same_package() {
    let before = "package com.shop.model;\n\npublic class Order {\n    public int total() { return 0; }\n}\n";
    let after =
        "package com.shop.model;\n\npublic class Order {\n    public int sum() { return 0; }\n}\n";
    let user = "package com.shop.web;\n\nimport com.shop.model.Order;\n\nclass View {\n    int show(Order o) { return o.total(); }\n}\n";
    let index = index(&[
        (
            "src/main/java/com/shop/model/Order.java",
            Some(before),
            Some(after),
        ),
        (
            "src/main/java/com/shop/web/View.java",
            Some(user),
            Some(user),
        ),
    ]);
    let found = stale(&index);
    assert_eq!(
        found,
        vec![(
            "src/main/java/com/shop/web/View.java".into(),
            6,
            "total".into(),
            SymbolChange::Renamed { to: "sum".into() }
        )]
    );
}

#[test]
fn a_symbol_moved_to_another_file_is_not_stale() {
    let a_before = "def helper():\n    return 1\n";
    let a_after = "";
    let b_after = "def helper():\n    return 1\n";
    let user = "from a import helper\n\nhelper()\n";
    let index = index(&[
        ("a.py", Some(a_before), Some(a_after)),
        ("b.py", None, Some(b_after)),
        ("c.py", Some(user), Some(user)),
    ]);
    assert_eq!(stale(&index), vec![]);
}

#[test]
fn a_use_through_a_package_that_re_exports_the_changed_file() {
    // `lib/index.ts` names nothing of `core.ts`: it passes it all on.
    let core_before = "export const INVALID = Symbol(\"invalid\");\nexport const VALID = 1;\n";
    let core_after = "export const INVALID = Symbol(\"invalid value\");\nexport const VALID = 1;\n";
    let relay = "export * from \"./core\";\n";
    let app = "import { INVALID } from \"../lib/index\";\n\nexport function check(v: unknown) {\n  return v === INVALID;\n}\n";
    let index = index(&[
        ("lib/core.ts", Some(core_before), Some(core_after)),
        ("lib/index.ts", Some(relay), Some(relay)),
        ("app/check.ts", Some(app), Some(app)),
    ]);
    let invalid = index.symbol_at("lib/core.ts", 1);
    assert_eq!(
        invalid.map(|s| (s.name.as_str(), s.callers)),
        Some(("INVALID", 1)),
        "{index:#?}"
    );
}

#[test]
fn a_file_added_to_a_go_package_is_imported_by_the_packages_importers() {
    let gomod = "module example.com/shop\n\ngo 1.22\n";
    let charge = "package pay\n\nfunc Charge(amount int) error {\n\treturn nil\n}\n";
    let refund = "package pay\n\nfunc Refund(amount int) error {\n\treturn Charge(-amount)\n}\n";
    let caller = "package api\n\nimport \"example.com/shop/pay\"\n\nfunc Buy() error {\n\treturn pay.Refund(3)\n}\n";
    let index = index(&[
        ("go.mod", Some(gomod), Some(gomod)),
        ("pay/charge.go", Some(charge), Some(charge)),
        ("pay/refund.go", None, Some(refund)),
        ("api/buy.go", Some(caller), Some(caller)),
    ]);
    // `api/buy.go` imports the package, which now holds the new file.
    let refund = &index.files["pay/refund.go"];
    assert_eq!(refund.importers, ["api/buy.go"], "{refund:#?}");
    let used = index.symbol_at("pay/refund.go", 3);
    assert_eq!(used.map(|s| s.callers), Some(1), "{index:#?}");
}
