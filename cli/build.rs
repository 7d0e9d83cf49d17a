//! Lays out the functions a review runs together at the start of the
//! `revu` binary's code, from the list `scripts/code-order` writes for the
//! profile being built (`code-order/<profile>.txt`). The kernel maps code
//! a block at a time around each page that runs: gathered, the 2 MB a
//! review runs take a few blocks instead of touching 7 MB of them.
//!
//! Only where the linker is LLD, the default of Rust (1.90 and later) on
//! x86_64 Linux, and no other linker is configured: other linkers do not
//! read an ordering file. Names the build does not have are skipped, so a
//! stale list lays out less and never fails the link. Where the binary is
//! built against glibc 2.36 or later, its relative relocations are packed
//! too. `REVU_CODE_ORDER=off` links the binary as it would be without
//! this script.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=REVU_CODE_ORDER");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!(
        "cargo:rerun-if-changed={}",
        manifest.join("code-order").display()
    );
    let Some(out_dir) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    if env::var("REVU_CODE_ORDER").is_ok_and(|v| v == "off") || !linker_is_lld() {
        return;
    }
    if glibc_reads_relr() {
        // Relative relocations packed (DT_RELR): the loader reads 10 KB of
        // them where it read 900 KB, all resident for the process's life.
        println!("cargo:rustc-link-arg-bin=revu=-Wl,-z,pack-relative-relocs");
    }
    let Some(profile) = profile_of(&out_dir) else {
        return;
    };
    let listed = manifest.join("code-order").join(format!("{profile}.txt"));
    println!("cargo:rerun-if-changed={}", listed.display());
    let Ok(text) = fs::read_to_string(&listed) else {
        return;
    };
    // The linker reads one name a line; the list's own comments stay here.
    let names: String = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .flat_map(|l| [l, "\n"])
        .collect();
    let order = out_dir.join("code-order.txt");
    if fs::write(&order, names).is_err() {
        println!(
            "cargo:warning=could not write {}: code left in link order",
            order.display()
        );
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=revu=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=revu=-Wl,--no-warn-symbol-ordering");
}

/// Whether the binary is linked by LLD: the target's default since Rust
/// 1.90 on x86_64 Linux (glibc), unless a linker or its flavour is set.
fn linker_is_lld() -> bool {
    let target = env::var("TARGET").unwrap_or_default();
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    target == "x86_64-unknown-linux-gnu"
        && env::var_os("RUSTC_LINKER").is_none()
        && !flags.contains("linker")
        && !flags.contains("link-self-contained")
        && !flags.contains("fuse-ld")
}

/// Whether the C library the binary is built against, on this machine,
/// reads packed relative relocations: glibc 2.36 and later. A binary
/// linked with them needs such a glibc where it runs too, as it needs
/// the versions of the other glibc symbols it was linked against.
fn glibc_reads_relr() -> bool {
    if env::var("HOST").ok() != env::var("TARGET").ok() {
        return false;
    }
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (2, 36)
}

/// The profile a build is for, from its output directory
/// (`<target-dir>[/<triple>]/<profile>/build/<package>-<hash>/out`).
fn profile_of(out_dir: &Path) -> Option<String> {
    let build = out_dir.parent()?.parent()?;
    if build.file_name()? != "build" {
        return None;
    }
    Some(build.parent()?.file_name()?.to_str()?.to_owned())
}
