//! Certificates for the TLS tests: a CA of the test's own, and server and
//! client certificates it signs, written as PEM files into a directory.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use std::path::{Path, PathBuf};

/// A certificate and its key, as files.
#[derive(Debug, Clone)]
pub struct Pair {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// The certificate's DER, for fingerprints.
    pub der: Vec<u8>,
}

/// A certificate authority whose certificate is `pem`.
pub struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
    dir: PathBuf,
    /// The CA certificate, as a file.
    pub pem: PathBuf,
}

impl std::fmt::Debug for Ca {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ca").field("pem", &self.pem).finish()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

impl Ca {
    /// A new CA named `name`, its files in `dir`.
    pub fn new(dir: &Path, name: &str) -> Ca {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut params = CertificateParams::default();
        params
            .distinguished_name
            .push(DnType::CommonName, format!("{name} test CA"));
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().unwrap_or_else(|e| panic!("CA key: {e}"));
        let issuer =
            CertifiedIssuer::self_signed(params, key).unwrap_or_else(|e| panic!("CA: {e}"));
        let pem = dir.join(format!("{name}-ca.pem"));
        write(&pem, &issuer.pem());
        Ca {
            issuer,
            dir: dir.to_owned(),
            pem,
        }
    }

    /// A server certificate for `127.0.0.1` and `localhost`, as
    /// `{name}.pem` and `{name}.key`.
    pub fn server(&self, name: &str) -> Pair {
        self.leaf(name, ExtendedKeyUsagePurpose::ServerAuth)
    }

    /// A client certificate, as `{name}.pem` and `{name}.key`.
    pub fn client(&self, name: &str) -> Pair {
        self.leaf(name, ExtendedKeyUsagePurpose::ClientAuth)
    }

    fn leaf(&self, name: &str, usage: ExtendedKeyUsagePurpose) -> Pair {
        let mut params = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![usage];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate().unwrap_or_else(|e| panic!("{name} key: {e}"));
        let cert = params
            .signed_by(&key, &self.issuer)
            .unwrap_or_else(|e| panic!("signing {name}: {e}"));
        let pair = Pair {
            cert: self.dir.join(format!("{name}.pem")),
            key: self.dir.join(format!("{name}.key")),
            der: cert.der().to_vec(),
        };
        write(&pair.cert, &cert.pem());
        write(&pair.key, &key.serialize_pem());
        pair
    }
}
