//! Names resolve through bindings before they count as uses of what a
//! change took away: one test per shape of false alarm seen on real
//! project histories, each with the true use beside it that must still be
//! found.

use crate::common;

use common::index;
use revu_domain::code_index::CodeIndex;

/// The certain stale uses: (file, line, symbol).
fn certain(index: &CodeIndex) -> Vec<(String, u32, String)> {
    index
        .omissions
        .iter()
        .filter(|o| o.doubt.is_none())
        .map(|o| (o.site.file.clone(), o.site.line, o.symbol.clone()))
        .collect()
}

/// The doubtful ones.
fn doubtful(index: &CodeIndex) -> Vec<(String, u32, String)> {
    index
        .omissions
        .iter()
        .filter(|o| o.doubt.is_some())
        .map(|o| (o.site.file.clone(), o.site.line, o.symbol.clone()))
        .collect()
}

fn at(file: &str, line: u32, symbol: &str) -> (String, u32, String) {
    (file.to_owned(), line, symbol.to_owned())
}

#[test]
fn a_standard_library_class_reached_through_its_module_is_not_the_removed_one() {
    // The project drops its own SSLContext (a subclass of the standard
    // one); ssl.SSLContext and the standard object's attributes remain.
    let before = "import ssl\n\n\nclass SSLContext(ssl.SSLContext):\n    def __init__(self, protocol):\n        self.check_hostname = False\n        self.verify_mode = ssl.CERT_NONE\n\n\ndef make():\n    return SSLContext(2)\n";
    let after = "import ssl\n\n\ndef make():\n    ctx = ssl.SSLContext(2)\n    ctx.check_hostname = False\n    ctx.verify_mode = ssl.CERT_NONE\n    return ctx\n";
    let client = "from lib import tls\n\n\ndef connect(opts):\n    ctx = tls.make()\n    opts.ctx.check_hostname = True\n    return tls.SSLContext(3)\n";
    let index = index(&[
        ("lib/__init__.py", Some(""), Some("")),
        ("lib/tls.py", Some(before), Some(after)),
        ("lib/client.py", Some(client), Some(client)),
    ]);
    // tls.SSLContext still names the project's class, which is gone.
    assert_eq!(
        certain(&index),
        vec![at("lib/client.py", 7, "SSLContext")],
        "{:#?}",
        index.omissions
    );
    // An attribute of an object of unknown type, whose name the removed
    // class shared with its foreign base: a doubt, never certain.
    assert_eq!(
        doubtful(&index),
        vec![at("lib/client.py", 6, "check_hostname")]
    );
    let doubt = index.omissions.iter().find_map(|o| o.doubt.clone());
    assert!(
        doubt.is_some_and(|d| d.contains("standard types") || d.contains("outside the project")),
        "{:#?}",
        index.omissions
    );
}

#[test]
fn a_helper_replaced_by_a_standard_library_import_is_not_stale() {
    let before = "def urlencode(pairs):\n    return '&'.join('='.join(p) for p in pairs)\n\n\ndef query(pairs):\n    return '?' + urlencode(pairs)\n";
    let after = "from urllib.parse import urlencode\n\n\ndef query(pairs):\n    return '?' + urlencode(pairs)\n";
    let other = "from web.util import urlencode\n\n\ndef link(p):\n    return urlencode(p)\n";
    let index = index(&[
        ("web/__init__.py", Some(""), Some("")),
        ("web/util.py", Some(before), Some(after)),
        ("web/links.py", Some(other), Some(other)),
    ]);
    // links.py still imports it from util.py, which no longer defines it:
    // that import is stale (and its use follows it); util.py's own use is
    // bound to urllib's.
    let found = certain(&index);
    assert!(
        found.iter().all(|(f, _, _)| f == "web/links.py"),
        "{found:?}"
    );
    assert!(
        found.contains(&at("web/links.py", 1, "urlencode")),
        "{found:?}"
    );
}

