//! Settings the coordinator refuses to start with, named by their flags.

use revu_runtime::config::SettingError;
use revu_stages::prepare::BadEngineName;
use std::net::SocketAddr;

/// Settings the coordinator cannot start with.
#[derive(Debug, thiserror::Error)]
pub enum InvalidConfig {
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// An engine name (given to `flag`) no worker could register.
    #[error("{flag}: {source}")]
    Engine {
        flag: &'static str,
        #[source]
        source: BadEngineName,
    },
    #[error(
        "refusing to serve {listen} without authentication: give --tokens-file FILE \
         (env REVU_TOKENS_FILE) or --tls-client-ca FILE, or --allow-unauthenticated \
         to accept any caller"
    )]
    Unauthenticated { listen: SocketAddr },
}

/// A count as the settings errors take it.
pub(super) fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
