use super::meta::{Example, RuleMeta};
use revu_domain::finding::{Dimension, Severity};
use super::table::{Check, Files, Wording, table_rule};
use super::lang::Lang;
use std::sync::LazyLock;

static CHECKS: LazyLock<Vec<Check>> = LazyLock::new(|| {
    vec![
        Check::new("hashlib.md5/sha1", Files::Lang(Lang::Python), r"\bhashlib\.(?:md5|sha1)\s*\(")
            .unless(r"usedforsecurity\s*=\s*False"),
        Check::new("hashlib.new(md5/sha1)", Files::Lang(Lang::Python), r#"(?i)\bhashlib\.new\(\s*["'](?:md5|sha1)["']"#)
            .verbatim()
            .unless(r"usedforsecurity\s*=\s*False"),
        Check::new("DES/RC4/ECB", Files::Lang(Lang::Python), r"\b(?:DES3?|ARC4|Blowfish)\.new\(|\bmodes\.ECB\(|\bMODE_ECB\b"),
        Check::new("crypto/md5, crypto/sha1", Files::Lang(Lang::Go), r"\b(?:md5|sha1)\.(?:New|Sum)\("),
        Check::new("DES/RC4", Files::Lang(Lang::Go), r"\b(?:des|rc4)\.(?:NewCipher|NewTripleDESCipher)\("),
        Check::new("createHash(md5/sha1)", Files::Lang(Lang::JavaScript), r#"(?i)\bcreateHash\(\s*["'`](?:md5|sha1)["'`]"#)
            .verbatim(),
        Check::new("DES/RC4/ECB cipher", Files::Lang(Lang::JavaScript), r#"(?i)\bcreateCipheriv\(\s*["'`](?:des[\w-]*|rc4[\w-]*|[\w-]*-ecb)["'`]"#)
            .verbatim(),
        Check::new("MessageDigest MD5/SHA-1", Files::Lang(Lang::Java), r#"(?i)\bMessageDigest\.getInstance\(\s*"(?:MD2|MD5|SHA-?1)""#)
            .verbatim(),
        Check::new("DES/RC4/ECB cipher", Files::Lang(Lang::Java), r#"\bCipher\.getInstance\(\s*"(?:(?:DES|DESede|RC2|RC4|ARCFOUR|Blowfish)[^"]*|AES|[^"]*/ECB/[^"]*)""#)
            .verbatim(),
    ]
});

fn summary(label: &str) -> String {
    format!("Broken cryptography: `{label}`.")
}

static WORDING: Wording = Wording {
    summary,
    why: "MD5 and SHA-1 collide on demand and cannot vouch for integrity or store \
          passwords; DES and RC4 break in hours; ECB mode shows the plaintext's shape.",
    fix: "Use SHA-256 or better for integrity, argon2/scrypt/bcrypt for passwords and \
          AES-GCM or ChaCha20-Poly1305 for encryption; mark a checksum that protects \
          nothing as such (`usedforsecurity=False`).",
};

/// The `weak-cryptography` rule in the catalogue.
pub(crate) static META: RuleMeta = RuleMeta {
    code: "RV-SEC-008",
    name: "weak-cryptography",
    dimension: Dimension::Security,
    severity: Severity::Important,
    confidence: 80,
    languages: &["Python", "Go", "JavaScript/TypeScript", "Java"],
    catches: "Flags hashes and ciphers that no longer protect anything, added to program code: \
              MD5 and SHA-1 (`hashlib.md5`, `crypto/md5`, `createHash(\"md5\")`, \
              `MessageDigest.getInstance(\"MD5\")`), DES, RC4, Blowfish and ECB mode (including \
              Java's bare `\"AES\"`, which means ECB). The classes of bandit's B303/B304/B324, \
              gosec's G401/G405/G501 and semgrep's `use-of-md5` / `ecb-cipher` rules.",
    why: "MD5 and SHA-1 collide on demand, so they cannot vouch for integrity or store \
          passwords; DES and RC4 break in hours; ECB encrypts equal blocks to equal blocks and \
          shows the plaintext's shape.",
    example: Example {
        path: "app/sign.py",
        code: "digest = hashlib.md5(payload).hexdigest()",
        context: "",
    },
    instead: "SHA-256 or better for integrity, a password hash (argon2, scrypt, bcrypt) for \
              passwords, AES-GCM or ChaCha20-Poly1305 for encryption; `hashlib.md5(x, \
              usedforsecurity=False)` for a checksum that protects nothing.",
};

table_rule! {
    /// The `weak-cryptography` rule: [`META`].
    WeakCryptography {
        meta: META,
        checks: CHECKS,
        wording: WORDING,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{added_file, assert_well_formed, cited, run};
    use super::*;

    #[test]
    fn flags_broken_hashes_and_ciphers_in_each_language() {
        let change = [
            added_file("app/sign.py", &["h = hashlib.md5(data)", "h = hashlib.sha256(data)"]),
            added_file("pkg/sum.go", &["s := md5.Sum(b)", "s := sha256.Sum256(b)"]),
            added_file("web/hash.js", &["crypto.createHash('sha1')", "crypto.createHash('sha512')"]),
            added_file(
                "src/C.java",
                &["Cipher.getInstance(\"AES/ECB/PKCS5Padding\");", "Cipher.getInstance(\"AES/GCM/NoPadding\");"],
            ),
        ];
        let found = run(&WeakCryptography, &change);
        assert_eq!(
            cited(&found),
            vec![("app/sign.py", 1), ("pkg/sum.go", 1), ("web/hash.js", 1), ("src/C.java", 1)]
        );
        assert_well_formed(&WeakCryptography, &found);
        assert!(CHECKS.iter().all(Check::compiles));
    }

    #[test]
    fn a_checksum_that_protects_nothing_and_tests_are_left_alone() {
        let change = [
            added_file("app/etag.py", &["h = hashlib.md5(body, usedforsecurity=False)"]),
            added_file("tests/test_sign.py", &["h = hashlib.md5(data)"]),
        ];
        assert!(run(&WeakCryptography, &change).is_empty());
    }
}
