//! Quiet on real code: one scratch repository per shape of false alarm
//! that reviews of real merged history raised, each reviewed the way CI
//! reviews a merged commit (`revu review --commit HEAD`, code index on),
//! and, where the shape has one, the true finding beside it that must stay.
//! Needs git on PATH.

use crate::scratch;

use scratch::{Scratch, findings, report};
use serde_json::Value;

/// Reviews the last commit of `s` with the built-in rules alone.
fn review_head(s: &Scratch) -> Value {
    report(&s.review(&["--commit", "HEAD", "--linters", "off", "--fail-on", "never"]))
}

/// `(file, line, rule)` of every BLOCKER.
fn blockers(r: &Value) -> Vec<(String, u64, String)> {
    findings(r)
        .into_iter()
        .filter(|f| f["severity"] == "BLOCKER")
        .map(|f| {
            (
                f["file"].as_str().unwrap_or_default().to_owned(),
                f["line"].as_u64().unwrap_or_default(),
                f["rule"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn fired(r: &Value, rule: &str) -> Vec<String> {
    findings(r)
        .into_iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| format!("{} {}:{}", f["severity"], f["file"], f["line"]))
        .collect()
}

fn at(file: &str, line: u64, rule: &str) -> (String, u64, String) {
    (file.to_owned(), line, rule.to_owned())
}

/// A repository at `before`, then one commit to `after`.
fn change(name: &str, before: &[(&str, &str)], after: &[(&str, &str)]) -> Scratch {
    let s = Scratch::new(name);
    for (path, text) in before {
        s.write(path, text);
    }
    s.commit("before");
    for (path, text) in after {
        s.write(path, text);
    }
    s.commit("the change");
    s
}

#[test]
fn a_standard_library_class_reached_through_its_module_is_not_the_removed_class() {
    // The project drops its own SSLContext subclass: `ssl.SSLContext` and
    // the standard object's `check_hostname` and `verify_mode` stay.
    let before = "import ssl\n\n\nclass SSLContext(ssl.SSLContext):\n    def __init__(self, protocol):\n        super().__init__(protocol)\n        self.check_hostname = False\n        self.verify_mode = ssl.CERT_REQUIRED\n\n\ndef make():\n    return SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n";
    let after = "import ssl\n\n\ndef make():\n    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n    ctx.check_hostname = True\n    ctx.verify_mode = ssl.CERT_REQUIRED\n    return ctx\n";
    let user = "import ssl\n\nfrom net import tls\n\n\ndef connect():\n    ctx = ssl.create_default_context()\n    ctx.check_hostname = True\n    return tls.make()\n";
    let stale = "from net import tls\n\n\ndef legacy():\n    return tls.SSLContext(2)\n";
    let s = change(
        "quiet-sslcontext",
        &[
            ("net/__init__.py", ""),
            ("net/tls.py", before),
            ("net/client.py", user),
            ("net/legacy.py", stale),
        ],
        &[("net/tls.py", after)],
    );
    let r = review_head(&s);
    assert_eq!(
        blockers(&r),
        vec![at("net/legacy.py", 5, "RV-COR-006")],
        "{:#}",
        r["findings"]
    );
}

#[test]
fn a_helper_replaced_by_the_standard_library_function_is_not_stale() {
    let before = "def urlencode(pairs):\n    return '&'.join(k + '=' + v for k, v in pairs)\n\n\ndef query(pairs):\n    return '?' + urlencode(pairs)\n";
    let after = "from urllib.parse import urlencode\n\n\ndef query(pairs):\n    return '?' + urlencode(pairs)\n";
    let s = change(
        "quiet-urlencode",
        &[("web/__init__.py", ""), ("web/util.py", before)],
        &[("web/util.py", after)],
    );
    let r = review_head(&s);
    assert!(fired(&r, "RV-COR-006").is_empty(), "{:#}", r["findings"]);
    assert_eq!(r["gate"], "MERGE-READY", "{:#}", r["findings"]);
}

#[test]
fn a_test_local_variable_is_not_the_removed_package_function() {
    let gomod = "module example.com/srv\n\ngo 1.22\n";
    let before = "package web\n\nfunc realIP(r string) string {\n\treturn r\n}\n\n// ClientIP is the caller's address.\nfunc ClientIP(r string) string {\n\treturn realIP(r)\n}\n";
    let after = "package web\n\n// ClientIP is the caller's address.\nfunc ClientIP(r string) string {\n\treturn r\n}\n";
    let test = "package web\n\nimport \"testing\"\n\nfunc TestClientIP(t *testing.T) {\n\trealIP := \"10.0.0.1\"\n\tif got := ClientIP(realIP); got != realIP {\n\t\tt.Fatal(got)\n\t}\n}\n";
    let s = change(
        "quiet-realip",
        &[
            ("go.mod", gomod),
            ("web/ip.go", before),
            ("web/ip_test.go", test),
        ],
        &[("web/ip.go", after)],
    );
    let r = review_head(&s);
    assert!(fired(&r, "RV-COR-006").is_empty(), "{:#}", r["findings"]);
}

#[test]
fn reading_a_renamed_option_to_raise_a_clear_error_is_on_purpose() {
    let before = "export interface Options {\n  retries?: number;\n}\n\nexport function make(o: Options) {\n  return o.retries ?? 3;\n}\n";
    let after = "export interface Options {\n  maxRetries?: number;\n}\n\nexport function make(o: Options) {\n  return o.maxRetries ?? 3;\n}\n";
    let user = "import { Options, make } from './options';\n\nexport function client(o: Options) {\n  if ((o as any).retries !== undefined) {\n    throw new Error('`retries` was renamed to `maxRetries` in v2');\n  }\n  return make(o);\n}\n";
    let s = change(
        "quiet-renamed-option",
        &[("src/options.ts", before), ("src/client.ts", user)],
        &[("src/options.ts", after)],
    );
    let r = review_head(&s);
    assert!(blockers(&r).is_empty(), "{:#}", r["findings"]);
}

#[test]
fn a_tooling_commit_in_a_module_everything_imports_raises_nothing() {
    // 55 modules import core/util.py: the elevation threshold. The commit
    // only adds a type-checker pragma, annotations, a docstring and a
    // version bump.
    let util =
        "__version__ = \"1.4.2\"\n\n\ndef norm(x, width=None):\n    return x.strip()[:width]\n";
    let tooling = "__version__ = \"1.4.3\"\n\n\ndef norm(x: str, width: int | None = None) -> str:\n    \"\"\"Trim `x` to `width`.\"\"\"\n    return x.strip()[:width]  # pyright: ignore[reportIndexIssue]\n";
    let s = Scratch::new("quiet-tooling");
    s.write("core/__init__.py", "");
    s.write("core/util.py", util);
    for i in 0..55 {
        s.write(
            &format!("svc/m{i}.py"),
            "from core import util\n\nutil.norm(' x ')\n",
        );
    }
    s.commit("before");
    s.write("core/util.py", tooling);
    s.commit("typing");
    let r = review_head(&s);
    assert!(findings(&r).is_empty(), "{:#}", r["findings"]);
    assert_eq!(r["gate"], "MERGE-READY");
    assert_eq!(r["verdict"], "APPROVE");
}

#[test]
fn an_http_client_implementing_its_own_verify_false_option_is_no_blocker() {
    let before = "import ssl\n\n\ndef create_ssl_context(verify=True):\n    return ssl.create_default_context()\n";
    let after = "import ssl\n\n\ndef create_ssl_context(verify=True):\n    ctx = ssl.create_default_context()\n    if verify is False:\n        ctx.check_hostname = False\n        ctx.verify_mode = ssl.CERT_NONE\n    return ctx\n";
    let s = change(
        "quiet-verify-option",
        &[("httpkit/__init__.py", ""), ("httpkit/_config.py", before)],
        &[("httpkit/_config.py", after)],
    );
    let r = review_head(&s);
    assert!(fired(&r, "RV-SEC-005").is_empty(), "{:#}", r["findings"]);
    // Turned off for every caller, it blocks, and says what it checked.
    let always = "import ssl\n\n\ndef create_ssl_context(verify=True):\n    ctx = ssl.create_default_context()\n    ctx.check_hostname = False\n    return ctx\n";
    s.write("httpkit/_config.py", always);
    s.commit("always off");
    let r = review_head(&s);
    assert_eq!(
        blockers(&r),
        vec![at("httpkit/_config.py", 6, "RV-SEC-005")],
        "{:#}",
        r["findings"]
    );
}

#[test]
fn text_content_cannot_inject_markup() {
    let before = "export function greet(el, name) {\n  el.innerHTML = '';\n}\n";
    let after = "export function greet(el, name) {\n  el.innerHTML = ''; el.textContent = 'Hello ' + name;\n}\n";
    let s = change(
        "quiet-textcontent",
        &[("web/greet.js", before)],
        &[("web/greet.js", after)],
    );
    let r = review_head(&s);
    assert!(fired(&r, "RV-SEC-010").is_empty(), "{:#}", r["findings"]);
}

#[test]
fn a_console_log_in_a_jsdoc_example_is_documentation() {
    let before = "export declare function parse(input: string): Schema;\n";
    let after = "/**\n   Parses `input`.\n\n   @example\n   const s = parse(\"a\");\n   console.log(s.shape);\n*/\nexport declare function parse(input: string): Schema;\n";
    let s = change(
        "quiet-jsdoc",
        &[("types/index.d.ts", before)],
        &[("types/index.d.ts", after)],
    );
    let r = review_head(&s);
    assert!(fired(&r, "RV-OPS-001").is_empty(), "{:#}", r["findings"]);
    // Outside the comment, in code, it is still seen.
    s.write(
        "src/run.ts",
        "export function run(x: number) {\n  console.log(x);\n}\n",
    );
    s.commit("a print");
    let r = review_head(&s);
    assert_eq!(fired(&r, "RV-OPS-001").len(), 1, "{:#}", r["findings"]);
}
