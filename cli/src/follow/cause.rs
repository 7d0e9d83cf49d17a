//! Why a connection to the coordinator failed, read from the types of the
//! error's causes, never from their text: what to tell the user, and
//! whether asking again can help.
//!
//! The causes come as a chain of `source()`s (tonic's status and transport
//! errors, hyper's, tokio-rustls' `io::Error`s). Two links of it are not
//! `source()`: an `io::Error` holds its error in `get_ref()` (its own
//! `source()` skips it), and an `h2::Error` its `io::Error` in `get_io()`.
//!
//! A TLS failure of the handshake keeps its `rustls::Error`. One after it
//! (under TLS 1.3 the coordinator checks the client's certificate once the
//! client has finished its side, and answers with an alert) reaches us
//! through h2, which keeps only the `io::Error`'s kind of it: on a TLS link
//! an `InvalidData` read is rustls refusing what the peer sent, and what
//! the peer refuses then is the client's certificate, or its absence.

use h2::Reason;
use rustls::{AlertDescription, CertificateError};
use std::error::Error;
use std::io::ErrorKind;

/// How the CLI talks to the coordinator: what, besides the error, tells
/// one cause from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Plaintext,
    Tls { client_certificate: bool },
}

/// A cause the CLI has something to say about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The coordinator asks for a client certificate and was given none.
    CertificateRequired,
    /// The coordinator refused the client certificate it was given.
    CertificateRefused,
    /// The coordinator's certificate does not chain to a trusted CA.
    ServerUntrusted,
    /// The coordinator's certificate does not name the host dialled.
    ServerMisnamed,
    /// The coordinator's certificate is expired or not valid yet.
    ServerExpired,
    /// Another TLS failure: the peer's alert, or its messages.
    Tls,
    /// TLS spoken to a port that answers in plaintext.
    NotTls,
    /// Plaintext HTTP/2 that broke the way it does against a TLS port: a
    /// reset or closed connection, or what the TLS server sent back read
    /// as a bad HTTP/2 frame.
    MaybeTls,
}

impl Cause {
    /// Whether asking again cannot help: TLS that failed will fail the
    /// same way until the certificates or the flags change.
    pub fn permanent(self) -> bool {
        !matches!(self, Cause::MaybeTls)
    }

    /// What to do about it.
    pub fn hint(self) -> Option<&'static str> {
        Some(match self {
            Cause::CertificateRequired => {
                "the coordinator requires a client certificate: give --client-cert FILE and --client-key FILE"
            }
            Cause::CertificateRefused => "the coordinator did not accept the client certificate",
            Cause::ServerUntrusted => {
                "the coordinator's TLS certificate is not trusted; give the CA that signed it with --ca-cert FILE"
            }
            Cause::ServerMisnamed => {
                "the coordinator's TLS certificate does not name this host; use an address it names"
            }
            Cause::ServerExpired => "the coordinator's TLS certificate is expired or not valid yet",
            Cause::NotTls => "the coordinator does not speak TLS on this port; use http://",
            Cause::MaybeTls => {
                "the coordinator may require TLS; use https:// (and --ca-cert FILE for a private CA)"
            }
            Cause::Tls => return None,
        })
    }
}

