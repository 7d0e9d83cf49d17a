//! The code index in `revu review`: stale uses of a renamed property found
//! in files the change did not touch, blast radius as the review contract
//! writes it, the elevation rule at 50 transitive importers, the
//! downstream sweep, and `graph unavailable` without a repository. Needs
//! git on PATH.

use crate::scratch;

use scratch::{Scratch, findings, report};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

fn at<'a>(r: &'a Value, file: &str, rule: &str) -> &'a Value {
    findings(r)
        .into_iter()
        .find(|f| f["file"] == file && f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} finding in {file}: {:#}", r["findings"]))
}

const MODELS: &str = "class User:\n    def __init__(self, name):\n        self.user_name = name\n\n\ndef greet(user):\n    return \"hi \" + user.user_name\n";
const VIEWS: &str = "from app.models import User, greet\n\n\ndef show(u):\n    return u.user_name\n\n\ndef hello(u):\n    return greet(u)\n";
const REPORT: &str = "from app import models\n\n\ndef line(user):\n    print(models.greet(user))\n    return user.user_name\n";

fn app(name: &str) -> Scratch {
    let s = Scratch::new(name);
    s.write("app/__init__.py", "");
    s.write("app/models.py", MODELS);
    s.write("app/views.py", VIEWS);
    s.write("app/report.py", REPORT);
    s.write("main.py", "from app import views\n\nviews.show(None)\n");
    s.commit("first");
    s
}

#[test]
fn a_renamed_property_with_a_caller_left_behind_is_a_blocker_at_that_caller() {
    let s = app("blast-rename");
    // The definition and one caller are renamed; report.py is not touched.
    s.write("app/models.py", &MODELS.replace("user_name", "username"));
    s.write("app/views.py", &VIEWS.replace("u.user_name", "u.username"));
    let out = s.review(&[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = report(&out);
    let stale = at(&r, "app/report.py", "RV-COR-006");
    assert_eq!(stale["line"], 6);
    assert_eq!(stale["severity"], "BLOCKER");
    assert!(
        stale["why"].as_str().is_some_and(
            |w| w.contains("renamed property `user_name`") && w.contains("to `username`")
        ),
        "{stale:#}"
    );
    assert_eq!(stale["pre_existing"], Value::Null, "{stale:#}");
    assert_eq!(r["gate"], "NEEDS-HUMAN");
    assert_eq!(r["verdict"], "REQUEST CHANGES");
    assert_eq!(r["code_index"]["stale_uses"], 1);
    assert_eq!(r["code_index"]["languages"]["python"], 5);
    // Committed, reviewed against its base, it reads the same.
    s.commit("rename");
    let committed = report(&s.review(&["--base", "HEAD~1"]));
    assert_eq!(committed["findings"], r["findings"]);
}

#[test]
fn a_finding_in_a_function_with_two_callers_in_other_modules_says_so() {
    let s = app("blast-callers");
    let changed = MODELS.replace(
        "    return \"hi \" + user.user_name\n",
        "    password = \"hunter2-not-a-real-one\"\n    return \"hi \" + user.user_name\n",
    );
    s.write("app/models.py", &changed);
    let r = report(&s.review(&[]));
    let secret = at(&r, "app/models.py", "RV-SEC-001");
    assert_eq!(secret["line"], 7);
    // greet is called from views.py (hello) and report.py (line); models.py
    // is imported by both, and main.py imports views.py.
    assert_eq!(
        secret["blast_radius"], "2 direct callers, 3 transitive importers",
        "{secret:#}"
    );
    let md = crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .current_dir(&s.dir)
        .env("GIT_CONFIG_GLOBAL", &s.hostile)
        .args(["review", "--format", "md"])
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let md = String::from_utf8_lossy(&md.stdout).into_owned();
    assert!(
        md.contains("blast radius: 2 direct callers, 3 transitive importers"),
        "{md}"
    );
}

#[test]
fn fifty_transitive_importers_raise_an_important_finding_to_blocker() {
    let s = Scratch::new("elevate");
    s.write("core/__init__.py", "");
    s.write("core/util.py", "def norm(x):\n    return x\n");
    for i in 0..55 {
        s.write(
            &format!("svc/m{i}.py"),
            "from core import util\n\nutil.norm(1)\n",
        );
    }
    s.commit("first");
    s.write(
        "core/util.py",
        "def norm(x):\n    try:\n        return x.strip()\n    except Exception:\n        pass\n\n\ndef trim(x):\n    return x.strip()\n",
    );
    let r = report(&s.review(&[]));
    let swallowed = at(&r, "core/util.py", "RV-COR-004");
    assert_eq!(swallowed["severity"], "BLOCKER", "{swallowed:#}");
    assert!(
        swallowed["why"].as_str().is_some_and(
            |w| w.starts_with("Raised from IMPORTANT to BLOCKER: 55 transitive importers")
        ),
        "{swallowed:#}"
    );
    assert_eq!(
        swallowed["blast_radius"],
        "55 direct callers, 55 transitive importers"
    );
    // The missing test is about the change, not what a line does: never
    // raised.
    let untested = at(&r, "core/util.py", "RV-TEST-001");
    assert_eq!(untested["severity"], "IMPORTANT", "{untested:#}");
    assert_eq!(untested["meta"], true, "{untested:#}");
    assert_eq!(r["verification"]["elevated"], 1);
    assert_eq!(r["verdict"], "REQUEST CHANGES");
}

#[test]
fn downstream_checkouts_are_searched_for_what_the_change_renames() {
    let s = app("blast-downstream");
    let root = s
        .dir
        .parent()
        .map(|p| p.join("downstream"))
        .unwrap_or_default();
    let client = root.join("billing/client.py");
    std::fs::create_dir_all(client.parent().unwrap_or(&root)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&client, "def bill(u):\n    return u.user_name\n")
        .unwrap_or_else(|e| panic!("{e}"));
    s.write("app/models.py", &MODELS.replace("user_name", "username"));
    let root_arg = root.to_string_lossy().into_owned();
    let r = report(&s.review(&["--consumers-root", &root_arg]));
    let hits = &r["code_index"]["downstream"];
    assert_eq!(
        hits,
        &serde_json::json!([{
            "repository": "billing", "file": "client.py", "line": 2,
            "symbol": "user_name", "change": "renamed"
        }]),
        "{:#}",
        r["code_index"]
    );
}

#[test]
fn a_diff_from_standard_input_has_no_graph_and_says_so() {
    let s = app("blast-stdin");
    s.write(
        "app/models.py",
        &MODELS.replace(
            "def greet(user):\n",
            "def greet(user):\n    password = \"hunter2-not-a-real-one\"\n",
        ),
    );
    let diff = Command::new("git")
        .current_dir(&s.dir)
        .args(["diff"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut child = crate::scratch::outside_ci(&mut Command::new(env!("CARGO_BIN_EXE_revu")))
        .current_dir(&s.dir)
        .args(["review", "--format", "json", "--diff", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&diff.stdout)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let r = report(&out);
    assert_eq!(r["code_index"], Value::Null);
    let secret = at(&r, "app/models.py", "RV-SEC-001");
    assert_eq!(
        secret["blast_radius"],
        "graph unavailable -- severity based on code analysis only"
    );
}