#[test]
fn a_local_variable_shadows_a_removed_package_function() {
    let gomod = "module example.com/srv\n\ngo 1.22\n";
    let before = "package web\n\nfunc realIP(r string) string {\n\treturn r\n}\n\nfunc Client(r string) string {\n\treturn realIP(r)\n}\n";
    let after = "package web\n\nfunc Client(r string) string {\n\treturn r\n}\n";
    let test = "package web\n\nimport \"testing\"\n\nfunc TestIP(t *testing.T) {\n\trealIP := \"\"\n\tif realIP != Client(realIP) {\n\t\tt.Fatal(realIP)\n\t}\n}\n";
    let stale = "package web\n\nfunc Old(r string) string {\n\treturn realIP(r)\n}\n";
    let index = index(&[
        ("go.mod", Some(gomod), Some(gomod)),
        ("web/ip.go", Some(before), Some(after)),
        ("web/ip_test.go", Some(test), Some(test)),
        ("web/old.go", Some(stale), Some(stale)),
    ]);
    assert_eq!(
        certain(&index),
        vec![at("web/old.go", 4, "realIP")],
        "{:#?}",
        index.omissions
    );
}

#[test]
fn a_check_that_raises_on_a_renamed_option_is_kept_on_purpose() {
    let before = "export interface Options {\n  oldName?: string;\n}\n\nexport function make(o: Options) {\n  return o.oldName;\n}\n";
    let after = "export interface Options {\n  newName?: string;\n}\n\nexport function make(o: Options) {\n  return o.newName;\n}\n";
    let user = "import { Options, make } from './opts';\n\nexport function build(o: Options) {\n  if (o.oldName !== undefined) {\n    throw new Error('oldName was renamed to newName');\n  }\n  return make(o);\n}\n\nexport function label(o: Options) {\n  return o.oldName;\n}\n";
    let index = index(&[
        ("src/opts.ts", Some(before), Some(after)),
        ("src/build.ts", Some(user), Some(user)),
    ]);
    assert_eq!(
        certain(&index),
        vec![at("src/build.ts", 11, "oldName")],
        "{:#?}",
        index.omissions
    );
}

#[test]
fn java_locals_qualified_constants_and_receivers_of_other_types() {
    let before = "package g;\n\nimport java.util.Calendar;\nimport java.util.Comparator;\n\nclass Adapters {\n  static final int MONTH = 1;\n  Comparator<String> comparator;\n\n  static int compare(String a, String b) { return 0; }\n\n  TypeAdapter longAdapter() { return null; }\n\n  static int toIntExact(long v) { return (int) v; }\n\n  int use(Calendar c, String k) {\n    TypeAdapter longAdapter = longAdapter();\n    return c.get(Calendar.MONTH) + comparator.compare(k, k) + toIntExact(1L);\n  }\n}\n";
    let after = "package g;\n\nimport static java.lang.Math.toIntExact;\n\nimport java.util.Calendar;\nimport java.util.Comparator;\n\nclass Adapters {\n  Comparator<String> comparator;\n\n  int use(Calendar c, String k) {\n    TypeAdapter longAdapter = null;\n    return c.get(Calendar.MONTH) + comparator.compare(k, k) + toIntExact(1L) + longAdapter.hashCode();\n  }\n}\n";
    let other = "package g;\n\nclass Other {\n  int f(Adapters a) {\n    return Adapters.MONTH + a.longAdapter().hashCode();\n  }\n}\n";
    let index = index(&[
        ("src/g/Adapters.java", Some(before), Some(after)),
        ("src/g/Other.java", Some(other), Some(other)),
    ]);
    let mut found = certain(&index);
    found.sort();
    assert_eq!(
        found,
        vec![
            at("src/g/Other.java", 5, "MONTH"),
            at("src/g/Other.java", 5, "longAdapter"),
        ],
        "{:#?}",
        index.omissions
    );
    assert_eq!(doubtful(&index), vec![]);
}

#[test]
fn a_const_inside_an_anonymous_callback_is_no_module_variable() {
    let before = "export const make = wrap('x', (inst) => {\n  const isOptional = inst.optional;\n  return isOptional;\n});\n";
    let after = "export const make = wrap('x', (inst) => {\n  const opt = inst.optional;\n  return opt;\n});\n\nexport const other = wrap('y', (inst) => {\n  const isOptional = inst.optional;\n  return isOptional;\n});\n";
    let index = index(&[("src/schemas.ts", Some(before), Some(after))]);
    assert_eq!(index.omissions, vec![], "{:#?}", index.omissions);
    assert!(index.taken.is_empty(), "{:?}", index.taken);
}

