//! The names revu's telemetry uses: span names, attribute keys and the
//! messaging target of a stream. The exporters and log setup that use them
//! are in `revu-runtime`.

pub mod names;

pub use names::MessagingTarget;