/// The cause of `err` on a link over `transport`, when it is one the CLI
/// knows.
pub fn of(err: &(dyn Error + 'static), transport: Transport) -> Option<Cause> {
    let mut seen = Seen::default();
    seen.walk(err);
    if let Some(tls) = seen.tls {
        return Some(from_rustls(tls, transport));
    }
    match transport {
        Transport::Tls { client_certificate } if seen.kinds.contains(&ErrorKind::InvalidData) => {
            Some(if client_certificate {
                Cause::CertificateRefused
            } else {
                Cause::CertificateRequired
            })
        }
        Transport::Plaintext
            if seen.broken_frames
                || seen.kinds.iter().any(|k| {
                    matches!(
                        k,
                        ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                            | ErrorKind::BrokenPipe
                    )
                }) =>
        {
            Some(Cause::MaybeTls)
        }
        _ => None,
    }
}

fn from_rustls(err: &rustls::Error, transport: Transport) -> Cause {
    match err {
        rustls::Error::AlertReceived(AlertDescription::CertificateRequired) => {
            Cause::CertificateRequired
        }
        rustls::Error::AlertReceived(
            AlertDescription::BadCertificate
            | AlertDescription::UnsupportedCertificate
            | AlertDescription::CertificateRevoked
            | AlertDescription::CertificateExpired
            | AlertDescription::CertificateUnknown
            | AlertDescription::UnknownCA,
        ) => match transport {
            Transport::Tls {
                client_certificate: false,
            } => Cause::CertificateRequired,
            _ => Cause::CertificateRefused,
        },
        rustls::Error::InvalidCertificate(
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
        ) => Cause::ServerMisnamed,
        rustls::Error::InvalidCertificate(
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. },
        ) => Cause::ServerExpired,
        rustls::Error::InvalidCertificate(_) => Cause::ServerUntrusted,
        rustls::Error::InvalidMessage(_) => Cause::NotTls,
        _ => Cause::Tls,
    }
}

/// What a walk down the causes found.
#[derive(Default)]
struct Seen<'a> {
    tls: Option<&'a rustls::Error>,
    kinds: Vec<ErrorKind>,
    /// An HTTP/2 frame or protocol error: bytes that are not HTTP/2.
    broken_frames: bool,
}