#[test]
fn parameters_and_locals_named_like_a_removed_member_are_not_its_uses() {
    // A property `stream` and a method `displayName` go away; parameters
    // and locals of the same names stay.
    let before = "class Bar:\n    def __init__(self, stream):\n        self.stream = stream\n\n    def render(self):\n        return self.stream\n\n\ndef echo(stream: str, n: int) -> str:\n    return stream * n\n";
    let after = "class Bar:\n    def __init__(self, out):\n        self.out = out\n\n    def render(self):\n        return self.out\n\n\ndef echo(stream: str, n: int) -> str:\n    return stream * n\n";
    let gomod = "module example.com/cli\n\ngo 1.22\n";
    let cmd_before = "package cli\n\ntype Command struct{ Use string }\n\nfunc (c *Command) displayName() string {\n\treturn c.Use\n}\n\nfunc (c *Command) Name() string {\n\tif displayName, ok := lookup(c); ok {\n\t\treturn displayName\n\t}\n\treturn c.displayName()\n}\n";
    let cmd_after = cmd_before.replace("displayName() string", "DisplayName() string");
    let index = index(&[
        ("pkg/bar.py", Some(before), Some(after)),
        ("go.mod", Some(gomod), Some(gomod)),
        ("cli/command.go", Some(cmd_before), Some(&cmd_after)),
    ]);
    // The one true stale use: the method call on the receiver, in its own
    // type.
    assert_eq!(
        certain(&index),
        vec![at("cli/command.go", 13, "displayName")],
        "{:#?}",
        index.omissions
    );
    assert_eq!(doubtful(&index), vec![]);
}

#[test]
fn each_certain_use_says_what_was_checked() {
    let before = "class User:\n    def __init__(self, name):\n        self.user_name = name\n";
    let after = "class User:\n    def __init__(self, name):\n        self.username = name\n";
    let report = "from app import models\n\n\ndef line(user: models.User):\n    return user.user_name\n\n\ndef any_user(u):\n    return u.user_name\n";
    let index = index(&[
        ("app/__init__.py", Some(""), Some("")),
        ("app/models.py", Some(before), Some(after)),
        ("app/report.py", Some(report), Some(report)),
    ]);
    let checked: Vec<(u32, String)> = index
        .omissions
        .iter()
        .map(|o| (o.site.line, o.checked.clone()))
        .collect();
    assert_eq!(checked.len(), 2, "{:#?}", index.omissions);
    assert!(
        checked[0].1.contains("declared or built as `User`"),
        "{checked:?}"
    );
    assert!(
        checked[1].1.contains("member of no other type") && checked[1].1.contains("imports"),
        "{checked:?}"
    );
}

#[test]
fn a_module_imported_inside_a_function_binds_there_too() {
    let before = "import ssl\n\n\nclass SSLContext(ssl.SSLContext):\n    def __init__(self):\n        self.check_hostname = False\n";
    let after = "def create(verify):\n    import ssl\n\n    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n    ctx.check_hostname = False\n    return ctx\n";
    let index = index(&[("lib/tls.py", Some(before), Some(after))]);
    assert_eq!(index.omissions, vec![], "{:#?}", index.omissions);
}

#[test]
fn an_interface_member_read_on_a_value_of_another_type_is_not_its_use() {
    let before = "export interface Options {\n  retries?: number;\n}\n";
    let after = "export interface Options {\n  maxRetries?: number;\n}\n";
    let user = "import { Options } from './options';\nimport { Agent } from 'undici';\n\nexport function a(p: Agent) {\n  return p.retries;\n}\n\nexport function b(o: Options) {\n  return o.retries;\n}\n";
    let index = index(&[
        ("src/options.ts", Some(before), Some(after)),
        ("src/use.ts", Some(user), Some(user)),
    ]);
    assert_eq!(
        certain(&index),
        vec![at("src/use.ts", 9, "retries")],
        "{:#?}",
        index.omissions
    );
}
