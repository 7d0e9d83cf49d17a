//! Crates of a Cargo workspace by the name other crates use them by: the
//! `[lib] name`, else the `[package] name` with `-` as `_`.

use super::{dir_of, join, normalize};

/// A crate a `Cargo.toml` in `dir` defines: its name as code writes it,
/// the directory its library's modules are in, and its root file. `None`
/// for a workspace's own manifest, or a bad one.
pub(super) fn library(dir: &str, text: &str) -> Option<(String, String, String)> {
    let table = toml::from_str::<toml::Table>(text).ok()?;
    let lib = table.get("lib");
    let name = lib
        .and_then(|l| l.get("name"))
        .or_else(|| table.get("package")?.get("name"))
        .and_then(toml::Value::as_str)?
        .replace('-', "_");
    let root = match lib
        .and_then(|l| l.get("path"))
        .and_then(toml::Value::as_str)
    {
        Some(path) => normalize(&join(dir, path))?,
        None => join(dir, "src/lib.rs"),
    };
    Some((name, dir_of(&root).to_owned(), root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_name_and_directory() {
        let package = "[package]\nname = \"acme-money\" # the crate\nversion = \"0.1.0\"\n";
        assert_eq!(
            library("crates/money", package),
            Some((
                "acme_money".to_owned(),
                "crates/money/src".to_owned(),
                "crates/money/src/lib.rs".to_owned()
            ))
        );
        let lib = "[package]\nname = \"x\"\n\n[lib]\nname = \"money\"\npath = \"lib/money.rs\"\n";
        assert_eq!(
            library("m", lib),
            Some((
                "money".to_owned(),
                "m/lib".to_owned(),
                "m/lib/money.rs".to_owned()
            ))
        );
        assert_eq!(library("", "[workspace]\nmembers = [\"crates/*\"]\n"), None);
        assert_eq!(library("", "[package\nname="), None);
    }
}