impl<'a> Seen<'a> {
    fn walk(&mut self, err: &'a (dyn Error + 'static)) {
        // Deep enough for any chain tonic makes; a cycle cannot hang us.
        let mut next = Some(err);
        for _ in 0..32 {
            let Some(err) = next else { return };
            next = err.source();
            if let Some(tls) = err.downcast_ref::<rustls::Error>() {
                self.tls.get_or_insert(tls);
            } else if let Some(io) = err.downcast_ref::<std::io::Error>() {
                self.kinds.push(io.kind());
                if let Some(inner) = io.get_ref() {
                    next = Some(inner);
                }
            } else if let Some(h2) = err.downcast_ref::<h2::Error>() {
                self.broken_frames |= matches!(
                    h2.reason(),
                    Some(Reason::FRAME_SIZE_ERROR | Reason::PROTOCOL_ERROR)
                );
                if let Some(io) = h2.get_io() {
                    next = Some(io);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    const PLAIN: Transport = Transport::Plaintext;
    const TLS: Transport = Transport::Tls {
        client_certificate: false,
    };
    const MUTUAL: Transport = Transport::Tls {
        client_certificate: true,
    };

    /// A layer of the chain, as tonic and hyper wrap: says `outer` and
    /// has `inner` as its source.
    #[derive(Debug)]
    struct Layer(&'static str, Box<dyn Error + Send + Sync>);

    impl fmt::Display for Layer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(self.1.as_ref())
        }
    }

    /// `inner` as the transport hands it up: in an `io::Error` of `kind`,
    /// under two layers.
    fn wrapped(kind: ErrorKind, inner: impl Error + Send + Sync + 'static) -> Layer {
        let io = std::io::Error::new(kind, inner);
        Layer("transport error", Box::new(Layer("connect", Box::new(io))))
    }

    fn tls(err: rustls::Error) -> Layer {
        wrapped(ErrorKind::InvalidData, err)
    }

    #[test]
    fn a_handshake_refusal_is_read_from_the_rustls_error() {
        let alert = |a| tls(rustls::Error::AlertReceived(a));
        assert_eq!(
            of(&alert(AlertDescription::CertificateRequired), TLS),
            Some(Cause::CertificateRequired)
        );
        for refused in [
            AlertDescription::BadCertificate,
            AlertDescription::UnknownCA,
        ] {
            assert_eq!(of(&alert(refused), MUTUAL), Some(Cause::CertificateRefused));
            // Without a certificate to refuse, it wanted one.
            assert_eq!(of(&alert(refused), TLS), Some(Cause::CertificateRequired));
        }
        assert_eq!(
            of(&alert(AlertDescription::HandshakeFailure), TLS),
            Some(Cause::Tls)
        );
    }

    #[test]
    fn the_coordinators_certificate_is_told_by_what_is_wrong_with_it() {
        let server = |e| tls(rustls::Error::InvalidCertificate(e));
        for (err, cause) in [
            (CertificateError::UnknownIssuer, Cause::ServerUntrusted),
            (CertificateError::BadSignature, Cause::ServerUntrusted),
            (CertificateError::NotValidForName, Cause::ServerMisnamed),
            (CertificateError::Expired, Cause::ServerExpired),
            (CertificateError::NotValidYet, Cause::ServerExpired),
        ] {
            assert_eq!(of(&server(err), TLS), Some(cause));
        }
    }

    #[test]
    fn tls_to_a_plaintext_port_reads_a_record_that_is_none() {
        let err = tls(rustls::Error::InvalidMessage(
            rustls::InvalidMessage::InvalidContentType,
        ));
        assert_eq!(of(&err, TLS), Some(Cause::NotTls));
    }

    #[test]
    fn an_alert_after_the_handshake_is_told_by_the_certificate_given() {
        // h2 keeps the io::Error's kind and the alert's text, not its type.
        let err = Layer(
            "transport error",
            Box::new(std::io::Error::new(
                ErrorKind::InvalidData,
                "received fatal alert: CertificateRequired",
            )),
        );
        assert_eq!(of(&err, TLS), Some(Cause::CertificateRequired));
        assert_eq!(of(&err, MUTUAL), Some(Cause::CertificateRefused));
        // Over plaintext there is no TLS to have refused anything.
        assert_eq!(of(&err, PLAIN), None);
    }

    #[test]
    fn plaintext_to_a_tls_port_breaks_the_http2_connection() {
        let frames = Layer(
            "h2 protocol error",
            Box::new(h2::Error::from(Reason::FRAME_SIZE_ERROR)),
        );
        assert_eq!(of(&frames, PLAIN), Some(Cause::MaybeTls));
        for kind in [ErrorKind::ConnectionReset, ErrorKind::BrokenPipe] {
            let broken = Layer("transport error", Box::new(std::io::Error::from(kind)));
            assert_eq!(of(&broken, PLAIN), Some(Cause::MaybeTls), "{kind:?}");
            // Over TLS a reset is a coordinator going away: nothing to say.
            assert_eq!(of(&broken, TLS), None, "{kind:?}");
        }
        let cancelled = Layer("h2", Box::new(h2::Error::from(Reason::CANCEL)));
        assert_eq!(of(&cancelled, PLAIN), None);
    }

    #[test]
    fn a_refused_connection_or_a_server_status_has_no_cause() {
        let refused = wrapped(ErrorKind::ConnectionRefused, Layer("refused", "x".into()));
        assert_eq!(of(&refused, PLAIN), None);
        assert_eq!(of(&refused, TLS), None);
        let status = tonic::Status::unavailable("backend: redis: connection refused");
        assert_eq!(of(&status, TLS), None);
    }

    #[test]
    fn only_a_plaintext_link_that_broke_may_work_when_asked_again() {
        for cause in [
            Cause::CertificateRequired,
            Cause::CertificateRefused,
            Cause::ServerUntrusted,
            Cause::ServerMisnamed,
            Cause::ServerExpired,
            Cause::Tls,
            Cause::NotTls,
        ] {
            assert!(cause.permanent(), "{cause:?}");
        }
        assert!(!Cause::MaybeTls.permanent());
    }
}
