//! The `revu.v1` gRPC API, generated from `proto/revu/v1/*.proto`.
//!
//! Prost types stay at the edge: the coordinator and the CLI convert them to
//! domain types on arrival.

/// `revu.v1`: messages, the `ReviewService` and `IndexCacheService`
/// servers and clients.
#[allow(missing_debug_implementations, clippy::all)]
pub mod v1 {
    tonic::include_proto!("revu.v1");
}

pub mod index_cache;
pub mod reason;

/// The encoded file descriptor set, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("revu_descriptor");
